package saw.engine.mask;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class TileClassificationTest {
    private static final int SPECS = 2500;

    @Test
    void tilesAndCountsOfRandomCompositionsMatchBruteForce() {
        RandomMasks.forEachSeed(0x5A17L, SPECS, TileClassificationTest::checkOne);
    }

    static void checkOne(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        BoundMask bound = RandomMasks.randomBound(rnd, 300, 3);
        if (bound == null) {
            return;
        }
        Dims dims = bound.dims();
        Mask mask = bound.mask();
        int bq = RandomMasks.randomBlock(rnd);
        int bkv = RandomMasks.randomBlock(rnd);
        TileLayout layout = bound.compile(bq, bkv);
        long pairsTotal = 0;
        for (int b = 0; b < dims.batch(); b++) {
            for (int h = 0; h < dims.heads(); h++) {
                boolean[][] dense = BruteForce.dense(mask, dims, b, h);
                int v = bound.variantOf(b, h);
                TileGrid grid = layout.grid(b, h);
                for (int i = 0; i < dims.seqQ(); i += 1 + (i % 7)) {
                    for (int j = 0; j < dims.seqKv(); j += 1 + (j % 5)) {
                        assertEquals(dense[i][j], bound.attends(v, i, j), "pair (" + i + ", " + j + ") b=" + b + " h=" + h + " of " + mask);
                    }
                }
                long pairs = 0;
                for (int qb = 0; qb < layout.numQBlocks(); qb++) {
                    for (int kb = 0; kb < layout.numKvBlocks(); kb++) {
                        int q0 = layout.qStart(qb);
                        int q1 = layout.qEnd(qb);
                        int k0 = layout.kvStart(kb);
                        int k1 = layout.kvEnd(kb);
                        TileClass expected = BruteForce.tile(dense, q0, q1, k0, k1);
                        assertEquals(expected, grid.classAt(qb, kb), "tile (" + qb + ", " + kb + ") " + bq + "x" + bkv
                                + " b=" + b + " h=" + h + " dims=" + dims + " of " + mask);
                        long count = 0;
                        for (int i = q0; i < q1; i++) {
                            for (int j = k0; j < k1; j++) {
                                count += dense[i][j] ? 1 : 0;
                            }
                        }
                        assertEquals(count, layout.attendingInTile(v, qb, kb), "pairs in tile (" + qb + ", " + kb + ") of " + mask);
                        pairs += count;
                    }
                }
                pairsTotal += pairs;
                int q0 = rnd.nextInt(dims.seqQ());
                int q1 = q0 + 1 + rnd.nextInt(dims.seqQ() - q0);
                int k0 = rnd.nextInt(dims.seqKv());
                int k1 = k0 + 1 + rnd.nextInt(dims.seqKv() - k0);
                assertEquals(BruteForce.tile(dense, q0, q1, k0, k1), bound.classify(v, q0, q1, k0, k1),
                        "rectangle [" + q0 + "," + q1 + ")x[" + k0 + "," + k1 + ") of " + mask);
            }
        }
        assertEquals(pairsTotal, bound.attendedPairs(), "attended pairs of " + mask);
    }
}
