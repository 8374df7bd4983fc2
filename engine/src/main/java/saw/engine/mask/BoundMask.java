package saw.engine.mask;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A mask bound to its {@link Dims}: token-level evaluation, exact tile classification and exact pair counts.
 * Heads and batch entries that resolve to the same mask share one variant, so a per-head mix of two patterns
 * over 16 heads is evaluated twice, not sixteen times.
 */
public final class BoundMask {
    private static final long BAND_UNBOUNDED = 1L << 40;
    private final Mask mask;
    private final Dims dims;
    private final int batchPeriod;
    private final int headPeriod;
    private final int[] variantOf;
    private final List<Mask> variantMasks;
    private final Node[] variants;

    private BoundMask(Mask mask, Dims dims) {
        this.mask = mask;
        this.dims = dims;
        Variants resolved = new Variants(mask, dims);
        this.batchPeriod = resolved.batchPeriod;
        this.headPeriod = resolved.headPeriod;
        this.variantOf = resolved.variantOf;
        this.variantMasks = List.copyOf(resolved.masks);
        this.variants = new Node[variantMasks.size()];
        for (int v = 0; v < variants.length; v++) {
            variants[v] = build(variantMasks.get(v));
        }
    }

    /**
     * Binds a mask to its sizes. Call {@link MaskChecks#check} first for a message a user can act on; this throws
     * {@link IllegalArgumentException} on the first problem it finds.
     */
    public static BoundMask bind(Mask mask, Dims dims) {
        List<MaskChecks.Problem> problems = MaskChecks.check(mask, dims);
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(problems.get(0).toString());
        }
        return new BoundMask(mask, dims);
    }

    /**
     * The distinct masks the (batch, head) pairs resolve to, as {@link #variantMask} gives them, without building
     * anything: what size estimates need before binding.
     */
    public static List<Mask> variantMasks(Mask mask, Dims dims) {
        return List.copyOf(new Variants(mask, dims).masks);
    }

    /** Which resolved mask each (batch, head) pair of one period uses. */
    private static final class Variants {
        final int batchPeriod;
        final int headPeriod;
        final int[] variantOf;
        final List<Mask> masks = new ArrayList<>();

        Variants(Mask mask, Dims dims) {
            batchPeriod = variesWithBatch(mask) ? dims.batch() : 1;
            headPeriod = (int) Math.min(dims.heads(), headPeriod(mask));
            variantOf = new int[batchPeriod * headPeriod];
            Map<Mask, Integer> seen = new HashMap<>();
            for (int b = 0; b < batchPeriod; b++) {
                for (int h = 0; h < headPeriod; h++) {
                    Mask resolved = resolve(mask, b, h);
                    Integer index = seen.get(resolved);
                    if (index == null) {
                        index = masks.size();
                        seen.put(resolved, index);
                        masks.add(resolved);
                    }
                    variantOf[b * headPeriod + h] = index;
                }
            }
        }
    }

    public Mask mask() {
        return mask;
    }

    public Dims dims() {
        return dims;
    }

    /** 1 when the mask is the same for every batch entry, else the batch size. */
    public int batchPeriod() {
        return batchPeriod;
    }

    /** 1 when the mask is the same for every head; else heads repeat with this period (at most the head count). */
    public int headPeriod() {
        return headPeriod;
    }

    public int variantCount() {
        return variants.length;
    }

    public int variantOf(int batch, int head) {
        return variantOf[(batch % batchPeriod) * headPeriod + head % headPeriod];
    }

    /** The mask of one variant, with per-head choices and per-batch documents resolved. */
    public Mask variantMask(int variant) {
        return variantMasks.get(variant);
    }

    /** How many (batch, head) pairs use each variant. */
    public long[] variantMultiplicity() {
        long[] m = new long[variants.length];
        for (int b = 0; b < dims.batch(); b++) {
            for (int h = 0; h < dims.heads(); h++) {
                m[variantOf(b, h)]++;
            }
        }
        return m;
    }

    public boolean attends(int variant, int i, int j) {
        return variants[variant].attends(i, j);
    }

    /** The exact class of rows [q0, q1) x columns [k0, k1) for one variant. */
    public TileClass classify(int variant, int q0, int q1, int k0, int k1) {
        checkRect(q0, q1, k0, k1);
        return TileClass.values()[Nodes.classify(variants[variant], q0, q1, k0, k1)];
    }

    /**
     * ORs into {@code words} the attending pairs of rows [q0, q1) x columns [k0, k1) for one variant, row by row, 32
     * columns a word: pair (i, j) is bit (j - k0) & 31 of words[at + (i - q0) * wordsPerRow + ((j - k0) >>> 5)].
     */
    public void attendingBits(int variant, int q0, int q1, int k0, int k1, int[] words, int at, int wordsPerRow) {
        checkRect(q0, q1, k0, k1);
        if ((k1 - k0 + 31) / 32 > wordsPerRow || at < 0 || at + (long) (q1 - q0) * wordsPerRow > words.length) {
            throw new IllegalArgumentException((q1 - q0) + " rows of " + (k1 - k0) + " columns do not fit " + wordsPerRow
                    + " words a row from " + at + " of " + words.length);
        }
        Nodes.bits(variants[variant], q0, q1, k0, k1, q0, k0, words, at, wordsPerRow);
    }

    /** The exact number of attending pairs in rows [q0, q1) x columns [k0, k1) for one variant. */
    public long countAttending(int variant, int q0, int q1, int k0, int k1) {
        checkRect(q0, q1, k0, k1);
        return Nodes.count(variants[variant], q0, q1, k0, k1);
    }

    /** Attending pairs summed over every batch entry and head. */
    public long attendedPairs() {
        long[] mult = variantMultiplicity();
        long total = 0;
        for (int v = 0; v < variants.length; v++) {
            total += mult[v] * countAttending(v, 0, dims.seqQ(), 0, dims.seqKv());
        }
        return total;
    }

    /** Compiles the tile layout for blocks of {@code blockQ} x {@code blockKv} tokens. */
    public TileLayout compile(int blockQ, int blockKv) {
        return TileLayout.compile(this, blockQ, blockKv);
    }

    Node node(int variant) {
        return variants[variant];
    }

    private void checkRect(int q0, int q1, int k0, int k1) {
        if (q0 < 0 || q1 > dims.seqQ() || q0 >= q1 || k0 < 0 || k1 > dims.seqKv() || k0 >= k1) {
            throw new IllegalArgumentException("rectangle [" + q0 + ", " + q1 + ") x [" + k0 + ", " + k1
                    + ") is empty or outside " + dims.seqQ() + " x " + dims.seqKv());
        }
    }

    private static boolean variesWithBatch(Mask m) {
        if (m instanceof Mask.Documents d) {
            return d.perBatch().size() > 1;
        }
        return children(m).stream().anyMatch(BoundMask::variesWithBatch);
    }

    /** The direct sub-masks of a composite, or none. */
    static List<Mask> children(Mask m) {
        if (m instanceof Mask.And a) {
            return a.children();
        }
        if (m instanceof Mask.Or o) {
            return o.children();
        }
        if (m instanceof Mask.Not n) {
            return List.of(n.child());
        }
        if (m instanceof Mask.PerHead p) {
            return p.variants();
        }
        return List.of();
    }

    private static long headPeriod(Mask m) {
        long l = m instanceof Mask.PerHead p ? p.variants().size() : 1;
        for (Mask c : children(m)) {
            l = lcm(l, headPeriod(c));
        }
        return l;
    }

    private static long lcm(long a, long b) {
        long g = a;
        long x = b;
        while (x != 0) {
            long t = g % x;
            g = x;
            x = t;
        }
        return Math.min(1L << 30, a / g * b);
    }

    private static Mask resolve(Mask m, int b, int h) {
        if (m instanceof Mask.Documents d) {
            return d.perBatch().size() == 1 ? d : new Mask.Documents(List.of(d.forBatch(b)));
        }
        if (m instanceof Mask.And a) {
            return new Mask.And(a.children().stream().map(c -> resolve(c, b, h)).toList());
        }
        if (m instanceof Mask.Or o) {
            return new Mask.Or(o.children().stream().map(c -> resolve(c, b, h)).toList());
        }
        if (m instanceof Mask.Not n) {
            return new Mask.Not(resolve(n.child(), b, h));
        }
        if (m instanceof Mask.PerHead p) {
            return resolve(p.variants().get(h % p.variants().size()), b, h);
        }
        return m;
    }

    private Node build(Mask m) {
        int sq = dims.seqQ();
        int skv = dims.seqKv();
        if (m instanceof Mask.Full) {
            return Node.Const.FULL_NODE;
        } else if (m instanceof Mask.Causal c) {
            return new Leaves.Band(-BAND_UNBOUNDED, c.offset());
        } else if (m instanceof Mask.SlidingWindow w) {
            return new Leaves.Band(w.left() < 0 ? -BAND_UNBOUNDED : -w.left(), w.right() < 0 ? BAND_UNBOUNDED : w.right());
        } else if (m instanceof Mask.ChunkedCausal c) {
            return new Leaves.Chunked(c.chunk());
        } else if (m instanceof Mask.PrefixLm p) {
            return new Leaves.Prefix(p.prefix());
        } else if (m instanceof Mask.Sinks s) {
            return new Leaves.Sinks(s.count());
        } else if (m instanceof Mask.Dilated d) {
            return new Leaves.Dilated(d.stride());
        } else if (m instanceof Mask.GlobalTokens g) {
            return new Leaves.Global(g.indices().toArray());
        } else if (m instanceof Mask.Documents d) {
            return segmented(d.forBatch(0), sq, skv);
        } else if (m instanceof Mask.RandomBlocks r) {
            int nq = ceilDiv(sq, r.blockQ());
            int nkv = ceilDiv(skv, r.blockKv());
            int[][] rows = new int[nq][];
            for (int row = 0; row < nq; row++) {
                rows[row] = RandomBlockDraw.row(r.seed(), row, r.perRow(), nkv);
            }
            return new Leaves.BlockSet(r.blockQ(), r.blockKv(), rows);
        } else if (m instanceof Mask.BlockList l) {
            return new Leaves.BlockSet(l.blockQ(), l.blockKv(), toRows(l.rows()));
        } else if (m instanceof Mask.Painted p) {
            return new Leaves.BlockSet(p.blockQ(), p.blockKv(), toRows(p.rows()));
        } else if (m instanceof Mask.And a) {
            return new Node.Combine(true, a.children().stream().map(this::build).toArray(Node[]::new));
        } else if (m instanceof Mask.Or o) {
            return new Node.Combine(false, o.children().stream().map(this::build).toArray(Node[]::new));
        } else if (m instanceof Mask.Not n) {
            return new Node.NotNode(build(n.child()));
        }
        throw new IllegalStateException("per_head is resolved before building: " + m);
    }

    private static Node segmented(Mask.Segments s, int sq, int skv) {
        if (s instanceof Mask.Lengths l) {
            int[] lengths = l.lengths().toArray();
            return new Leaves.Segmented(Leaves.Runs.ofLengths(lengths, sq), Leaves.Runs.ofLengths(lengths, skv), true);
        }
        Mask.SegmentIds ids = (Mask.SegmentIds) s;
        Leaves.Runs q = Leaves.Runs.ofIds(ids.q().toArray());
        Leaves.Runs kv = Leaves.Runs.ofIds(ids.kv().toArray());
        boolean shared = ids.q().equals(ids.kv()) && q.monotoneWithTrailingPadding();
        return new Leaves.Segmented(q, kv, shared);
    }

    private static int[][] toRows(List<IntArray> rows) {
        return rows.stream().map(IntArray::toArray).toArray(int[][]::new);
    }

    static int ceilDiv(int a, int b) {
        return (a + b - 1) / b;
    }
}
