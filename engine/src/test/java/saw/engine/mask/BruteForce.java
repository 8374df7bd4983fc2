package saw.engine.mask;

import java.util.List;

/** The specification: every pair evaluated straight from the mask records, independent of the engine's nodes. */
public final class BruteForce {
    private BruteForce() {}

    public static boolean attends(Mask m, Dims dims, int b, int h, int i, int j) {
        if (m instanceof Mask.Full) {
            return true;
        } else if (m instanceof Mask.Causal c) {
            return j <= (long) i + c.offset();
        } else if (m instanceof Mask.SlidingWindow w) {
            return (w.left() < 0 || j >= (long) i - w.left()) && (w.right() < 0 || j <= (long) i + w.right());
        } else if (m instanceof Mask.ChunkedCausal c) {
            return i / c.chunk() == j / c.chunk() && j <= i;
        } else if (m instanceof Mask.PrefixLm p) {
            return j < p.prefix() || j <= i;
        } else if (m instanceof Mask.Documents d) {
            Mask.Segments s = d.forBatch(b);
            int si = segment(s, true, i);
            return si != -1 && si == segment(s, false, j);
        } else if (m instanceof Mask.GlobalTokens g) {
            boolean gi = false;
            boolean gj = false;
            for (int x = 0; x < g.indices().size(); x++) {
                gi |= g.indices().get(x) == i;
                gj |= g.indices().get(x) == j;
            }
            return gi || gj;
        } else if (m instanceof Mask.Dilated d) {
            return Math.floorMod(i - j, d.stride()) == 0;
        } else if (m instanceof Mask.Sinks s) {
            return j < s.count();
        } else if (m instanceof Mask.RandomBlocks r) {
            int nkv = (dims.seqKv() + r.blockKv() - 1) / r.blockKv();
            int[] row = RandomBlockDraw.row(r.seed(), i / r.blockQ(), r.perRow(), nkv);
            return contains(row, j / r.blockKv());
        } else if (m instanceof Mask.BlockList l) {
            return listed(l.rows(), i / l.blockQ(), j / l.blockKv());
        } else if (m instanceof Mask.Painted p) {
            return listed(p.rows(), i / p.blockQ(), j / p.blockKv());
        } else if (m instanceof Mask.And a) {
            return a.children().stream().allMatch(c -> attends(c, dims, b, h, i, j));
        } else if (m instanceof Mask.Or o) {
            return o.children().stream().anyMatch(c -> attends(c, dims, b, h, i, j));
        } else if (m instanceof Mask.Not n) {
            return !attends(n.child(), dims, b, h, i, j);
        } else if (m instanceof Mask.PerHead p) {
            return attends(p.variants().get(h % p.variants().size()), dims, b, h, i, j);
        }
        throw new AssertionError(m);
    }

    private static int segment(Mask.Segments s, boolean isQ, int pos) {
        if (s instanceof Mask.Lengths l) {
            int start = 0;
            for (int d = 0; d < l.lengths().size(); d++) {
                int end = start + l.lengths().get(d);
                if (pos >= start && pos < end) {
                    return d;
                }
                start = end;
            }
            return -1;
        }
        Mask.SegmentIds ids = (Mask.SegmentIds) s;
        return (isQ ? ids.q() : ids.kv()).get(pos);
    }

    private static boolean contains(int[] row, int x) {
        for (int v : row) {
            if (v == x) {
                return true;
            }
        }
        return false;
    }

    private static boolean listed(List<IntArray> rows, int r, int kb) {
        if (r >= rows.size()) {
            return false;
        }
        IntArray row = rows.get(r);
        for (int x = 0; x < row.size(); x++) {
            if (row.get(x) == kb) {
                return true;
            }
        }
        return false;
    }

    /** The dense token mask of batch b, head h: [seqQ][seqKv]. */
    public static boolean[][] dense(Mask m, Dims dims, int b, int h) {
        boolean[][] out = new boolean[dims.seqQ()][dims.seqKv()];
        for (int i = 0; i < dims.seqQ(); i++) {
            for (int j = 0; j < dims.seqKv(); j++) {
                out[i][j] = attends(m, dims, b, h, i, j);
            }
        }
        return out;
    }

    /** The class of one tile of a dense mask, by looking at every pair. */
    public static TileClass tile(boolean[][] dense, int q0, int q1, int k0, int k1) {
        boolean any = false;
        boolean all = true;
        for (int i = q0; i < q1; i++) {
            for (int j = k0; j < k1; j++) {
                any |= dense[i][j];
                all &= dense[i][j];
            }
        }
        return TileClass.of(any, all);
    }
}
