package saw.engine.attention;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.function.IntUnaryOperator;
import java.util.stream.IntStream;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.TileClass;
import saw.engine.mask.TileGrid;
import saw.engine.mask.TileLayout;

/**
 * A tile layout flattened into the int tables block-sparse kernels walk (the GPU kernels read exactly these
 * arrays; the CPU kernel walks them too).
 *
 * <p>Rows (forward): for mask variant {@code v} and q-block {@code r}, entries {@code [rowPtr[v*nq+r],
 * rowPtr[v*nq+r+1])} of {@code rowKv} / {@code rowMask} list the row's PARTIAL kv-blocks (ascending, the first
 * {@code rowPartial[v*nq+r]} entries, each with the index of its bit tile in {@code rowMask}) and then its FULL
 * kv-blocks (ascending). Columns (backward) are the same for the transposed layout: per (variant, kv-block) the
 * PARTIAL then FULL q-blocks. A tile that sticks out past the sequence end (the last row or column when a length is
 * not a multiple of the block) is listed as PARTIAL even when every real pair attends, so that FULL tiles never
 * need bounds checks.
 *
 * <p>Bit tiles are deduplicated: a causal diagonal has one distinct tile. {@code bits} holds each distinct tile as
 * blockQ rows of blockKv/32 words (bit j%32 of word j/32 of row i: pair (i, j) of the tile attends);
 * {@code bitsT} holds the same tiles transposed, blockKv rows of blockQ/32 words.
 *
 * <p>Work orders: forward items are {@code (b*heads + h)*nq + qBlock}, backward items
 * {@code (b*kvHeads + hkv)*nkv + kvBlock}. Items are taken in sections of consecutive heads whose shared operand (K
 * and V of the forward, Q and dO of the backward) fits in {@link #L2_SECTION_BYTES}, sections in head order, and
 * inside a section heaviest first (most tiles, then lowest index), so that a long row does not start last. Sorting
 * every head's rows together instead had 100+ heads in flight at once on an H200, whose K and V then no longer fit
 * in L2: the forward read 16x its inputs from DRAM (docs/kernel-notes.md). When one head's operand alone is larger
 * than that, the head is cut into runs of consecutive blocks whose touched blocks of the other side (from each
 * line's first to its last listed one) span at most that many bytes, or no more than the run's widest line spans on
 * its own, and only each run is sorted: sorting a whole 1M-token head of chunked or document masks had the CTAs in
 * flight read 100+ different chunks (docs/kernel-notes.md, "work order at long context").
 */
public final class TileLists {
    private final int blockQ;
    private final int blockKv;
    private final int numQBlocks;
    private final int numKvBlocks;
    private final int[] variantOf;
    private final int[] rowPtr;
    private final int[] rowPartial;
    private final int[] rowKv;
    private final int[] rowMask;
    private final int[] colPtr;
    private final int[] colPartial;
    private final int[] colQ;
    private final int[] colMask;
    private final int[] bits;
    private final int[] bitsT;
    private final int[] rowSpans;
    private final int distinctTiles;
    private final int[] rowOrder;
    private final int[] colOrder;
    private final int[] rowSections;
    private final int[] colSections;
    private final ColumnParts colParts;

    /** Bytes of shared operand per section of the work orders: a third of a Hopper L2 (50 MB), the rest streams. */
    static final long L2_SECTION_BYTES = 16L << 20;

    /** A backward item listing more than this many times the median item's q-tiles is split (see {@link #colLaunch}). */
    static final int SPLIT_RATIO = 4;

    /** At most this many parts over all split items: their fp32 dK/dV slots take 8 x blockKv x D bytes each. */
    public static final int MAX_COLUMN_PARTS = 512;

    private TileLists(Builder b) {
        this.blockQ = b.bq;
        this.blockKv = b.bkv;
        this.numQBlocks = b.nq;
        this.numKvBlocks = b.nkv;
        this.variantOf = b.variantOf;
        this.rowPtr = b.rowPtr;
        this.rowPartial = b.rowPartial;
        this.rowKv = b.rowKv;
        this.rowMask = b.rowMask;
        this.colPtr = b.colPtr;
        this.colPartial = b.colPartial;
        this.colQ = b.colQ;
        this.colMask = b.colMask;
        this.bits = b.bits;
        this.bitsT = b.bitsT;
        this.rowSpans = RowSpans.of(b.bits, b.distinct, b.bq, b.bkv);
        this.distinctTiles = b.distinct;
        this.rowOrder = b.rowOrder.items();
        this.colOrder = b.colOrder.items();
        this.rowSections = b.rowOrder.starts();
        this.colSections = b.colOrder.starts();
        this.colParts = b.colParts;
    }

    /**
     * Flattens {@code layout} for {@code problem}.
     *
     * @throws IllegalArgumentException when the layout's sizes differ from the problem's, or its blocks are not
     *     multiples of 32 (the bit tables pack 32 pairs to a word)
     */
    public static TileLists of(AttentionProblem problem, TileLayout layout) {
        requireMatching(problem, layout);
        return new Builder(problem, layout, null, null).build();
    }

    /**
     * The tables of a gathered part of {@code layout}: local q-block r is the layout's q-block {@code qBlocks[r]} and
     * local kv-block c its kv-block {@code kvBlocks[c]} (both ascending), with the tokens of those blocks laid end to
     * end. Bit tiles come from the mask at the original positions. Ring attention uses this: a device holds some
     * chunks of the sequence in one contiguous tensor. {@code local}'s lengths are the gathered token counts.
     *
     * @throws IllegalArgumentException when the blocks are not ascending and in range (so that the layout's ragged
     *     last block, if taken, comes last), or the lengths or shapes do not match
     */
    public static TileLists gathered(AttentionProblem local, TileLayout layout, int[] qBlocks, int[] kvBlocks) {
        Dims d = layout.dims();
        if (local.batch() != d.batch() || local.heads() != d.heads()) {
            throw new IllegalArgumentException("the layout has batch " + d.batch() + ", heads " + d.heads()
                    + " but the problem has batch " + local.batch() + ", heads " + local.heads());
        }
        checkGathered("q", qBlocks, layout.numQBlocks(), layout.blockQ(), d.seqQ(), local.seqQ());
        checkGathered("kv", kvBlocks, layout.numKvBlocks(), layout.blockKv(), d.seqKv(), local.seqKv());
        if (layout.blockQ() % 32 != 0 || layout.blockKv() % 32 != 0) {
            throw new IllegalArgumentException("block " + layout.blockQ() + "x" + layout.blockKv()
                    + " is not supported by the block-sparse kernels: both sides must be multiples of 32");
        }
        return new Builder(local, layout, qBlocks.clone(), kvBlocks.clone()).build();
    }

    private static void checkGathered(String side, int[] blocks, int count, int block, int seq, int localSeq) {
        long tokens = 0;
        for (int i = 0; i < blocks.length; i++) {
            if (blocks[i] < 0 || blocks[i] >= count || (i > 0 && blocks[i] <= blocks[i - 1])) {
                throw new IllegalArgumentException(side + "-blocks must be ascending in 0.." + (count - 1) + "; got "
                        + Arrays.toString(blocks));
            }
            tokens += Math.min(seq, (long) (blocks[i] + 1) * block) - (long) blocks[i] * block;
        }
        if (blocks.length == 0 || tokens != localSeq) {
            throw new IllegalArgumentException("the gathered " + side + "-blocks hold " + tokens + " tokens, the problem has "
                    + localSeq);
        }
    }

    /** Throws when the layout was not compiled for the problem's sizes. */
    public static void requireMatching(AttentionProblem p, TileLayout layout) {
        Dims d = layout.dims();
        if (d.seqQ() != p.seqQ() || d.seqKv() != p.seqKv() || d.batch() != p.batch() || d.heads() != p.heads()) {
            throw new IllegalArgumentException("the layout is for Sq=" + d.seqQ() + ", Skv=" + d.seqKv() + ", batch="
                    + d.batch() + ", heads=" + d.heads() + " but the problem has Sq=" + p.seqQ() + ", Skv=" + p.seqKv()
                    + ", batch=" + p.batch() + ", heads=" + p.heads());
        }
        if (layout.blockQ() % 32 != 0 || layout.blockKv() % 32 != 0) {
            throw new IllegalArgumentException("block " + layout.blockQ() + "x" + layout.blockKv()
                    + " is not supported by the block-sparse kernels: both sides must be multiples of 32");
        }
    }

    public int blockQ() {
        return blockQ;
    }

    public int blockKv() {
        return blockKv;
    }

    public int numQBlocks() {
        return numQBlocks;
    }

    public int numKvBlocks() {
        return numKvBlocks;
    }

    /** Mask variant of each (b, h), index b*heads + h. */
    public int[] variantOf() {
        return variantOf.clone();
    }

    public int[] rowPtr() {
        return rowPtr.clone();
    }

    public int[] rowPartial() {
        return rowPartial.clone();
    }

    public int[] rowKv() {
        return rowKv.clone();
    }

    public int[] rowMask() {
        return rowMask.clone();
    }

    public int[] colPtr() {
        return colPtr.clone();
    }

    public int[] colPartial() {
        return colPartial.clone();
    }

    public int[] colQ() {
        return colQ.clone();
    }

    public int[] colMask() {
        return colMask.clone();
    }

    public int[] bits() {
        return bits.clone();
    }

    public int[] bitsT() {
        return bitsT.clone();
    }

    /**
     * Whether every bit tile's rows each attend one run of consecutive keys (causal, windows, documents, chunks,
     * prefixes and their intersections do), so that {@link #rowSpans} describes them.
     */
    public boolean hasRowSpans() {
        return rowSpans != null;
    }

    /**
     * The bit tiles as one (first key, key count) pair of bytes per row, two rows a word: {@code blockQ / 2} words per
     * tile, word {@code 8 (r / 16) + r % 16} holding rows r (low half) and r + 8 (high half) for {@code r % 16 < 8},
     * each half first key | count << 8.
     *
     * @throws IllegalStateException when not {@link #hasRowSpans}
     */
    public int[] rowSpans() {
        if (rowSpans == null) {
            throw new IllegalStateException("a bit tile of this layout has a row that is not one run of keys");
        }
        return rowSpans.clone();
    }

    /** Distinct PARTIAL bit tiles after deduplication. */
    public int distinctTiles() {
        return distinctTiles;
    }

    public int[] rowOrder() {
        return rowOrder.clone();
    }

    public int[] colOrder() {
        return colOrder.clone();
    }

    /**
     * What the backward kernels launch, one entry per CTA (per CTA pair at head dim 256): the items of {@link #colOrder}
     * that are not split, in that order, after the parts of those that are. An entry {@code e >= 0} is a whole item; an
     * entry {@code e < 0} is part {@code ~e} of {@link #colParts}. A column that (nearly) every q-tile lists, such as an
     * attention sink's or a global token's, would otherwise be walked by one CTA for all of them after every other
     * CTA has finished (at 1M tokens with window 4096 + 4 sinks: 8,192 q-tiles x 4 heads, against about 130 for the
     * other columns); its parts run at once, each adds its share of dK and dV into its own fp32 slot, and a small
     * kernel adds the slots (docs/kernel-notes.md, "Long columns in the backward").
     */
    public int[] colLaunch() {
        return colParts.launch().clone();
    }

    /**
     * The parts of split backward items, three ints each: the item, and the first and end entry of its share of the
     * item's q-tile lists taken one after the other over the heads of its GQA group (head 0's column list, then head
     * 1's, ...). The parts of one item are consecutive and cover its lists exactly once, in order.
     */
    public int[] colParts() {
        return colParts.parts().clone();
    }

    /** Where each split item's parts start in {@link #colParts} (in parts), then the part count. */
    public int[] colPartStarts() {
        return colParts.starts().clone();
    }

    /** Backward items that are split into parts (0 when none is). */
    public int colSplitItems() {
        return colParts.starts().length - 1;
    }

    /** Parts of split backward items (0 when no item is split). */
    public int colPartCount() {
        return colParts.parts().length / 3;
    }

    /** Where the forward order's sorted sections start, then its length (for tests). */
    int[] rowSections() {
        return rowSections.clone();
    }

    /** Where the backward order's sorted sections start, then its length (for tests). */
    int[] colSections() {
        return colSections.clone();
    }

    /** Tiles listed (PARTIAL plus FULL) over every (b, h): the tiles a kernel visits. */
    public long visitedTiles() {
        long n = 0;
        for (int bh = 0; bh < variantOf.length; bh++) {
            int row0 = variantOf[bh] * numQBlocks;
            n += rowPtr[row0 + numQBlocks] - rowPtr[row0];
        }
        return n;
    }

    private static final class Builder {
        final int bq;
        final int bkv;
        final int nq;
        final int nkv;
        final int sq;
        final int skv;
        final int variants;
        final int[] variantOf;
        final int[] rowPtr;
        final int[] rowPartial;
        int[] rowKv;
        int[] rowMask;
        final int[] colPtr;
        final int[] colPartial;
        int[] colQ;
        int[] colMask;
        int[] bits;
        int[] bitsT;
        int distinct;
        Order rowOrder;
        Order colOrder;
        ColumnParts colParts;
        private final TileLayout layout;
        private final BoundMask mask;
        private final AttentionProblem problem;
        private final Map<Key, Integer> tiles = new HashMap<>();
        private int[] tileWords = new int[1024];

        /**
         * For gathered tables ({@link #gathered}), local block to the layout's block and the layout's kv-block to
         * local (-1: not held); null for the whole layout.
         */
        private final int[] qMap;
        private final int[] kvMap;
        private final int[] kvLocal;

        Builder(AttentionProblem problem, TileLayout layout, int[] qMap, int[] kvMap) {
            this.problem = problem;
            this.layout = layout;
            this.mask = layout.mask();
            this.bq = layout.blockQ();
            this.bkv = layout.blockKv();
            this.qMap = qMap;
            this.kvMap = kvMap;
            if (kvMap == null) {
                this.kvLocal = null;
            } else {
                this.kvLocal = new int[layout.numKvBlocks()];
                Arrays.fill(kvLocal, -1);
                for (int c = 0; c < kvMap.length; c++) {
                    kvLocal[kvMap[c]] = c;
                }
            }
            this.nq = qMap == null ? layout.numQBlocks() : qMap.length;
            this.nkv = kvMap == null ? layout.numKvBlocks() : kvMap.length;
            this.sq = problem.seqQ();
            this.skv = problem.seqKv();
            this.variants = layout.variantCount();
            this.variantOf = new int[problem.batch() * problem.heads()];
            for (int b = 0; b < problem.batch(); b++) {
                for (int h = 0; h < problem.heads(); h++) {
                    variantOf[b * problem.heads() + h] = mask.variantOf(b, h);
                }
            }
            this.rowPtr = new int[variants * nq + 1];
            this.rowPartial = new int[variants * nq];
            this.colPtr = new int[variants * nkv + 1];
            this.colPartial = new int[variants * nkv];
        }

        TileLists build() {
            checkItemCount();
            // Works from the grids' runs, never from a dense nq x nkv array (at 4M tokens and 128x128 tiles one holds
            // 2^30 tiles), so time and memory follow the listed tiles. Classes: 1 PARTIAL (ragged FULL included), 2 FULL.
            long listed = 0;
            for (int v = 0; v < variants; v++) {
                listed += qMap == null ? layout.grid(v).count(TileClass.PARTIAL) + layout.grid(v).count(TileClass.FULL)
                        : gatheredCount(layout.grid(v));
            }
            if (listed > Integer.MAX_VALUE - 16) {
                throw new IllegalArgumentException("the tile lists of this layout hold " + listed + " tiles, past the "
                        + Integer.MAX_VALUE + " that the kernels' 32-bit tile indices reach; use larger tiles or shorter sequences");
            }
            int total = (int) listed;
            rowKv = new int[total];
            rowMask = new int[total];
            colQ = new int[total];
            colMask = new int[total];
            int[] colFull = new int[variants * nkv];
            int[] fullKv = new int[nkv];
            int pos = 0;
            for (int v = 0; v < variants; v++) {
                TileGrid grid = layout.grid(v);
                for (int r = 0; r < nq; r++) {
                    int row = v * nq + r;
                    rowPtr[row] = pos;
                    int full = 0;
                    int gr = qMap == null ? r : qMap[r];
                    for (int run = 0; run < grid.runCount(gr); run++) {
                        TileClass tc = grid.runClass(gr, run);
                        if (tc == TileClass.EMPTY) {
                            continue;
                        }
                        for (int gkb = grid.runStart(gr, run); gkb < grid.runEnd(gr, run); gkb++) {
                            int kb = kvLocal == null ? gkb : kvLocal[gkb];
                            if (kb < 0) {
                                continue;
                            }
                            if (classOf(tc, r, kb) == 1) {
                                rowKv[pos] = kb;
                                rowMask[pos++] = -1;  // its bit tile's index is filled in below
                                colPartial[v * nkv + kb]++;
                            } else {
                                fullKv[full++] = kb;
                                colFull[v * nkv + kb]++;
                            }
                        }
                    }
                    rowPartial[row] = pos - rowPtr[row];
                    for (int f = 0; f < full; f++) {
                        rowKv[pos] = fullKv[f];
                        rowMask[pos++] = -1;
                    }
                }
            }
            rowPtr[variants * nq] = pos;
            indexBitTiles();
            for (int col = 0; col < variants * nkv; col++) {
                colPtr[col + 1] = colPtr[col] + colPartial[col] + colFull[col];
            }
            int[] partialAt = new int[variants * nkv];
            int[] fullAt = new int[variants * nkv];
            for (int v = 0; v < variants; v++) {
                for (int r = 0; r < nq; r++) {
                    int row = v * nq + r;
                    int partialEnd = rowPtr[row] + rowPartial[row];
                    for (int e = rowPtr[row]; e < rowPtr[row + 1]; e++) {
                        int col = v * nkv + rowKv[e];
                        int at = e < partialEnd ? colPtr[col] + partialAt[col]++ : colPtr[col] + colPartial[col] + fullAt[col]++;
                        colQ[at] = r;
                        colMask[at] = rowMask[e];
                    }
                }
            }
            int wordsPerTile = bq * bkv / 32;
            bits = Arrays.copyOf(tileWords, distinct * wordsPerTile);
            bitsT = transpose(bits, distinct);
            long headBytes = 2L * problem.headDim() * 2;  // K and V (forward) or Q and dO (backward) per token
            rowOrder = order(problem.batch() * problem.heads(), nq, sectionOf(headBytes * skv),
                    runBudget(headBytes * skv, headBytes * bkv), (item) -> {
                        int row = variantOf[item / nq] * nq + item % nq;
                        return rowPtr[row + 1] - rowPtr[row];
                    }, (item, last) -> {
                        int row = variantOf[item / nq] * nq + item % nq;
                        return listedEnd(rowPtr, rowPartial, rowKv, row, last);
                    });
            int group = problem.heads() / problem.kvHeads();
            colOrder = order(problem.batch() * problem.kvHeads(), nkv, sectionOf(headBytes * sq * group),
                    runBudget(headBytes * sq * group, headBytes * group * bq), (item) -> {
                        int n = 0;
                        for (int g = 0; g < group; g++) {
                            int col = columnOf(item, g, group);
                            n += colPtr[col + 1] - colPtr[col];
                        }
                        return n;
                    }, (item, last) -> {
                        int end = -1;
                        for (int g = 0; g < group; g++) {
                            int e = listedEnd(colPtr, colPartial, colQ, columnOf(item, g, group), last);
                            end = e < 0 ? end : end < 0 ? e : last ? Math.max(end, e) : Math.min(end, e);
                        }
                        return end;
                    });
            colParts = qMap == null ? ColumnParts.plan(colOrder.items(), (item) -> {
                int n = 0;
                for (int g = 0; g < group; g++) {
                    int col = columnOf(item, g, group);
                    n += colPtr[col + 1] - colPtr[col];
                }
                return n;
            }) : ColumnParts.none(colOrder.items());
            return new TileLists(this);
        }

        private void checkItemCount() {
            if ((long) problem.batch() * problem.heads() * nq > Integer.MAX_VALUE
                    || (long) problem.batch() * problem.kvHeads() * nkv > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("too many tiles for one launch: batch * heads * blocks exceeds 2^31");
            }
        }

        /** 0 EMPTY, 1 PARTIAL, 2 FULL; a FULL tile that reaches past a sequence end counts as PARTIAL. */
        private int classOf(TileClass c, int r, int kb) {
            if (c == TileClass.EMPTY) {
                return 0;
            }
            if (c == TileClass.PARTIAL) {
                return 1;
            }
            boolean ragged = (r + 1) * bq > sq || (kb + 1) * bkv > skv;
            return ragged ? 1 : 2;
        }

        /**
         * Gives every listed PARTIAL tile its bit tile's index: the tiles' words are computed in parallel
         * ({@link BoundMask#attendingBits}, the costly part), then deduplicated in row-major order, so the indices are
         * the same whatever the thread count.
         */
        private void indexBitTiles() {
            int wordsRow = bkv / 32;
            int per = bq * wordsRow;
            int rows = variants * nq;
            int[] firstPartial = new int[rows + 1];
            for (int row = 0; row < rows; row++) {
                firstPartial[row + 1] = firstPartial[row] + rowPartial[row];
            }
            int chunk = Math.max(1, (1 << 22) / Math.max(1, per));  // tiles per batch: 16 MiB of words
            int[] rowOfTile = new int[firstPartial[rows]];
            for (int row = 0; row < rows; row++) {
                Arrays.fill(rowOfTile, firstPartial[row], firstPartial[row + 1], row);
            }
            for (int from = 0; from < rowOfTile.length; from += chunk) {
                int to = Math.min(rowOfTile.length, from + chunk);
                int[] words = new int[(to - from) * per];
                int base = from;
                IntStream.range(from, to).parallel().forEach(t -> {
                    int row = rowOfTile[t];
                    int e = rowPtr[row] + (t - firstPartial[row]);
                    fillWords(row / nq, row % nq, rowKv[e], words, (t - base) * per);
                });
                for (int t = from; t < to; t++) {
                    int row = rowOfTile[t];
                    rowMask[rowPtr[row] + (t - firstPartial[row])] = tileIndex(Arrays.copyOfRange(words, (t - base) * per, (t - base + 1) * per));
                }
            }
        }

        private void fillWords(int v, int r, int kb, int[] w, int at) {
            // the mask is asked at the layout's positions: a gathered block keeps its original tokens
            int q0 = (qMap == null ? r : qMap[r]) * bq;
            int k0 = (kvMap == null ? kb : kvMap[kb]) * bkv;
            Dims d = layout.dims();
            mask.attendingBits(v, q0, Math.min(d.seqQ(), q0 + bq), k0, Math.min(d.seqKv(), k0 + bkv), w, at, bkv / 32);
        }

        /** Listed (PARTIAL or FULL) tiles of a grid among the gathered rows and columns. */
        private long gatheredCount(TileGrid grid) {
            long n = 0;
            for (int gr : qMap) {
                for (int run = 0; run < grid.runCount(gr); run++) {
                    if (grid.runClass(gr, run) != TileClass.EMPTY) {
                        for (int gkb = grid.runStart(gr, run); gkb < grid.runEnd(gr, run); gkb++) {
                            n += kvLocal[gkb] >= 0 ? 1 : 0;
                        }
                    }
                }
            }
            return n;
        }


        private int tileIndex(int[] w) {
            Key key = new Key(w);
            Integer index = tiles.get(key);
            if (index == null) {
                index = distinct++;
                tiles.put(key, index);
                int need = distinct * w.length;
                if (need > tileWords.length) {
                    tileWords = Arrays.copyOf(tileWords, Math.max(need, tileWords.length * 2));
                }
                System.arraycopy(w, 0, tileWords, index * w.length, w.length);
            }
            return index;
        }

        private int[] transpose(int[] tilesRowMajor, int count) {
            int wordsRow = bkv / 32;
            int wordsCol = bq / 32;
            int per = bq * wordsRow;
            int[] out = new int[count * per];
            for (int m = 0; m < count; m++) {
                int base = m * per;
                for (int i = 0; i < bq; i++) {
                    for (int j = 0; j < bkv; j++) {
                        if ((tilesRowMajor[base + i * wordsRow + (j >>> 5)] >>> (j & 31) & 1) != 0) {
                            out[base + j * wordsCol + (i >>> 5)] |= 1 << (i & 31);
                        }
                    }
                }
            }
            return out;
        }

        /** The column of the q-head {@code g} of its group (of {@code group}) that backward item {@code item} covers. */
        private int columnOf(int item, int g, int group) {
            int bkvh = item / nkv;
            int b = bkvh / problem.kvHeads();
            int hkv = bkvh % problem.kvHeads();
            return variantOf[b * problem.heads() + hkv * group + g] * nkv + item % nkv;
        }

        /**
         * The lowest (or with {@code last} the highest) block a line lists, -1 for an empty line: its PARTIAL and then
         * its FULL blocks are each ascending.
         */
        private static int listedEnd(int[] ptr, int[] partial, int[] idx, int line, boolean last) {
            int begin = ptr[line];
            int split = begin + partial[line];
            int end = ptr[line + 1];
            if (begin == end) {
                return -1;
            }
            if (split == begin || split == end) {
                return last ? idx[end - 1] : idx[begin];
            }
            return last ? Math.max(idx[split - 1], idx[end - 1]) : Math.min(idx[begin], idx[split]);
        }

        /** Heads per section when each head's shared operand takes this many bytes (at least one). */
        private static int sectionOf(long bytesPerHead) {
            return (int) Math.max(1, Math.min(Integer.MAX_VALUE, L2_SECTION_BYTES / Math.max(1, bytesPerHead)));
        }

        /**
         * Blocks of the shared operand a run may span (at least one), or no limit when a whole head's operand fits the
         * budget, so that such heads stay one section exactly as before.
         */
        private static int runBudget(long bytesPerHead, long bytesPerBlock) {
            return bytesPerHead <= L2_SECTION_BYTES ? Integer.MAX_VALUE : sectionOf(bytesPerBlock);
        }

        /** A work item's lowest ({@code last} false) or highest listed block of the other side, -1 when it lists none. */
        @FunctionalInterface
        interface Reach {
            int of(int item, boolean last);
        }

        /**
         * The work order (see the class comment): sections of {@code headsPerSection} heads of {@code blocks} items
         * each; a section of one head is further cut into runs whose touched blocks span at most {@code budget}
         * blocks or no more than their widest item's own span; inside each section or run, heaviest first.
         */
        static Order order(int outer, int blocks, int headsPerSection, int budget, IntUnaryOperator weight, Reach reach) {
            int n = outer * blocks;
            long[] keyed = new long[n];
            int[] out = new int[n];
            int[] starts = new int[n + 1];
            int sections = 0;
            for (int head = 0; head < outer; head += headsPerSection) {
                int end = Math.min(outer, head + headsPerSection) * blocks;
                for (int from = head * blocks; from < end; ) {
                    int to = headsPerSection == 1 ? runEnd(from, end, budget, reach) : end;
                    starts[sections++] = from;
                    for (int item = from; item < to; item++) {
                        // heavier first, then lower index: sort ascending on (-weight, item)
                        keyed[item] = ((long) (Integer.MAX_VALUE - weight.applyAsInt(item)) << 32) | item;
                    }
                    Arrays.sort(keyed, from, to);
                    for (int x = from; x < to; x++) {
                        out[x] = (int) keyed[x];
                    }
                    from = to;
                }
            }
            starts[sections++] = n;
            return new Order(out, Arrays.copyOf(starts, sections));
        }

        /**
         * The end of the run that starts at item {@code from}: items are added while the blocks they touch together
         * span at most {@code budget} blocks, or no more than the widest item alone (whose own reads stream that
         * much anyway, and whose range holds every other item's). Items that list nothing touch nothing.
         */
        private static int runEnd(int from, int end, int budget, Reach reach) {
            int lo = Integer.MAX_VALUE;
            int hi = -1;
            int widest = 0;
            int to = from;
            for (; to < end; to++) {
                int first = reach.of(to, false);
                if (first < 0) {
                    continue;
                }
                int last = reach.of(to, true);
                int newLo = Math.min(lo, first);
                int newHi = Math.max(hi, last);
                int newWidest = Math.max(widest, last - first + 1);
                if (newHi - newLo + 1 > Math.max(budget, newWidest)) {
                    break;
                }
                lo = newLo;
                hi = newHi;
                widest = newWidest;
            }
            return to;
        }
    }

    /** A work order and where its sorted sections (or runs) start: section i is items [starts[i], starts[i+1]). */
    record Order(int[] items, int[] starts) {}

    /** The backward's launch entries and parts (see {@link #colLaunch}, {@link #colParts}, {@link #colPartStarts}). */
    record ColumnParts(int[] launch, int[] parts, int[] starts) {
        static ColumnParts none(int[] order) {
            return new ColumnParts(order, new int[0], new int[] {0});
        }

        /**
         * Splits the items of {@code order} that list more than {@link #SPLIT_RATIO} times the median nonempty item's
         * q-tiles into parts of about twice the median (more when the parts would pass {@link #MAX_COLUMN_PARTS}),
         * heaviest item first. Orders where no item stands out (causal: the longest column is twice the median)
         * are returned as they are.
         */
        static ColumnParts plan(int[] order, IntUnaryOperator weight) {
            int[] w = new int[order.length];
            int nonEmpty = 0;
            for (int x = 0; x < order.length; x++) {
                w[x] = weight.applyAsInt(order[x]);
                nonEmpty += w[x] > 0 ? 1 : 0;
            }
            if (nonEmpty == 0) {
                return none(order);
            }
            int[] sorted = Arrays.stream(w).filter(v -> v > 0).sorted().toArray();
            long median = sorted[sorted.length / 2];
            long threshold = SPLIT_RATIO * median;
            long longWeight = 0;
            int longItems = 0;
            for (int v : w) {
                if (v > threshold) {
                    longWeight += v;
                    longItems++;
                }
            }
            if (longItems == 0) {
                return none(order);
            }
            long partLength = Math.max(2 * median, (longWeight + MAX_COLUMN_PARTS - 1) / MAX_COLUMN_PARTS);
            // order is heaviest first inside each section; the split items go first, heaviest first overall
            Integer[] split = IntStream.range(0, order.length).filter(x -> w[x] > threshold).boxed()
                    .sorted((a, b) -> w[a] != w[b] ? Integer.compare(w[b], w[a]) : Integer.compare(order[a], order[b]))
                    .toArray(Integer[]::new);
            IntStream.Builder parts = IntStream.builder();
            int[] starts = new int[split.length + 1];
            int count = 0;
            for (int i = 0; i < split.length; i++) {
                int x = split[i];
                starts[i] = count;
                int k = (int) Math.min(Math.max(1, MAX_COLUMN_PARTS - count - (split.length - 1 - i)),
                        (w[x] + partLength - 1) / partLength);
                for (int j = 0; j < k; j++) {
                    parts.add(order[x]).add((int) ((long) w[x] * j / k)).add((int) ((long) w[x] * (j + 1) / k));
                }
                count += k;
            }
            starts[split.length] = count;
            int[] launch = new int[order.length - split.length + count];
            int at = 0;
            for (int p = 0; p < count; p++) {
                launch[at++] = ~p;
            }
            for (int x = 0; x < order.length; x++) {
                if (w[x] <= threshold) {
                    launch[at++] = order[x];
                }
            }
            return new ColumnParts(launch, parts.build().toArray(), starts);
        }
    }

    /** Value equality over a bit tile's words, for deduplication. */
    private static final class Key {
        private final int[] words;
        private final int hash;

        Key(int[] words) {
            this.words = words;
            this.hash = Arrays.hashCode(words);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.hash == hash && Arrays.equals(k.words, words);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }
}
