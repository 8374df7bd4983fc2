package saw.engine.gpu;

import java.util.Arrays;
import saw.engine.nsa.ChosenBy;
import saw.engine.nsa.NsaSelection;

/**
 * The host-built tables nsa.cu reads (see its header): the reverse index (tokens per kv-block), with, for the per-block
 * forward, each entry's slot in its token's list and that order's work items, and for the backward its own work items
 * (see {@link #blockItems}). The warp-order forward reads the selection itself and needs none of them.
 */
final class NsaTables {
    final int[] colPtr;
    final int[] colTok;
    /** Per reverse entry, the slot of its block in its token's list: where the per-block forward writes its partial. */
    final int[] colSlot;
    /** Per-block forward work items, three ints each: plane * numKvBlocks + kv-block, then a range of colTok. */
    final int[] items;
    /** The backward's work items, the same form over its own token chunks. */
    final int[] bwdItems;
    /** The shared walk's table, empty unless asked for. */
    final Walk walk;

    private NsaTables(int[] colPtr, int[] colTok, int[] colSlot, int[] items, int[] bwdItems, Walk walk) {
        this.colPtr = colPtr;
        this.colTok = colTok;
        this.colSlot = colSlot;
        this.items = items;
        this.bwdItems = bwdItems;
        this.walk = walk;
    }

    /**
     * @param chunkTokens when positive, the per-block forward's slots and work items over token chunks of this length
     * @param bwdChunkTokens when positive, the backward's work items over token chunks of this length
     * @param maxTokens the most tokens of one work item (long lists split so no CTA walks far longer than the rest)
     */
    static NsaTables of(NsaSelection sel, int chunkTokens, int bwdChunkTokens, int maxTokens) {
        return of(sel, chunkTokens, bwdChunkTokens, maxTokens, Walk.NONE);
    }

    /** @param walk the shared walk's table ({@link #walk(NsaSelection, int)}), or {@link Walk#NONE} */
    static NsaTables of(NsaSelection sel, int chunkTokens, int bwdChunkTokens, int maxTokens, Walk walk) {
        int[] colPtr = new int[0];
        int[] colTok = new int[0];
        int[] colSlot = new int[0];
        int[] items = new int[0];
        int[] bwdItems = new int[0];
        if (chunkTokens > 0 || bwdChunkTokens > 0) {
            ChosenBy rev = ChosenBy.of(sel);
            colPtr = rev.ptr();
            colTok = rev.tokens();
        }
        if (chunkTokens > 0) {
            colSlot = slots(sel, colPtr, colTok.length);
            items = blockItems(sel, colPtr, colTok, chunkTokens, maxTokens, false);
        }
        if (bwdChunkTokens > 0) {
            bwdItems = blockItems(sel, colPtr, colTok, bwdChunkTokens, maxTokens, true);
        }
        return new NsaTables(colPtr, colTok, colSlot, items, bwdItems, walk);
    }

    /** The most kv blocks a walk entry can name (19 bits of block beside 12 of token mask, nsa.cu). */
    static final int WALK_MAX_BLOCKS = (1 << 19) - 1;

    /** Whether a walk entry can name every kv block of the selection. */
    static boolean walkable(NsaSelection sel) {
        return sel.numKvBlocks() <= WALK_MAX_BLOCKS;
    }

    /**
     * The shared walk's table: tile i's entries are {@code entries[ptr[i]]} up to {@code entries[ptr[i + 1]]}, tiles of
     * consecutive tokens of one (batch, kv head) plane, plane-major.
     *
     * @param pairs the (token, block) choices the table covers: those whose block starts at or before the token
     */
    record Walk(int[] ptr, int[] entries, long pairs) {
        static final Walk NONE = new Walk(new int[0], new int[0], 0);

        /** Choices per entry: how many tokens of a tile choose a block it loads, on average (0 for an empty walk). */
        double sharing() {
            return entries.length == 0 ? 0 : (double) pairs / entries.length;
        }
    }

    /**
     * The shared walk's table: per tile of {@code tileTokens} consecutive tokens of one (batch, kv head) plane, the
     * blocks its tokens chose in ascending order, each as {@code block << 12 | mask}, bit w of the mask set when token
     * tile start + w chose the block and may see some of its keys (block start at or before the token).
     */
    static Walk walk(NsaSelection sel, int tileTokens) {
        if (tileTokens < 1 || tileTokens > 12) {
            throw new IllegalArgumentException("a walk tile holds 1 to 12 tokens, not " + tileTokens);
        }
        int nb = sel.numKvBlocks();
        if (!walkable(sel)) {
            throw new IllegalArgumentException("the shared walk packs a block index in 19 bits: " + nb + " kv blocks, "
                    + "more than " + WALK_MAX_BLOCKS);
        }
        int t = sel.seqLen();
        int tilesPerPlane = (t + tileTokens - 1) / tileTokens;
        int tiles = sel.batch() * sel.kvHeads() * tilesPerPlane;
        int[] ptr = new int[tiles + 1];
        int[] out = new int[1024];
        int n = 0;
        long pairs = 0;
        int[] mask = new int[nb];
        int[] touched = new int[tileTokens * Math.max(1, sel.maxSelected())];
        for (int b = 0; b < sel.batch(); b++) {
            for (int h = 0; h < sel.kvHeads(); h++) {
                for (int tile = 0; tile < tilesPerPlane; tile++) {
                    int used = 0;
                    for (int w = 0; w < tileTokens; w++) {
                        int token = tile * tileTokens + w;
                        if (token >= t) {
                            break;
                        }
                        int c = sel.count(b, token, h);
                        for (int s = 0; s < c; s++) {
                            int kb = sel.block(b, token, h, s);
                            if (kb < 0 || (long) kb * sel.blockSize() > token) {
                                continue;
                            }
                            if (mask[kb] == 0) {
                                touched[used++] = kb;
                            }
                            pairs++;
                            mask[kb] |= 1 << w;
                        }
                    }
                    Arrays.sort(touched, 0, used);
                    if (n + used > out.length) {
                        out = Arrays.copyOf(out, Math.max(out.length * 2, n + used));
                    }
                    for (int i = 0; i < used; i++) {
                        int kb = touched[i];
                        out[n++] = kb << 12 | mask[kb];
                        mask[kb] = 0;
                    }
                    ptr[(b * sel.kvHeads() + h) * tilesPerPlane + tile + 1] = n;
                }
            }
        }
        return new Walk(ptr, Arrays.copyOf(out, n), pairs);
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
     * Work items of the per-block forward and of the backward, plane-major, then token chunk, then kv-block: the CTAs
     * resident at one time gather Q rows of one chunk of one plane, which then stay in L2. Each item is at most
     * {@code maxTokens} tokens of one (plane, kv-block)'s list that fall in one chunk; empty ones are left out.
     *
     * @param alternate the kv-blocks up in even chunks and down in odd ones, so that a chunk starts on the blocks whose K
     *     and V, and dK and dV adds, the chunk before touched last (the backward: 1.03-1.04x at T = 32K and 64K on an
     *     H100; the per-block forward lost 3% with it at G = 4)
     */
    static int[] blockItems(NsaSelection sel, int[] colPtr, int[] colTok, int chunkTokens, int maxTokens,
                            boolean alternate) {
        int nb = sel.numKvBlocks();
        int planes = sel.batch() * sel.kvHeads();
        int[] cursor = Arrays.copyOf(colPtr, colPtr.length - 1);
        int[] out = new int[3 * 1024];
        int n = 0;
        for (int plane = 0; plane < planes; plane++) {
            boolean down = false;
            for (long chunkEnd = chunkTokens; chunkEnd - chunkTokens < sel.seqLen(); chunkEnd += chunkTokens) {
                for (int i = 0; i < nb; i++) {
                    int kb = down ? nb - 1 - i : i;
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
                down = alternate && !down;
            }
        }
        return Arrays.copyOf(out, n);
    }
}
