package saw.ui.model;

import saw.engine.config.MaskConfig;
import java.util.ArrayList;
import java.util.List;
import saw.engine.mask.Dims;
import saw.engine.mask.IntArray;
import saw.engine.mask.Mask;

/** The palette: each kind of primitive mask, with defaults that make sense for the sizes being edited. */
public enum Primitive {
    FULL("full", "every pair attends"),
    CAUSAL("causal", "j <= i + offset"),
    SLIDING_WINDOW("sliding_window", "a band of left/right tokens around the diagonal"),
    CHUNKED_CAUSAL("chunked_causal", "causal inside fixed chunks (Llama 4)"),
    PREFIX_LM("prefix_lm", "a bidirectional prefix, then causal"),
    DOCUMENTS("documents", "packed documents attend only within themselves"),
    GLOBAL_TOKENS("global_tokens", "tokens that attend and are attended by all"),
    DILATED("dilated", "every stride-th token"),
    SINKS("sinks", "the first tokens are attention sinks (StreamingLLM)"),
    RANDOM_BLOCKS("random_blocks", "BigBird random blocks per row"),
    BLOCK_LIST("block_list", "an explicit list of kv-blocks per q-block (NSA)"),
    PAINTED("painted", "tiles toggled with the brush on the grid");

    private final String key;
    private final String description;

    Primitive(String key, String description) {
        this.key = key;
        this.description = description;
    }

    public String key() {
        return key;
    }

    public String description() {
        return description;
    }

    /** A new mask of this kind with parameters scaled to the composition's sizes and tile size. */
    public Mask create(MaskConfig c) {
        Dims d = c.dims();
        int seq = Math.min(d.seqQ(), d.seqKv());
        switch (this) {
            case FULL: return new Mask.Full();
            case CAUSAL: return new Mask.Causal(0);
            case SLIDING_WINDOW: return new Mask.SlidingWindow(Math.max(1, Math.min(1024, seq / 8)), 0);
            case CHUNKED_CAUSAL: return new Mask.ChunkedCausal(Math.max(1, Math.min(8192, seq / 4)));
            case PREFIX_LM: return new Mask.PrefixLm(Math.max(0, seq / 4));
            case DOCUMENTS: return Mask.Documents.ofLengths(raggedLengths(seq));
            case GLOBAL_TOKENS: return Mask.GlobalTokens.first(Math.min(seq, 64));
            case DILATED: return new Mask.Dilated(Math.min(seq, 2));
            case SINKS: return new Mask.Sinks(Math.min(d.seqKv(), 4));
            case RANDOM_BLOCKS: {
                int nkv = (d.seqKv() + c.block().kv() - 1) / c.block().kv();
                return new Mask.RandomBlocks(c.block().q(), c.block().kv(), Math.min(nkv, 2), 0);
            }
            case BLOCK_LIST: return new Mask.BlockList(c.block().q(), c.block().kv(), diagonalRows(c));
            default: return new Mask.Painted(c.block().q(), c.block().kv(), List.of());
        }
    }

    /** Four documents of uneven lengths that fill the sequence. */
    private static int[] raggedLengths(int seq) {
        if (seq < 4) {
            return new int[] {seq};
        }
        int a = seq * 3 / 16;
        int b = seq * 7 / 16;
        int c2 = seq / 8;
        return new int[] {a, b, c2, seq - a - b - c2};
    }

    /** Each q-block lists the kv-block on its diagonal and the first one. */
    private static List<IntArray> diagonalRows(MaskConfig c) {
        int nq = (c.dims().seqQ() + c.block().q() - 1) / c.block().q();
        int nkv = (c.dims().seqKv() + c.block().kv() - 1) / c.block().kv();
        List<IntArray> rows = new ArrayList<>();
        for (int r = 0; r < nq; r++) {
            int diag = (int) Math.min(nkv - 1L, (long) r * c.block().q() / c.block().kv());
            rows.add(diag == 0 ? IntArray.of(0) : IntArray.of(0, diag));
        }
        return rows;
    }
}
