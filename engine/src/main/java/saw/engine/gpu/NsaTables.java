package saw.engine.gpu;

import java.util.Arrays;
import saw.engine.nsa.ChosenBy;
import saw.engine.nsa.NsaSelection;

/**
 * The host-built tables nsa.cu reads (see its header): for the forward, per 64-row tile of each (batch, kv head)
 * plane, the ascending union of the kv-blocks its rows' tokens chose, each with a 64-bit mask of the rows that chose
 * it; for the backward, the reverse index (tokens per kv-block) and the work order, heaviest blocks first; for the
 * per-block forward, the reverse index with each entry's slot in its token's list and the work items (see
 * {@link #blockItems}).
 */
final class NsaTables {
    /** Rows of a forward tile and of a backward step (NSA_ROWS in nsa.cu). */
    static final int ROWS = 64;

    final int tilesPerPlane;
    final int[] tilePtr;
    final int[] tileBlk;
    final int[] tileMask;
    final int[] order;
    final int[] colPtr;
    final int[] colTok;
    /** Per reverse entry, the slot of its block in its token's list: where the per-block forward writes its partial. */
    final int[] colSlot;
    /** Per-block forward work items, three ints each: plane * numKvBlocks + kv-block, then a range of colTok. */
    final int[] items;
    /** The chunked backward's work items, the same form over its own token chunks. */
    final int[] bwdItems;

    private NsaTables(int tilesPerPlane, int[] tilePtr, int[] tileBlk, int[] tileMask, int[] order, int[] colPtr, int[] colTok,
                      int[] colSlot, int[] items, int[] bwdItems) {
        this.tilesPerPlane = tilesPerPlane;
        this.tilePtr = tilePtr;
        this.tileBlk = tileBlk;
        this.tileMask = tileMask;
        this.order = order;
        this.colPtr = colPtr;
        this.colTok = colTok;
        this.colSlot = colSlot;
        this.items = items;
        this.bwdItems = bwdItems;
    }

    static NsaTables of(NsaSelection sel, int group, boolean unions, boolean reverse) {
        return of(sel, group, unions, reverse, 0, 0, 0);
    }

    /**
     * @param unions whether to build the tiles' block unions (the tile-order forward reads them; the warp order reads
     *     the selection itself)
     * @param reverse whether to build the reverse index (the backward reads it)
     * @param chunkTokens when positive, the per-block forward's slots and work items over token chunks of this length
     * @param bwdChunkTokens when positive, the chunked backward's work items over token chunks of this length
     * @param maxTokens the most tokens of one work item (long lists split so no CTA walks far longer than the rest)
     */
    static NsaTables of(NsaSelection sel, int group, boolean unions, boolean reverse, int chunkTokens, int bwdChunkTokens,
                        int maxTokens) {
        long planeRows = (long) sel.seqLen() * group;
        long tiles = (planeRows + ROWS - 1) / ROWS;
        int planes = sel.batch() * sel.kvHeads();
        if (tiles * planes > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException("too many NSA row tiles for one launch: " + tiles * planes);
        }
        Unions u = unions ? unions(sel, group, planeRows, tiles, planes) : new Unions(new int[0], new int[0], new int[0]);
        int[] order = new int[0];
        int[] colPtr = new int[0];
        int[] colTok = new int[0];
        int[] colSlot = new int[0];
        int[] items = new int[0];
        int[] bwdItems = new int[0];
        if (reverse || chunkTokens > 0 || bwdChunkTokens > 0) {
            ChosenBy rev = ChosenBy.of(sel);
            colPtr = rev.ptr();
            colTok = rev.tokens();
            order = reverse ? heaviestFirst(colPtr) : order;
        }
        if (chunkTokens > 0) {
            colSlot = slots(sel, colPtr, colTok.length);
            items = blockItems(sel, colPtr, colTok, chunkTokens, maxTokens);
        }
        if (bwdChunkTokens > 0) {
            bwdItems = blockItems(sel, colPtr, colTok, bwdChunkTokens, maxTokens);
        }
        return new NsaTables((int) tiles, u.ptr(), u.blk(), u.mask(), order, colPtr, colTok, colSlot, items, bwdItems);
    }

    /**
     * The slot of every reverse entry in its token's list, filled in {@link ChosenBy}'s order (batch, token, kv head,
     * list order), so position i here belongs to colTok[i].
     */
    private static int[] slots(NsaSelection sel, int[] colPtr, int entries) {
        int nb = sel.numKvBlocks();
        int[] fill = Arrays.copyOf(colPtr, colPtr.length - 1);
        int[] slot = new int[entries];
        for (int b = 0; b < sel.batch(); b++) {
            for (int t = 0; t < sel.seqLen(); t++) {
                for (int h = 0; h < sel.kvHeads(); h++) {
                    int base = (b * sel.kvHeads() + h) * nb;
                    int c = sel.count(b, t, h);
                    for (int s = 0; s < c; s++) {
                        int kb = sel.block(b, t, h, s);
                        if (kb >= 0) {
                            slot[fill[base + kb]++] = s;
                        }
                    }
                }
            }
        }
        return slot;
    }

    /**
     * Work items of the per-block forward, plane-major, then token chunk, then kv-block: the CTAs resident at one time
     * gather Q rows of one chunk of one plane, which then stay in L2. Each item is at most {@code maxTokens} tokens of
     * one (plane, kv-block)'s list that fall in one chunk; empty ones are left out.
     */
    static int[] blockItems(NsaSelection sel, int[] colPtr, int[] colTok, int chunkTokens, int maxTokens) {
        int nb = sel.numKvBlocks();
        int planes = sel.batch() * sel.kvHeads();
        int[] cursor = Arrays.copyOf(colPtr, colPtr.length - 1);
        int[] out = new int[3 * 1024];
        int n = 0;
        for (int plane = 0; plane < planes; plane++) {
            for (long chunkEnd = chunkTokens; chunkEnd - chunkTokens < sel.seqLen(); chunkEnd += chunkTokens) {
                for (int kb = 0; kb < nb; kb++) {
                    int e = plane * nb + kb;
                    int at = cursor[e];
                    while (at < colPtr[e + 1] && colTok[at] < chunkEnd) {
                        int end = at;
                        while (end < colPtr[e + 1] && colTok[end] < chunkEnd && end - at < maxTokens) {
                            end++;
                        }
                        if (n + 3 > out.length) {
                            if ((long) out.length * 2 > Integer.MAX_VALUE - 16) {
                                throw new IllegalArgumentException("too many NSA per-block work items for one launch");
                            }
                            out = Arrays.copyOf(out, out.length * 2);
                        }
                        out[n++] = e;
                        out[n++] = at;
                        out[n++] = end;
                        at = end;
                    }
                    cursor[e] = at;
                }
            }
        }
        return Arrays.copyOf(out, n);
    }

    /** tilePtr, tileBlk and tileMask (see the class comment) of every tile of every plane. */
    private record Unions(int[] ptr, int[] blk, int[] mask) {}

    private static Unions unions(NsaSelection sel, int group, long planeRows, long tiles, int planes) {
        int nb = sel.numKvBlocks();
        int[] stamp = new int[nb];
        Arrays.fill(stamp, -1);
        long[] pending = new long[nb]; // rows of the current tile that chose each block
        int[] buf = new int[sel.maxSelected()];
        int[] tilePtr = new int[(int) (tiles * planes) + 1];
        int[] blk = new int[1 << 16];
        long[] mask = new long[blk.length];
        int n = 0;
        int item = 0;
        int[] union = new int[nb];
        for (int plane = 0; plane < planes; plane++) {
            int b = plane / sel.kvHeads();
            int h = plane % sel.kvHeads();
            for (long tile = 0; tile < tiles; tile++, item++) {
                long row0 = tile * ROWS;
                long rowEnd = Math.min(planeRows, row0 + ROWS);
                int u = 0;
                for (int t = (int) (row0 / group); (long) t * group < rowEnd; t++) {
                    int first = (int) (Math.max(row0, (long) t * group) - row0);
                    int last = (int) (Math.min(rowEnd, (long) (t + 1) * group) - row0); // exclusive
                    long bits = (last - first == 64 ? -1L : ((1L << (last - first)) - 1)) << first;
                    int c = sel.blocks(b, t, h, buf);
                    for (int s = 0; s < c; s++) {
                        int kb = buf[s];
                        if (stamp[kb] != item) {
                            stamp[kb] = item;
                            union[u++] = kb;
                        }
                        pending[kb] |= bits;
                    }
                }
                Arrays.sort(union, 0, u);
                if (n + u > blk.length) {
                    int grown = (int) Math.min(Integer.MAX_VALUE - 16, Math.max((long) blk.length * 2, (long) n + u));
                    blk = Arrays.copyOf(blk, grown);
                    mask = Arrays.copyOf(mask, grown);
                }
                for (int i = 0; i < u; i++) {
                    blk[n] = union[i];
                    mask[n++] = pending[union[i]];
                    pending[union[i]] = 0;
                }
                tilePtr[item + 1] = n;
            }
        }
        int[] tileMask = new int[2 * n];
        for (int i = 0; i < n; i++) {
            tileMask[2 * i] = (int) mask[i];
            tileMask[2 * i + 1] = (int) (mask[i] >>> 32);
        }
        return new Unions(tilePtr, Arrays.copyOf(blk, n), tileMask);
    }

    /** Entries by descending token count (ties in index order), so the longest CTAs start first. */
    static int[] heaviestFirst(int[] ptr) {
        int n = ptr.length - 1;
        int max = 0;
        for (int i = 0; i < n; i++) {
            max = Math.max(max, ptr[i + 1] - ptr[i]);
        }
        int[] byCount = new int[max + 2];
        for (int i = 0; i < n; i++) {
            byCount[max - (ptr[i + 1] - ptr[i]) + 1]++;
        }
        for (int c = 0; c <= max; c++) {
            byCount[c + 1] += byCount[c];
        }
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[byCount[max - (ptr[i + 1] - ptr[i])]++] = i;
        }
        return order;
    }
}
