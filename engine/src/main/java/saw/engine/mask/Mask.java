package saw.engine.mask;

import java.util.List;

/**
 * A mask: an immutable value that says, for batch b, head h, query i and key j, whether i attends to j.
 * Primitives are records; {@link And}, {@link Or}, {@link Not} and {@link PerHead} compose them.
 * The token-level meaning of each record is the specification; {@link BoundMask} evaluates it.
 * Record constructors check only what needs no sequence lengths; {@link MaskChecks} checks the rest.
 */
public sealed interface Mask {

    /** Every pair attends. */
    record Full() implements Mask {}

    /** j <= i + offset; offset = Skv - Sq aligns the diagonal bottom-right. */
    record Causal(int offset) implements Mask {}

    /** (left < 0 or j >= i - left) and (right < 0 or j <= i + right); -1 means unbounded. */
    record SlidingWindow(int left, int right) implements Mask {
        public SlidingWindow {
            if (left < -1 || right < -1) {
                throw new IllegalArgumentException("window bounds must be -1 (unbounded) or >= 0, got left=" + left + ", right=" + right);
            }
        }
    }

    /** floor(i/chunk) == floor(j/chunk) and j <= i (Llama 4's chunked attention). */
    record ChunkedCausal(int chunk) implements Mask {
        public ChunkedCausal {
            if (chunk < 1) {
                throw new IllegalArgumentException("chunk must be >= 1, got " + chunk);
            }
        }
    }

    /** j < prefix or j <= i. */
    record PrefixLm(int prefix) implements Mask {
        public PrefixLm {
            if (prefix < 0) {
                throw new IllegalArgumentException("prefix must be >= 0, got " + prefix);
            }
        }
    }

    /**
     * seg(i) == seg(j) and seg(i) != -1. {@code perBatch} holds one entry used by every batch, or one per batch.
     */
    record Documents(List<Segments> perBatch) implements Mask {
        public Documents {
            perBatch = List.copyOf(perBatch);
            if (perBatch.isEmpty()) {
                throw new IllegalArgumentException("documents need at least one segment description");
            }
        }

        public static Documents ofLengths(int... lengths) {
            return new Documents(List.of(new Lengths(IntArray.of(lengths))));
        }

        public Segments forBatch(int b) {
            return perBatch.size() == 1 ? perBatch.get(0) : perBatch.get(b);
        }
    }

    /** How the tokens of one batch entry split into documents. */
    sealed interface Segments {}

    /** Consecutive documents of these lengths, from token 0; tokens past their sum are padding. */
    record Lengths(IntArray lengths) implements Segments {
        public Lengths {
            for (int i = 0; i < lengths.size(); i++) {
                if (lengths.get(i) < 0) {
                    throw new IllegalArgumentException("document length " + i + " is negative: " + lengths.get(i));
                }
            }
        }
    }

    /** A segment id per token (-1 = padding); {@code q} has Sq entries, {@code kv} has Skv. */
    record SegmentIds(IntArray q, IntArray kv) implements Segments {
        public SegmentIds {
            checkIds(q, "q_segment_ids");
            checkIds(kv, "kv_segment_ids");
        }

        private static void checkIds(IntArray ids, String what) {
            for (int i = 0; i < ids.size(); i++) {
                if (ids.get(i) < -1) {
                    throw new IllegalArgumentException(what + "[" + i + "] is " + ids.get(i) + "; ids are >= 0, or -1 for padding");
                }
            }
        }
    }

    /** i in G or j in G, for a sorted set G of token indices. */
    record GlobalTokens(IntArray indices) implements Mask {
        public GlobalTokens {
            indices = indices.sortedDistinct();
            if (!indices.isEmpty() && indices.get(0) < 0) {
                throw new IllegalArgumentException("global token indices must be >= 0, got " + indices.get(0));
            }
        }

        public static GlobalTokens first(int count) {
            return new GlobalTokens(IntArray.range(0, count));
        }

        /** The n when G is exactly {0..n-1} (n > 0), else -1. */
        public int firstCount() {
            int n = indices.size();
            return n > 0 && indices.get(n - 1) == n - 1 ? n : -1;
        }
    }

    /** (i - j) mod stride == 0, with the mathematical (never negative) mod. */
    record Dilated(int stride) implements Mask {
        public Dilated {
            if (stride < 1) {
                throw new IllegalArgumentException("stride must be >= 1, got " + stride);
            }
        }
    }

    /** j < count: the first tokens are attention sinks (StreamingLLM). */
    record Sinks(int count) implements Mask {
        public Sinks {
            if (count < 0) {
                throw new IllegalArgumentException("sink count must be >= 0, got " + count);
            }
        }
    }

    /**
     * BigBird-style random blocks: each q-block of {@code blockQ} rows attends {@code perRow} distinct kv-blocks
     * of {@code blockKv} columns, drawn by {@link RandomBlockDraw} from {@code seed}.
     */
    record RandomBlocks(int blockQ, int blockKv, int perRow, long seed) implements Mask {
        public RandomBlocks {
            checkBlock(blockQ, blockKv);
            if (perRow < 0) {
                throw new IllegalArgumentException("per_row must be >= 0, got " + perRow);
            }
        }
    }

    /** NSA-style explicit selection: q-block r attends the kv-blocks listed in {@code rows.get(r)}. */
    record BlockList(int blockQ, int blockKv, List<IntArray> rows) implements Mask {
        public BlockList {
            checkBlock(blockQ, blockKv);
            rows = normalizeRows(rows);
        }
    }

    /** Cells painted with the GUI's brush: q-block r attends kv-blocks {@code rows.get(r)}. */
    record Painted(int blockQ, int blockKv, List<IntArray> rows) implements Mask {
        public Painted {
            checkBlock(blockQ, blockKv);
            rows = normalizeRows(rows);
        }
    }

    /** Every child attends. */
    record And(List<Mask> children) implements Mask {
        public And {
            children = List.copyOf(children);
            if (children.isEmpty()) {
                throw new IllegalArgumentException("'and' needs at least one child");
            }
        }

        public static And of(Mask... children) {
            return new And(List.of(children));
        }
    }

    /** Some child attends. */
    record Or(List<Mask> children) implements Mask {
        public Or {
            children = List.copyOf(children);
            if (children.isEmpty()) {
                throw new IllegalArgumentException("'or' needs at least one child");
            }
        }

        public static Or of(Mask... children) {
            return new Or(List.of(children));
        }
    }

    /** The child does not attend. */
    record Not(Mask child) implements Mask {}

    /** Head h uses {@code variants.get(h mod variants.size())}. */
    record PerHead(List<Mask> variants) implements Mask {
        public PerHead {
            variants = List.copyOf(variants);
            if (variants.isEmpty()) {
                throw new IllegalArgumentException("'per_head' needs at least one mask");
            }
        }
    }

    private static void checkBlock(int bq, int bkv) {
        if (bq < 1 || bkv < 1) {
            throw new IllegalArgumentException("block sizes must be >= 1, got [" + bq + ", " + bkv + "]");
        }
    }

    private static List<IntArray> normalizeRows(List<IntArray> rows) {
        return rows.stream().map(row -> {
            IntArray sorted = row.sortedDistinct();
            if (!sorted.isEmpty() && sorted.get(0) < 0) {
                throw new IllegalArgumentException("kv-block indices must be >= 0, got " + sorted.get(0));
            }
            return sorted;
        }).toList();
    }
}
