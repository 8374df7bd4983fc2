package saw.engine.attention;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import saw.engine.mask.BoundMask;
import saw.engine.mask.BruteForce;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.MaskChecks;
import saw.engine.mask.RandomMasks;
import saw.engine.mask.TileClass;
import saw.engine.mask.TileLayout;

class TileListsTest {
    private static final int[] BLOCKS = {32, 64, 128};

    private static TileLists lists(Mask mask, int sq, int skv, int batch, int heads, int kvHeads, int bq, int bkv) {
        Dims dims = new Dims(sq, skv, batch, heads);
        TileLayout layout = BoundMask.bind(mask, dims).compile(bq, bkv);
        return TileLists.of(new AttentionProblem(batch, heads, kvHeads, sq, skv, 64, DType.BF16, 0.125, 0), layout);
    }

    @Test
    void causalDiagonalOfSquareTilesIsOneDistinctTile() {
        TileLists t = lists(new Mask.Causal(0), 1024, 1024, 2, 4, 4, 64, 64);
        assertEquals(1, t.distinctTiles());
        // 16 diagonal tiles per row list, all pointing at tile 0
        int[] rowPartial = t.rowPartial();
        assertEquals(16, rowPartial.length);
        for (int r = 0; r < 16; r++) {
            assertEquals(1, rowPartial[r]);
        }
        assertEquals(64 * 2, t.bits().length);
    }

    @Test
    void causalWithTallTilesHasTwoDistinctTilesAndAlignedWindowHasTwo() {
        assertEquals(2, lists(new Mask.Causal(0), 1024, 1024, 1, 1, 1, 128, 64).distinctTiles());
        assertEquals(2, lists(new Mask.SlidingWindow(256, 0), 2048, 2048, 1, 1, 1, 64, 64).distinctTiles());
    }

    @Test
    void fullTilesReachingPastTheSequenceEndAreListedAsPartial() {
        TileLists t = lists(new Mask.Full(), 100, 100, 1, 1, 1, 64, 64);
        // tile (0,0) is the only one inside both sequences
        assertArrayEquals(new int[] {0, 2, 4}, t.rowPtr());
        assertArrayEquals(new int[] {1, 2}, t.rowPartial());
        assertArrayEquals(new int[] {1, 0, 0, 1}, t.rowKv());
        int[] bits = t.bits();
        int[] mask = t.rowMask();
        // row 0 of the ragged column tile (0,1): kv 64..99, so 36 bits set in the first word and 4 in the second
        int tile = mask[0];
        assertEquals(-1, bits[tile * 128]);
        assertEquals(0xf, bits[tile * 128 + 1]);
    }

    @Test
    void emptyRowsListNothingAndEveryListPointsIntoTheTables() {
        Mask docs = Mask.Documents.ofLengths(100, 200);  // tokens 300..511 are padding
        TileLists t = lists(docs, 512, 512, 1, 2, 1, 64, 32);
        int[] ptr = t.rowPtr();
        for (int r = 5; r < 8; r++) {
            assertEquals(ptr[r], ptr[r + 1], "padding row " + r + " lists no tile");
        }
    }

    @Test
    void ordersPutHeavierRowsFirstAndArePermutations() {
        TileLists t = lists(new Mask.Causal(0), 512, 512, 2, 4, 2, 64, 64);
        int[] order = t.rowOrder();
        int[] sorted = order.clone();
        Arrays.sort(sorted);
        for (int i = 0; i < sorted.length; i++) {
            assertEquals(i, sorted[i]);
        }
        assertEquals(7, order[0] % 8, "the last q-block of a causal mask has the most tiles");
        int[] cols = t.colOrder();
        assertEquals(2 * 2 * 8, cols.length);
        assertEquals(0, cols[0] % 8, "the first kv-block of a causal mask is attended by every q-block");
    }

    @Test
    void ordersFinishOneSectionOfHeadsBeforeTheNextWhenTheirOperandsWouldNotShareL2() {
        int s = 65536;  // K and V (or Q and dO) of one head at D = 64: 16 MiB, so every head is its own section
        TileLists t = lists(new Mask.Causal(0), s, s, 1, 3, 3, 128, 128);
        int nq = s / 128;
        int[] order = t.rowOrder();
        for (int i = 0; i < order.length; i++) {
            assertEquals(i / nq, order[i] / nq, "item " + i + " of the forward order belongs to head " + i / nq);
        }
        for (int head = 0; head < 3; head++) {
            assertEquals(nq - 1, order[head * nq] % nq, "each section starts with its heaviest row");
            assertEquals(0, order[head * nq + nq - 1] % nq, "and ends with its lightest");
        }
        int[] cols = t.colOrder();
        for (int i = 0; i < cols.length; i++) {
            assertEquals(i / nq, cols[i] / nq, "item " + i + " of the backward order belongs to kv head " + i / nq);
        }
    }

    @Test
    void backwardSplitsColumnsFarLongerThanTheMedianIntoPartsThatCoverTheirListsOnce() {
        // window 256 + 4 sinks over 8192 tokens, blocks of 64, 2 q-heads per kv-head: kv-block 0 is listed by all 128
        // q-blocks of both heads (256 entries); the other columns by 5-6 q-blocks per head
        Mask mask = new Mask.Or(List.of(new Mask.SlidingWindow(256, 0), new Mask.Sinks(4)));
        TileLists t = lists(new Mask.And(List.of(mask, new Mask.Causal(0))), 8192, 8192, 2, 4, 2, 64, 64);
        int nkv = 128;
        int[] launch = t.colLaunch();
        int[] parts = t.colParts();
        int[] starts = t.colPartStarts();
        assertEquals(2 * 2 + 1, starts.length, "column 0 of each (batch, kv head) is split");
        int[] seen = new int[2 * 2 * nkv];
        int partsSeen = 0;
        for (int i = 0; i < launch.length; i++) {
            if (launch[i] < 0) {
                assertEquals(i, ~launch[i], "the parts come first, in order");
                partsSeen++;
            } else {
                seen[launch[i]]++;
            }
        }
        assertEquals(t.colPartCount(), partsSeen);
        for (int i = 0; i + 1 < starts.length; i++) {
            int item = parts[3 * starts[i]];
            assertEquals(0, item % nkv);
            assertEquals(0, seen[item], "a split item is launched only as its parts");
            seen[item] = 1;
            int next = 0;
            for (int p = starts[i]; p < starts[i + 1]; p++) {
                assertEquals(item, parts[3 * p]);
                assertEquals(next, parts[3 * p + 1], "part " + p + " starts where the one before ended");
                assertTrue(parts[3 * p + 2] > parts[3 * p + 1]);
                next = parts[3 * p + 2];
            }
            assertEquals(2 * 128, next, "the parts end at the end of both heads' lists");
            assertTrue(starts[i + 1] - starts[i] >= 8, "parts of about twice the median column (12 entries)");
        }
        for (int item = 0; item < seen.length; item++) {
            assertEquals(1, seen[item], "item " + item + " is launched once");
        }
    }

    @Test
    void causalAndWindowColumnsAreNotSplit() {
        for (Mask mask : List.<Mask>of(new Mask.Causal(0), new Mask.SlidingWindow(512, 0), Mask.Documents.ofLengths(3000, 5192))) {
            TileLists t = lists(mask, 8192, 8192, 1, 4, 2, 64, 64);
            assertEquals(0, t.colPartCount(), mask.toString());
            assertArrayEquals(t.colOrder(), t.colLaunch(), mask.toString());
        }
    }

    @Test
    void refusesLayoutsOfOtherSizesAndBlocksThatAreNotMultiplesOf32() {
        Dims dims = new Dims(256, 256, 1, 2);
        TileLayout layout = BoundMask.bind(new Mask.Causal(0), dims).compile(64, 64);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TileLists.of(AttentionProblem.of(1, 4, 4, 256, 256, 64, DType.BF16), layout));
        assertTrue(e.getMessage().contains("heads=2"), e.getMessage());
        TileLayout small = BoundMask.bind(new Mask.Causal(0), dims).compile(16, 64);
        e = assertThrows(IllegalArgumentException.class, () -> TileLists.of(AttentionProblem.of(1, 2, 2, 256, 256, 64, DType.BF16), small));
        assertTrue(e.getMessage().contains("multiples of 32"), e.getMessage());
    }

    @Test
    void listsAndBitTilesOfRandomMasksMatchBruteForce() {
        RandomMasks.forEachSeed(0x71E5L, 300, TileListsTest::checkOne);
    }

    private static void checkOne(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        Dims dims = RandomMasks.randomDims(rnd, 260);
        Mask mask = new RandomMasks(rnd, dims).mask(2);
        if (!MaskChecks.check(mask, dims).isEmpty()) {
            return;
        }
        int bq = BLOCKS[rnd.nextInt(3)];
        int bkv = BLOCKS[rnd.nextInt(3)];
        BoundMask bound = BoundMask.bind(mask, dims);
        TileLayout layout = bound.compile(bq, bkv);
        int kvHeads = dims.heads() % 2 == 0 && rnd.nextBoolean() ? dims.heads() / 2 : dims.heads();
        AttentionProblem p = new AttentionProblem(dims.batch(), dims.heads(), kvHeads, dims.seqQ(), dims.seqKv(), 64,
                DType.FP16, 0.1, 0);
        TileLists t = TileLists.of(p, layout);
        int nq = t.numQBlocks();
        int nkv = t.numKvBlocks();
        int[] rowPtr = t.rowPtr();
        int[] rowPartial = t.rowPartial();
        int[] rowKv = t.rowKv();
        int[] rowMask = t.rowMask();
        int[] colPtr = t.colPtr();
        int[] colPartial = t.colPartial();
        int[] colQ = t.colQ();
        int[] colMask = t.colMask();
        int[] bits = t.bits();
        int[] bitsT = t.bitsT();
        int words = bkv / 32;
        int wordsT = bq / 32;
        for (int b = 0; b < dims.batch(); b++) {
            for (int h = 0; h < dims.heads(); h++) {
                boolean[][] dense = BruteForce.dense(mask, dims, b, h);
                int v = t.variantOf()[b * dims.heads() + h];
                int[] listed = new int[nq * nkv];  // 0 not listed, 1 partial, 2 full
                for (int r = 0; r < nq; r++) {
                    int row = v * nq + r;
                    int last = -1;
                    for (int e = rowPtr[row]; e < rowPtr[row + 1]; e++) {
                        boolean partial = e - rowPtr[row] < rowPartial[row];
                        int kb = rowKv[e];
                        if (e == rowPtr[row] + rowPartial[row]) {
                            last = -1;
                        }
                        assertTrue(kb > last, "kv-blocks ascend within each class");
                        last = kb;
                        listed[r * nkv + kb] = partial ? 1 : 2;
                        for (int i = r * bq; i < (r + 1) * bq; i++) {
                            for (int j = kb * bkv; j < (kb + 1) * bkv; j++) {
                                boolean real = i < dims.seqQ() && j < dims.seqKv();
                                boolean expected = real && dense[i][j];
                                if (partial) {
                                    int il = i - r * bq;
                                    int jl = j - kb * bkv;
                                    int m = rowMask[e];
                                    boolean bit = (bits[m * bq * words + il * words + (jl >>> 5)] >>> (jl & 31) & 1) != 0;
                                    boolean bitT = (bitsT[m * bq * words + jl * wordsT + (il >>> 5)] >>> (il & 31) & 1) != 0;
                                    assertEquals(expected, bit, "bit (" + i + ", " + j + ")");
                                    assertEquals(expected, bitT, "transposed bit (" + i + ", " + j + ")");
                                } else {
                                    assertTrue(real && dense[i][j], "FULL tile (" + r + ", " + kb + ") holds pair (" + i + ", " + j + ")");
                                }
                            }
                        }
                    }
                }
                for (int r = 0; r < nq; r++) {
                    for (int kb = 0; kb < nkv; kb++) {
                        TileClass c = layout.grid(v).classAt(r, kb);
                        assertEquals(c != TileClass.EMPTY, listed[r * nkv + kb] != 0, "tile (" + r + ", " + kb + ") " + c);
                    }
                }
                for (int kb = 0; kb < nkv; kb++) {
                    int col = v * nkv + kb;
                    for (int e = colPtr[col]; e < colPtr[col + 1]; e++) {
                        int r = colQ[e];
                        boolean partial = e - colPtr[col] < colPartial[col];
                        assertEquals(listed[r * nkv + kb], partial ? 1 : 2, "column " + kb + " lists tile (" + r + ", " + kb + ")");
                        listed[r * nkv + kb] = 0;
                        if (partial) {
                            int rowEntry = find(rowKv, rowPtr[v * nq + r], rowPtr[v * nq + r + 1], kb);
                            assertEquals(rowMask[rowEntry], colMask[e], "row and column share the bit tile");
                        }
                    }
                }
                assertTrue(Arrays.stream(listed).allMatch(x -> x == 0), "every listed tile is in its column");
            }
        }
    }

    private static int find(int[] a, int from, int to, int value) {
        for (int i = from; i < to; i++) {
            if (a[i] == value) {
                return i;
            }
        }
        throw new AssertionError(value + " not listed");
    }

    // ---- work orders at long context (docs/kernel-notes.md, "work order at long context")

    private static final int SMS = 132;

    private static TileLists listsD(Mask mask, int s, int batch, int heads, int kvHeads, int headDim, int block) {
        Dims dims = new Dims(s, s, batch, heads);
        TileLayout layout = BoundMask.bind(mask, dims).compile(block, block);
        return TileLists.of(new AttentionProblem(batch, heads, kvHeads, s, s, headDim, DType.BF16, 0.125, 0), layout);
    }

    /** Tiles of forward item {@code item} (rows) or backward item (columns, summed over its group of q-heads). */
    private static int[] weights(TileLists t, boolean rows, int heads, int kvHeads) {
        int[] ptr = rows ? t.rowPtr() : t.colPtr();
        int[] variantOf = t.variantOf();
        int lines = rows ? t.numQBlocks() : t.numKvBlocks();
        int group = rows ? 1 : heads / kvHeads;
        int[] w = new int[variantOf.length / group * lines];
        for (int item = 0; item < w.length; item++) {
            for (int g = 0; g < group; g++) {
                int line = variantOf[item / lines * group + g] * lines + item % lines;
                w[item] += ptr[line + 1] - ptr[line];
            }
        }
        return w;
    }

    /** [first, last] listed block of the other side over the item's lines, {-1, -1} when it lists none. */
    private static int[] reach(int[] ptr, int[] idx, int[] variantOf, int lines, int group, int item) {
        int lo = Integer.MAX_VALUE;
        int hi = -1;
        for (int g = 0; g < group; g++) {
            int line = variantOf[item / lines * group + g] * lines + item % lines;
            for (int e = ptr[line]; e < ptr[line + 1]; e++) {
                lo = Math.min(lo, idx[e]);
                hi = Math.max(hi, idx[e]);
            }
        }
        return hi < 0 ? new int[] {-1, -1} : new int[] {lo, hi};
    }

    /** The order before long-context runs: sections of whole heads, each sorted heaviest first. */
    private static int[] wholeHeadOrder(int[] weight, int lines, int headsPerSection) {
        Integer[] items = new Integer[weight.length];
        for (int i = 0; i < items.length; i++) {
            items[i] = i;
        }
        int section = lines * headsPerSection;
        Arrays.sort(items, (a, b) -> a / section != b / section ? Integer.compare(a / section, b / section)
                : weight[a] != weight[b] ? Integer.compare(weight[b], weight[a]) : Integer.compare(a, b));
        return Arrays.stream(items).mapToInt(Integer::intValue).toArray();
    }

    /**
     * Checks one order: a permutation, cut into sections of consecutive items (whole heads, or runs inside one head),
     * each heaviest first, and each run's touched blocks spanning at most the budget or its widest item's own span.
     */
    private static int checkOrder(String what, TileLists t, boolean rows, int heads, int kvHeads, int headDim, int block) {
        int[] order = rows ? t.rowOrder() : t.colOrder();
        int[] starts = rows ? t.rowSections() : t.colSections();
        int[] weight = weights(t, rows, heads, kvHeads);
        int lines = rows ? t.numQBlocks() : t.numKvBlocks();
        int group = rows ? 1 : heads / kvHeads;
        long headBytes = 4L * headDim * group;
        long budget = TileLists.L2_SECTION_BYTES / (headBytes * block);
        int[] ptr = rows ? t.rowPtr() : t.colPtr();
        int[] idx = rows ? t.rowKv() : t.colQ();
        int[] variantOf = t.variantOf();
        boolean[] seen = new boolean[order.length];
        assertEquals(0, starts[0], what);
        assertEquals(order.length, starts[starts.length - 1], what);
        for (int s = 0; s + 1 < starts.length; s++) {
            int from = starts[s];
            int to = starts[s + 1];
            assertTrue(from < to, what + ": section " + s + " is empty");
            int lo = Integer.MAX_VALUE;
            int hi = -1;
            int widest = 0;
            for (int x = from; x < to; x++) {
                int item = order[x];
                assertTrue(item >= from && item < to && !seen[item], what + ": item " + item + " at " + x
                        + " is not one of section " + s + "'s consecutive items [" + from + ", " + to + ")");
                seen[item] = true;
                if (x > from) {
                    int prev = order[x - 1];
                    assertTrue(weight[prev] > weight[item] || weight[prev] == weight[item] && prev < item,
                            what + ": section " + s + " is not heaviest first at " + x);
                }
                int[] r = reach(ptr, idx, variantOf, lines, group, item);
                if (r[0] >= 0) {
                    lo = Math.min(lo, r[0]);
                    hi = Math.max(hi, r[1]);
                    widest = Math.max(widest, r[1] - r[0] + 1);
                }
            }
            boolean oneHead = from / lines == (to - 1) / lines;
            if (oneHead && (long) lines * headBytes * block > TileLists.L2_SECTION_BYTES) {
                assertTrue(hi < 0 || hi - lo + 1 <= Math.max(budget, widest), what + ": run " + s + " touches blocks "
                        + lo + ".." + hi + ", past the budget of " + budget + " and its widest item's " + widest);
            }
        }
        return starts.length - 1 - order.length / lines;  // runs past one per head
    }

    @Test
    void workOrdersArePermutationsSortedHeaviestFirstInRunsThatFitTheBudget() {
        long seed = 18;
        SplittableRandom rnd = new SplittableRandom(seed);
        int cuts = 0;
        for (int trial = 0; trial < 12; trial++) {
            int s = 1 << (12 + rnd.nextInt(7));          // 4K .. 256K tokens
            int headDim = rnd.nextBoolean() ? 64 : 128;
            int block = rnd.nextBoolean() ? 64 : 128;
            int kvHeads = 1 + rnd.nextInt(2);
            int heads = kvHeads * (1 + rnd.nextInt(3));
            int unit = Math.max(block, s >> (2 + rnd.nextInt(5)));
            Mask mask = switch (rnd.nextInt(5)) {
                case 0 -> new Mask.Causal(0);
                case 1 -> new Mask.ChunkedCausal(unit);
                case 2 -> new Mask.SlidingWindow(unit, 0);
                case 3 -> new Mask.And(List.of(new Mask.Causal(0), Mask.Documents.ofLengths(docLengths(rnd, s))));
                default -> new Mask.Or(List.of(new Mask.Sinks(4), new Mask.SlidingWindow(unit, 0)));
            };
            String what = "seed " + seed + " trial " + trial + " " + mask + " S=" + s + " D=" + headDim + " block " + block
                    + " H=" + heads + " Hkv=" + kvHeads;
            TileLists t = listsD(mask, s, 1, heads, kvHeads, headDim, block);
            cuts += Math.max(0, checkOrder(what + " forward", t, true, heads, kvHeads, headDim, block));
            cuts += Math.max(0, checkOrder(what + " backward", t, false, heads, kvHeads, headDim, block));
        }
        assertTrue(cuts > 0, "seed " + seed + ": no trial cut a head into runs");
    }

    private static int[] docLengths(SplittableRandom rnd, int s) {
        int[] lengths = new int[1 + rnd.nextInt(12)];
        int left = s;
        for (int i = 0; i < lengths.length - 1; i++) {
            lengths[i] = 1 + rnd.nextInt(Math.max(1, left / 2));
            left -= lengths[i];
        }
        lengths[lengths.length - 1] = left;
        return lengths;
    }

    @Test
    void ordersOfHeadsThatFitTheBudgetAndOfCausalHeadsAreTheWholeHeadSectionsAsBefore() {
        // causal 8K, B=4 H=16, D=128: a head's K and V take 4 MiB, four heads a section
        TileLists t = listsD(new Mask.Causal(0), 8192, 4, 16, 16, 128, 128);
        assertArrayEquals(wholeHeadOrder(weights(t, true, 16, 16), 64, 4), t.rowOrder());
        assertArrayEquals(wholeHeadOrder(weights(t, false, 16, 16), 64, 4), t.colOrder());
        // 32K GQA 32:8 with 8 documents: one head (16 MiB forward) or one kv-head (64 MiB backward, so cut) a section
        Mask docs = new Mask.And(List.of(new Mask.Causal(0), Mask.Documents.ofLengths(4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096)));
        TileLists g = listsD(docs, 32768, 1, 32, 8, 128, 128);
        assertArrayEquals(wholeHeadOrder(weights(g, true, 32, 8), 256, 1), g.rowOrder());
        assertEquals(32, g.rowSections().length - 1, "one section per head");
        // causal 128K: a head is past the budget, but every run of it lies inside its last row's (column 0's) span
        TileLists c = listsD(new Mask.Causal(0), 131072, 1, 2, 1, 128, 128);
        assertArrayEquals(wholeHeadOrder(weights(c, true, 2, 1), 1024, 1), c.rowOrder());
        assertArrayEquals(wholeHeadOrder(weights(c, false, 2, 1), 1024, 1), c.colOrder());
    }

    @Test
    void chunkedAndDocumentMasksAtOneMillionTokensKeepTheCtasInFlightOnFewChunks() {
        int s = 1 << 20;
        int[] docs = new int[16];
        Arrays.fill(docs, 65536);
        record Case(String name, Mask mask, int unit, int fwdMost, int bwdMost) {}
        for (Case c : List.of(
                new Case("chunked 8192", new Mask.ChunkedCausal(8192), 8192, 4, 1),
                new Case("16 documents", new Mask.And(List.of(new Mask.Causal(0), Mask.Documents.ofLengths(docs))), 65536, 1, 1))) {
            TileLists t = listsD(c.mask(), s, 1, 32, 8, 128, 128);
            for (boolean rows : new boolean[] {true, false}) {
                int[] order = rows ? t.rowOrder() : t.colOrder();
                int[] starts = rows ? t.rowSections() : t.colSections();
                int most = rows ? c.fwdMost() : c.bwdMost();
                int lines = s / 128;
                for (int x = 0; x + 1 < starts.length; x++) {
                    int n = unitsTouched(order, starts[x], Math.min(starts[x + 1], starts[x] + SMS), lines, c.unit() / 128);
                    assertTrue(n <= most, c.name() + (rows ? " forward" : " backward") + ": the first " + SMS
                            + " items of section " + x + " touch " + n + " chunks, more than " + most);
                }
                int before = unitsTouched(wholeHeadOrder(weights(t, rows, 32, 8), lines, 1), 0, SMS, lines, c.unit() / 128);
                assertTrue(before > 8, c.name() + ": sorting whole heads had the first CTAs on " + before + " chunks");
            }
        }
    }

    /** Distinct (head, unit) pairs the items at order[from, to) belong to; a unit is {@code blocksPerUnit} blocks. */
    private static int unitsTouched(int[] order, int from, int to, int lines, int blocksPerUnit) {
        return (int) Arrays.stream(order, from, to).map(item -> item / lines * lines + item % lines / blocksPerUnit).distinct().count();
    }
}
