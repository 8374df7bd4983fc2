package saw.engine.mask;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Row words ({@code Node.row}) and rectangles of bits ({@link BoundMask#attendingBits}) against brute force. */
class AttendingBitsTest {
    private static final int SPECS = 1500;

    @Test
    void rowWordsAndRectanglesOfRandomCompositionsMatchBruteForce() {
        RandomMasks.forEachSeed(0xB175L, SPECS, AttendingBitsTest::checkOne);
    }

    private static void checkOne(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        BoundMask bound = RandomMasks.randomBound(rnd, 300, 3);
        if (bound == null) {
            return;
        }
        Dims dims = bound.dims();
        Mask mask = bound.mask();
        int b = rnd.nextInt(dims.batch());
        int h = rnd.nextInt(dims.heads());
        int v = bound.variantOf(b, h);
        boolean[][] dense = BruteForce.dense(mask, dims, b, h);
        for (int x = 0; x < 20; x++) {
            int i = rnd.nextInt(dims.seqQ());
            int j0 = rnd.nextInt(dims.seqKv());
            int n = 1 + rnd.nextInt(Math.min(32, dims.seqKv() - j0));
            int want = 0;
            for (int c = 0; c < n; c++) {
                want |= dense[i][j0 + c] ? 1 << c : 0;
            }
            assertEquals(want, bound.node(v).row(i, j0, n), "row " + i + " columns [" + j0 + ", " + (j0 + n) + ") of " + mask);
        }
        for (int x = 0; x < 4; x++) {
            int q0;
            int q1;
            int k0;
            int k1;
            if (x == 0) {  // a tile, clipped at the sequences' ends as the tile lists ask for it
                int bq = RandomMasks.randomBlock(rnd);
                int bkv = RandomMasks.randomBlock(rnd);
                q0 = rnd.nextInt((dims.seqQ() + bq - 1) / bq) * bq;
                k0 = rnd.nextInt((dims.seqKv() + bkv - 1) / bkv) * bkv;
                q1 = Math.min(dims.seqQ(), q0 + bq);
                k1 = Math.min(dims.seqKv(), k0 + bkv);
            } else {
                q0 = rnd.nextInt(dims.seqQ());
                q1 = q0 + 1 + rnd.nextInt(dims.seqQ() - q0);
                k0 = rnd.nextInt(dims.seqKv());
                k1 = k0 + 1 + rnd.nextInt(dims.seqKv() - k0);
            }
            int wordsPerRow = (k1 - k0 + 31) / 32 + rnd.nextInt(2);
            int at = rnd.nextInt(5);
            int[] words = new int[at + (q1 - q0) * wordsPerRow + rnd.nextInt(3)];
            bound.attendingBits(v, q0, q1, k0, k1, words, at, wordsPerRow);
            for (int w = 0; w < words.length; w++) {
                int row = (w - at) / wordsPerRow;
                int inRow = (w - at) % wordsPerRow;
                int want = 0;
                if (w >= at && row < q1 - q0) {
                    for (int c = 0; c < 32; c++) {
                        int j = k0 + 32 * inRow + c;
                        want |= j < k1 && dense[q0 + row][j] ? 1 << c : 0;
                    }
                }
                assertEquals(want, words[w], "word " + w + " of rectangle [" + q0 + ", " + q1 + ") x [" + k0 + ", " + k1
                        + ") at " + at + ", " + wordsPerRow + " a row, of " + mask);
            }
        }
    }

    @Test
    void aRectangleThatDoesNotFitTheWordsIsRefused() {
        BoundMask causal = BoundMask.bind(new Mask.Causal(0), new Dims(100, 100, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> causal.attendingBits(0, 0, 10, 0, 40, new int[20], 0, 1));
        assertThrows(IllegalArgumentException.class, () -> causal.attendingBits(0, 0, 10, 0, 32, new int[9], 0, 1));
        assertThrows(IllegalArgumentException.class, () -> causal.attendingBits(0, 5, 5, 0, 32, new int[9], 0, 1));
    }
}
