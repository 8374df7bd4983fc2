package saw.engine.attention;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import saw.engine.mask.BoundMask;
import saw.engine.mask.BruteForce;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.RandomMasks;
import saw.engine.mask.TileLayout;

class RowSpansTest {
    private static final int[][] BLOCKS = {{128, 128}, {128, 64}, {64, 64}, {64, 128}, {32, 32}, {128, 32}};

    private static TileLists lists(BoundMask bound, int bq, int bkv) {
        Dims d = bound.dims();
        return TileLists.of(new AttentionProblem(d.batch(), d.heads(), d.heads(), d.seqQ(), d.seqKv(), 64, DType.BF16, 0.125,
                0), bound.compile(bq, bkv));
    }

    private static TileLists lists(Mask mask, int sq, int skv, int bq, int bkv) {
        return lists(BoundMask.bind(mask, new Dims(sq, skv, 1, 2)), bq, bkv);
    }

    /**
     * Every row of every PARTIAL tile the lists name, against the mask evaluated pair by pair: with spans, the row's
     * keys are exactly its span; without, some row of some listed tile is not one run of keys. Returns whether it had
     * spans.
     */
    private static boolean checkAgainstBruteForce(BoundMask bound, int bq, int bkv) {
        TileLists t = lists(bound, bq, bkv);
        Dims d = bound.dims();
        int[] spans = t.hasRowSpans() ? t.rowSpans() : null;
        int[] variantOf = t.variantOf();
        int[] rowPtr = t.rowPtr();
        int[] rowPartial = t.rowPartial();
        int[] rowKv = t.rowKv();
        int[] rowMask = t.rowMask();
        int nq = t.numQBlocks();
        boolean someRowNotARun = false;
        for (int b = 0; b < d.batch(); b++) {
            for (int h = 0; h < d.heads(); h++) {
                boolean[][] dense = BruteForce.dense(bound.mask(), d, b, h);
                for (int qb = 0; qb < nq; qb++) {
                    int row = variantOf[b * d.heads() + h] * nq + qb;
                    for (int e = rowPtr[row]; e < rowPtr[row] + rowPartial[row]; e++) {
                        for (int r = 0; r < bq; r++) {
                            int q = qb * bq + r;
                            int first = -1;
                            int keys = 0;
                            boolean run = true;
                            for (int j = 0; j < bkv; j++) {
                                int k = rowKv[e] * bkv + j;
                                boolean attends = q < d.seqQ() && k < d.seqKv() && dense[q][k];
                                if (attends && first < 0) {
                                    first = j;
                                }
                                if (attends) {
                                    run &= first + keys == j;
                                    keys++;
                                }
                            }
                            someRowNotARun |= !run;
                            if (spans != null) {
                                int word = spans[rowMask[e] * bq / 2 + (r / 16) * 8 + r % 8];
                                int half = (r % 16 < 8 ? word : word >>> 16) & 0xffff;
                                String where = "q " + q + ", kv-block " + rowKv[e] + ", head " + h + ", batch " + b;
                                assertEquals(keys, half >>> 8, "keys of the span at " + where);
                                if (keys > 0) {
                                    assertEquals(first, half & 0xff, "first key of the span at " + where);
                                } else {
                                    assertEquals(0, half, "an empty row's span at " + where);
                                }
                            }
                        }
                    }
                }
            }
        }
        assertEquals(!someRowNotARun || bkv > RowSpans.MAX_BLOCK_KV, spans != null,
                "spans exactly when every listed row is one run of keys");
        return spans != null;
    }

    @Test
    void randomMasksHaveSpansExactlyWhenEveryPartialRowIsOneRunAndTheyMatchTheMask() {
        int[] withSpans = {0};
        int checked = RandomMasks.countPassing(0x5ba25L, 300, seed -> {
            SplittableRandom rnd = new SplittableRandom(seed);
            BoundMask bound = RandomMasks.randomBound(rnd, 700, 2);
            if (bound == null) {
                return false;
            }
            int[] block = BLOCKS[rnd.nextInt(BLOCKS.length)];
            withSpans[0] += checkAgainstBruteForce(bound, block[0], block[1]) ? 1 : 0;
            return true;
        });
        assertTrue(checked > 200, "most draws are valid masks: " + checked);
        assertTrue(withSpans[0] > 20 && withSpans[0] < checked, "both kinds drawn: " + withSpans[0] + " of " + checked);
    }

    @Test
    void thePresetShapesHaveSpansAndSinksBesideAWindowOrDilationHaveNone() {
        Mask causal = new Mask.Causal(0);
        List<Mask> spans = List.of(causal, new Mask.SlidingWindow(300, 0), new Mask.ChunkedCausal(200),
                new Mask.PrefixLm(333), Mask.And.of(causal, Mask.Documents.ofLengths(100, 37, 500, 200, 187)),
                Mask.And.of(causal, new Mask.SlidingWindow(150, 0), Mask.Documents.ofLengths(600, 424)));
        for (Mask m : spans) {
            for (int[] block : BLOCKS) {
                assertTrue(checkAgainstBruteForce(BoundMask.bind(m, new Dims(1024, 1024, 2, 2)), block[0], block[1]),
                        m + " at " + block[0] + "x" + block[1]);
            }
            assertTrue(checkAgainstBruteForce(BoundMask.bind(m, new Dims(1100, 1100, 1, 1)), 128, 128), m + " ragged");
        }
        Mask sinksAndWindow = Mask.And.of(causal, Mask.Or.of(new Mask.SlidingWindow(256, 0), new Mask.Sinks(4)));
        assertFalse(lists(sinksAndWindow, 2048, 2048, 128, 128).hasRowSpans());
        assertFalse(lists(Mask.And.of(causal, new Mask.Dilated(2)), 512, 512, 128, 128).hasRowSpans());
        assertThrows(IllegalStateException.class, () -> lists(new Mask.Dilated(3), 256, 256, 64, 64).rowSpans());
    }

    @Test
    void aFullRowOfTheWidestTileIsOneByteOfKeys() {
        // a ragged last q-block (rows 128..199): its rows past the sequence attend nothing, the others all 128 keys of
        // each kv-block (listed PARTIAL because the rows stick out)
        TileLists t = lists(new Mask.Full(), 200, 256, 128, 128);
        assertTrue(t.hasRowSpans());
        int[] spans = t.rowSpans();
        int[] rowMask = t.rowMask();
        int[] rowPtr = t.rowPtr();
        int tile = rowMask[rowPtr[1]];
        assertEquals(128 << 8 | 128 << 24, spans[tile * 64], "rows 128 and 136 of the sequence attend every key");
        assertEquals(128 << 8, spans[tile * 64 + 4 * 8 + 7] & 0xffff, "q 199 (row 71 of the tile) is the last in it");
        assertEquals(0, spans[tile * 64 + 4 * 8 + 7] >>> 16, "q 207 (row 79) is past the sequence");
    }
}
