package saw.engine.attention;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.MaskChecks;
import saw.engine.mask.RandomMasks;
import saw.engine.mask.TileLayout;

/** Tables of gathered blocks (ring attention's device-local layouts) against the whole layout's tables. */
class TileListsGatheredTest {
    private static final int[] BLOCKS = {32, 64, 128};

    @Test
    void gatheredRowsListTheWholeLayoutsTilesOfTheHeldBlocksWithTheSameBits() {
        long master = Long.getLong("saw.test.seed", 0x7A11L);
        int checked = 0;
        for (int c = 0; c < 300; c++) {
            long seed = master * 1_000_003L + c;
            SplittableRandom rnd = new SplittableRandom(seed);
            Dims dims = RandomMasks.randomDims(rnd, 500);
            Mask mask = new RandomMasks(rnd, dims).mask(2);
            if (!MaskChecks.check(mask, dims).isEmpty()) {
                continue;
            }
            try {
                checkOne(rnd, dims, mask);
                checked++;
            } catch (AssertionError | RuntimeException e) {
                fail("case " + c + " failed; replay with -Dsaw.test.seed=" + master + " (case seed " + seed + "): "
                        + e.getMessage(), e);
            }
        }
        org.junit.jupiter.api.Assertions.assertTrue(checked > 100, "only " + checked + " valid random masks");
    }

    private static void checkOne(SplittableRandom rnd, Dims dims, Mask mask) {
        int bq = BLOCKS[rnd.nextInt(3)];
        int bkv = BLOCKS[rnd.nextInt(3)];
        TileLayout layout = BoundMask.bind(mask, dims).compile(bq, bkv);
        AttentionProblem whole = AttentionProblem.of(dims.batch(), dims.heads(), dims.heads(), dims.seqQ(), dims.seqKv(), 64,
                DType.BF16);
        TileLists all = TileLists.of(whole, layout);
        int[] qb = subset(rnd, layout.numQBlocks());
        int[] kb = subset(rnd, layout.numKvBlocks());
        AttentionProblem local = AttentionProblem.of(dims.batch(), dims.heads(), dims.heads(), tokens(qb, bq, dims.seqQ()),
                tokens(kb, bkv, dims.seqKv()), 64, DType.BF16);
        TileLists part = TileLists.gathered(local, layout, qb, kb);
        assertArrayEquals(all.variantOf(), part.variantOf());
        int variants = Arrays.stream(all.variantOf()).max().orElse(0) + 1;
        int words = bq * bkv / 32;
        for (int v = 0; v < variants; v++) {
            for (int r = 0; r < qb.length; r++) {
                List<String> expected = new ArrayList<>();
                int grow = v * layout.numQBlocks() + qb[r];
                for (int i = all.rowPtr()[grow]; i < all.rowPtr()[grow + 1]; i++) {
                    int at = Arrays.binarySearch(kb, all.rowKv()[i]);
                    if (at >= 0) {
                        boolean partial = i - all.rowPtr()[grow] < all.rowPartial()[grow];
                        expected.add(entry(at, partial, partial ? bits(all.bits(), all.rowMask()[i], words) : ""));
                    }
                }
                expected.sort(null);
                List<String> actual = new ArrayList<>();
                int lrow = v * qb.length + r;
                for (int i = part.rowPtr()[lrow]; i < part.rowPtr()[lrow + 1]; i++) {
                    boolean partial = i - part.rowPtr()[lrow] < part.rowPartial()[lrow];
                    actual.add(entry(part.rowKv()[i], partial, partial ? bits(part.bits(), part.rowMask()[i], words) : ""));
                }
                actual.sort(null);
                assertEquals(expected, actual, "variant " + v + " local row " + r + " (q-block " + qb[r] + ")");
            }
        }
        assertEquals(part.rowPtr()[part.rowPtr().length - 1], part.colPtr()[part.colPtr().length - 1],
                "rows and columns list the same tiles");
        TileLists identity = TileLists.gathered(whole, layout, range(layout.numQBlocks()), range(layout.numKvBlocks()));
        assertArrayEquals(all.rowKv(), identity.rowKv());
        assertArrayEquals(all.colQ(), identity.colQ());
        assertArrayEquals(all.bits(), identity.bits());
        assertArrayEquals(all.rowOrder(), identity.rowOrder());
    }

    private static String entry(int kvBlock, boolean partial, String bits) {
        return kvBlock + (partial ? " partial " + bits : " full");
    }

    private static String bits(int[] table, int tile, int words) {
        return Arrays.toString(Arrays.copyOfRange(table, tile * words, (tile + 1) * words));
    }

    private static int[] subset(SplittableRandom rnd, int n) {
        int[] out = new int[n];
        int k = 0;
        for (int i = 0; i < n; i++) {
            if (rnd.nextInt(3) != 0) {
                out[k++] = i;
            }
        }
        if (k == 0) {
            out[k++] = rnd.nextInt(n);
        }
        return Arrays.copyOf(out, k);
    }

    private static int tokens(int[] blocks, int block, int seq) {
        int n = 0;
        for (int b : blocks) {
            n += Math.min(seq, (b + 1) * block) - b * block;
        }
        return n;
    }

    private static int[] range(int n) {
        int[] a = new int[n];
        Arrays.setAll(a, i -> i);
        return a;
    }

    @Test
    void blocksOutOfOrderOrTokenCountsThatDisagreeAreRefused() {
        TileLayout layout = BoundMask.bind(new Mask.Causal(0), new Dims(256, 256, 1, 2)).compile(64, 64);
        AttentionProblem p = AttentionProblem.of(1, 2, 2, 128, 128, 64, DType.BF16);
        IllegalArgumentException order = assertThrows(IllegalArgumentException.class,
                () -> TileLists.gathered(p, layout, new int[] {2, 0}, new int[] {0, 1}));
        assertEquals("q-blocks must be ascending in 0..3; got [2, 0]", order.getMessage());
        IllegalArgumentException count = assertThrows(IllegalArgumentException.class,
                () -> TileLists.gathered(p, layout, new int[] {0, 1, 3}, new int[] {0, 1}));
        assertEquals("the gathered q-blocks hold 192 tokens, the problem has 128", count.getMessage());
    }
}
