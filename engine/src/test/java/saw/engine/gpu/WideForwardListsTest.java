package saw.engine.gpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.TileLists;
import saw.engine.mask.BoundMask;
import saw.engine.mask.BruteForce;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.RandomMasks;
import saw.engine.mask.TileLayout;

/**
 * The lists the head dim 256 forward with 128-row CTAs reads ({@link GpuBackend#forwardLists}): built from a 64x64
 * layout's mask at 128x64, checked against the brute-force token mask and against the 64x64 lists' row pairs.
 */
class WideForwardListsTest {
    @Test
    void rowsOf128QueriesListExactlyTheAttendedKvTilesWithBruteForceBitTiles() {
        int checked = RandomMasks.countPassing(0x128D256L, 120, WideForwardListsTest::checkOne);
        assertTrue(checked >= 60, "only " + checked + " of 120 random masks were valid");
    }

    /** False when the drawn mask is not a valid one (nothing checked). */
    private static boolean checkOne(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        BoundMask bound = RandomMasks.randomBound(rnd, 320, 2);
        if (bound == null) {
            return false;
        }
        Dims dims = bound.dims();
        Mask mask = bound.mask();
        int kvHeads = dims.heads() % 2 == 0 && rnd.nextBoolean() ? dims.heads() / 2 : dims.heads();
        AttentionProblem p = new AttentionProblem(dims.batch(), dims.heads(), kvHeads, dims.seqQ(), dims.seqKv(), 256,
                DType.BF16, 0.0625, 0);
        TileLayout layout64 = bound.compile(64, 64);
        TileLists pairs = TileLists.of(p, layout64);
        TileLists t = GpuBackend.forwardLists(p, layout64);
        assertEquals(128, t.blockQ());
        assertEquals(64, t.blockKv());
        assertEquals((dims.seqQ() + 127) / 128, t.numQBlocks());
        assertEquals(pairs.numKvBlocks(), t.numKvBlocks());
        assertArrayEquals(pairs.variantOf(), t.variantOf(), "the kernel reads the 64x64 tables' variants");
        int nq = t.numQBlocks();
        int nkv = t.numKvBlocks();
        int[] order = t.rowOrder().clone();
        Arrays.sort(order);
        for (int i = 0; i < order.length; i++) {
            assertEquals(i, order[i], "the work order is a permutation of the (batch, head, 128-row tile) items");
        }
        assertEquals((long) dims.batch() * dims.heads() * nq, order.length);
        for (int b = 0; b < dims.batch(); b++) {
            for (int h = 0; h < dims.heads(); h++) {
                boolean[][] dense = BruteForce.dense(mask, dims, b, h);
                int v = t.variantOf()[b * dims.heads() + h];
                for (int r = 0; r < nq; r++) {
                    TreeSet<Integer> listed = new TreeSet<>();
                    int row = v * nq + r;
                    for (int e = t.rowPtr()[row]; e < t.rowPtr()[row + 1]; e++) {
                        int kb = t.rowKv()[e];
                        assertTrue(listed.add(kb), "kv-block " + kb + " listed once in row " + r);
                        boolean partial = e - t.rowPtr()[row] < t.rowPartial()[row];
                        checkTile(t, dense, dims, r, kb, partial ? t.rowMask()[e] : -1);
                    }
                    assertEquals(attended(dense, dims, r * 128, r * 128 + 128, nkv), listed, "row " + r);
                    TreeSet<Integer> union = new TreeSet<>(rowOf(pairs, v, 2 * r));
                    if (2 * r + 1 < pairs.numQBlocks()) {
                        union.addAll(rowOf(pairs, v, 2 * r + 1));
                    }
                    assertEquals(union, listed, "row " + r + " lists the union of the 64x64 rows " + 2 * r + " and " + (2 * r + 1));
                }
            }
        }
        return true;
    }

    /** A listed tile: FULL (mask < 0) only when every pair is real and attends; PARTIAL with the exact pairs as bits. */
    private static void checkTile(TileLists t, boolean[][] dense, Dims dims, int r, int kb, int mask) {
        for (int il = 0; il < 128; il++) {
            for (int jl = 0; jl < 64; jl++) {
                int i = r * 128 + il;
                int j = kb * 64 + jl;
                boolean expected = i < dims.seqQ() && j < dims.seqKv() && dense[i][j];
                if (mask < 0) {
                    assertTrue(expected, "FULL tile (" + r + ", " + kb + ") holds pair (" + i + ", " + j + ")");
                } else {
                    boolean bit = (t.bits()[mask * 128 * 2 + il * 2 + (jl >>> 5)] >>> (jl & 31) & 1) != 0;
                    assertEquals(expected, bit, "bit (" + i + ", " + j + ") of PARTIAL tile (" + r + ", " + kb + ")");
                }
            }
        }
    }

    private static TreeSet<Integer> attended(boolean[][] dense, Dims dims, int q0, int q1, int nkv) {
        TreeSet<Integer> kvBlocks = new TreeSet<>();
        for (int i = q0; i < Math.min(q1, dims.seqQ()); i++) {
            for (int j = 0; j < dims.seqKv(); j++) {
                if (dense[i][j]) {
                    kvBlocks.add(j / 64);
                }
            }
        }
        assertTrue(kvBlocks.isEmpty() || kvBlocks.last() < nkv);
        return kvBlocks;
    }

    private static TreeSet<Integer> rowOf(TileLists t, int variant, int r) {
        TreeSet<Integer> kv = new TreeSet<>();
        int row = variant * t.numQBlocks() + r;
        for (int e = t.rowPtr()[row]; e < t.rowPtr()[row + 1]; e++) {
            kv.add(t.rowKv()[e]);
        }
        return kv;
    }
}
