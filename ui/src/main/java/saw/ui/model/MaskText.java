package saw.ui.model;

import saw.engine.config.MaskKeys;
import saw.engine.mask.IntArray;
import saw.engine.mask.Mask;

/** How masks are named in the composer: the config key of each kind and a one-line summary of its parameters. */
public final class MaskText {
    private MaskText() {}

    /** The key of this kind of mask in a {@code saw.mask/1} config. */
    public static String key(Mask m) {
        return MaskKeys.key(m);
    }

    /** The parameters in a few words, e.g. "left 1024, right 0". */
    public static String parameters(Mask m) {
        if (m instanceof Mask.Causal c) {
            return c.offset() == 0 ? "" : "offset " + c.offset();
        } else if (m instanceof Mask.SlidingWindow w) {
            return "left " + bound(w.left()) + ", right " + bound(w.right());
        } else if (m instanceof Mask.ChunkedCausal c) {
            return "chunk " + c.chunk();
        } else if (m instanceof Mask.PrefixLm p) {
            return "prefix " + p.prefix();
        } else if (m instanceof Mask.Documents d) {
            if (d.perBatch().size() > 1) {
                return d.perBatch().size() + " batch entries";
            }
            Mask.Segments s = d.perBatch().get(0);
            return s instanceof Mask.Lengths l ? l.lengths().size() + " documents " + l.lengths() : "segment ids";
        } else if (m instanceof Mask.GlobalTokens g) {
            return g.firstCount() > 0 ? "first " + g.firstCount() : g.indices().size() + " tokens " + g.indices();
        } else if (m instanceof Mask.Dilated d) {
            return "stride " + d.stride();
        } else if (m instanceof Mask.Sinks s) {
            return "count " + s.count();
        } else if (m instanceof Mask.RandomBlocks r) {
            return r.perRow() + " per row, blocks " + r.blockQ() + "x" + r.blockKv() + ", seed " + r.seed();
        } else if (m instanceof Mask.BlockList l) {
            return cells(l.rows()) + " blocks of " + l.blockQ() + "x" + l.blockKv();
        } else if (m instanceof Mask.Painted p) {
            return cells(p.rows()) + " cells of " + p.blockQ() + "x" + p.blockKv();
        } else if (m instanceof Mask.PerHead p) {
            return p.variants().size() + " variants, head h uses h mod " + p.variants().size();
        }
        return "";
    }

    /** The key and the parameters, as a tree cell shows them. */
    public static String label(Mask m) {
        String p = parameters(m);
        return p.isEmpty() ? key(m) : key(m) + "  " + p;
    }

    private static String bound(int v) {
        return v < 0 ? "unbounded" : Integer.toString(v);
    }

    private static long cells(java.util.List<IntArray> rows) {
        long n = 0;
        for (IntArray r : rows) {
            n += r.size();
        }
        return n;
    }
}
