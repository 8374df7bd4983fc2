package saw.engine.guard;

import java.util.List;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.IntArray;
import saw.engine.mask.Mask;

/**
 * Upper bounds on the heap that binding a mask and compiling its layout take, from the mask's structure alone:
 * nothing is built, so the bound is cheap even for masks whose layout would not fit.
 *
 * <p>A compiled q-block row is stored as runs of consecutive kv-blocks of one class, 5 bytes a run, so the bound is
 * a bound on runs per row. Tiles whose columns all have the same pattern (the set of the row's queries that attend
 * the column) have the class of that pattern, so two neighbouring tiles can differ only where some column between
 * them starts a new pattern (a breakpoint), and each breakpoint ends at most two runs. Leaves bound their runs that
 * way (documents, global tokens, block lists) or from their shape (a band has at most 5 runs: empty, partial, full,
 * partial, empty). An {@code and} or {@code or} has a class fixed by its children's classes wherever at most one
 * child is PARTIAL, so its runs are at most the children's boundaries plus two for every tile where two or more
 * children are PARTIAL; that is why each bound carries the row's PARTIAL tiles too. Every bound is capped at the
 * number of kv-blocks. The last q-block row may be shorter than the others and is bounded on its own.
 */
final class LayoutBound {
    /** The bytes a grid needs besides its runs (object headers, class counts). */
    private static final long GRID_OVERHEAD = 128;
    /** Bytes per stored run: an int start and a byte class. */
    private static final long RUN_BYTES = 5;
    /** A leaf or combination node once bound. */
    private static final long NODE_BYTES = 48;

    /** At most {@code runs} runs and {@code partial} PARTIAL tiles in one q-block row. */
    record Row(long runs, long partial) {}

    private final Dims dims;
    private final int blockKv;
    private final int blockQ;
    private final int nq;
    private final int nkv;
    private final int lastHeight;

    LayoutBound(Dims dims, int blockQ, int blockKv) {
        if (blockQ < 1 || blockKv < 1) {
            throw new IllegalArgumentException("block sizes must be >= 1, got " + blockQ + "x" + blockKv);
        }
        this.dims = dims;
        this.blockQ = blockQ;
        this.blockKv = blockKv;
        this.nq = ceilDiv(dims.seqQ(), blockQ);
        this.nkv = ceilDiv(dims.seqKv(), blockKv);
        this.lastHeight = dims.seqQ() - (nq - 1) * blockQ;
    }

    /** Heap for binding {@code mask} to {@code dims} and compiling it to blockQ x blockKv tiles, at its peak. */
    static long compileBytes(Mask mask, Dims dims, int blockQ, int blockKv) {
        LayoutBound b = new LayoutBound(dims, blockQ, blockKv);
        long total = 4L * dims.batch() * dims.heads(); // which variant each (batch, head) uses
        long largestGrid = 0;
        for (Mask variant : BoundMask.variantMasks(mask, dims)) {
            long runs = b.runs(variant);
            total = Bytes.add(total, Bytes.add(b.bindBytes(variant), b.gridBytes(runs)));
            largestGrid = Math.max(largestGrid, runs);
        }
        // while a grid is built its runs sit in arrays that grow by doubling and are then copied to size
        return Bytes.add(total, Bytes.times(2 * RUN_BYTES, Math.max(64, largestGrid)));
    }

    long gridBytes(long runs) {
        return Bytes.add(GRID_OVERHEAD + 4L * (nq + 1), Bytes.times(RUN_BYTES, runs));
    }

    /** Most runs the compiled grid of one resolved variant mask can hold. */
    long runs(Mask variant) {
        long last = row(variant, true).runs();
        return nq == 1 ? last : Bytes.add(Bytes.times(nq - 1, row(variant, false).runs()), last);
    }

    /** The bound for one row: the last q-block row, or the most of any other row. */
    Row row(Mask m, boolean lastRow) {
        int h = lastRow ? lastHeight : blockQ;
        if (m instanceof Mask.Full) {
            return row(1, 0);
        } else if (m instanceof Mask.Causal) {
            return band(1, h);
        } else if (m instanceof Mask.SlidingWindow w) {
            return band((w.left() >= 0 ? 1 : 0) + (w.right() >= 0 ? 1 : 0), h);
        } else if (m instanceof Mask.ChunkedCausal c) {
            return combine(List.of(band(1, h), sameChunk(c.chunk(), h)));
        } else if (m instanceof Mask.PrefixLm p) {
            return combine(List.of(sinks(p.prefix()), band(1, h)));
        } else if (m instanceof Mask.Sinks s) {
            return sinks(s.count());
        } else if (m instanceof Mask.Dilated d) {
            return dilated(d.stride(), h);
        } else if (m instanceof Mask.GlobalTokens g) {
            return global(g.indices());
        } else if (m instanceof Mask.Documents d) {
            return documents(d);
        } else if (m instanceof Mask.RandomBlocks r) {
            int rows = ceilDiv(dims.seqQ(), r.blockQ());
            long touched = Math.min(rows, ceilDiv(h, r.blockQ()) + 1L);
            return blockSet(touched * Math.min(r.perRow(), ceilDiv(dims.seqKv(), r.blockKv())), r.blockKv());
        } else if (m instanceof Mask.BlockList l) {
            return blockSet(listedPerRow(l.blockQ(), l.rows(), lastRow), l.blockKv());
        } else if (m instanceof Mask.Painted p) {
            return blockSet(listedPerRow(p.blockQ(), p.rows(), lastRow), p.blockKv());
        } else if (m instanceof Mask.And a) {
            return combine(a.children().stream().map(c -> row(c, lastRow)).toList());
        } else if (m instanceof Mask.Or o) {
            return combine(o.children().stream().map(c -> row(c, lastRow)).toList());
        } else if (m instanceof Mask.Not n) {
            return row(n.child(), lastRow);
        } else if (m instanceof Mask.PerHead p) {
            // resolved before bounding; were one left, each head uses one of these, so the largest bound holds
            Row most = row(1, 0);
            for (Mask v : p.variants()) {
                Row r = row(v, lastRow);
                most = row(Math.max(most.runs(), r.runs()), Math.max(most.partial(), r.partial()));
            }
            return most;
        }
        throw new IllegalStateException("no bound for " + m.getClass().getSimpleName());
    }

    /** A band with 1 or 2 edges (causal, sliding window): each edge's diagonal crosses h rows of columns. */
    private Row band(int edges, int h) {
        return row(1 + 2L * edges, edges * (ceilDiv(h, blockKv) + 1L));
    }

    /** j < count: full tiles, one partial, empty tiles. */
    private Row sinks(int count) {
        return count == 0 ? row(1, 0) : row(3, 1);
    }

    /** Same chunk (the non-causal half of chunked causal): h rows touch at most ceil(h/c)+1 chunks. */
    private Row sameChunk(int chunk, int h) {
        long touched = ceilDiv(h, chunk) + 1L;
        return row(1 + 2 * (touched + 1), ceilDiv(touched * chunk, blockKv) + 1);
    }

    /** (i - j) mod s == 0: h >= s rows attend every column; fewer attend h-wide column runs every s columns. */
    private Row dilated(int stride, int h) {
        if (stride == 1) {
            return row(1, 0);
        }
        if (h >= stride) {
            return row(1, nkv);
        }
        if (blockKv >= stride) {
            return row(3, nkv); // every full-width tile holds every residue; only a short last one may differ
        }
        long intervals = ceilDiv(dims.seqKv(), stride) + 1L;
        return row(1 + 2 * intervals, nkv);
    }

    /** i in G or j in G: columns change pattern at g and g + 1. */
    private Row global(IntArray g) {
        Breakpoints bp = new Breakpoints();
        long tilesWithGlobalColumn = 0;
        int lastTile = -1;
        boolean globalRow = false;
        for (int x = 0; x < g.size(); x++) {
            int t = g.get(x);
            bp.add(t);
            bp.add(t + 1L);
            globalRow |= t < dims.seqQ();
            if (t < dims.seqKv() && t / blockKv != lastTile) {
                lastTile = t / blockKv;
                tilesWithGlobalColumn++;
            }
        }
        return row(1 + 2 * bp.tiles, globalRow ? nkv : tilesWithGlobalColumn);
    }

    /** Documents: columns change pattern where the key side's document changes. */
    private Row documents(Mask.Documents d) {
        long most = 0;
        for (Mask.Segments s : d.perBatch()) {
            Breakpoints bp = new Breakpoints();
            if (s instanceof Mask.Lengths l) {
                long end = 0;
                for (int x = 0; x < l.lengths().size(); x++) {
                    end += l.lengths().get(x);
                    bp.add(end);
                }
            } else {
                IntArray kv = ((Mask.SegmentIds) s).kv();
                for (int j = 1; j < kv.size(); j++) {
                    if (kv.get(j) != kv.get(j - 1)) {
                        bp.add(j);
                    }
                }
            }
            most = Math.max(most, bp.tiles);
        }
        return row(1 + 2 * most, nkv);
    }

    /** Listed blocks of width blockKv': their edges are the breakpoints; {@code listed} counts them for one row. */
    private Row blockSet(long listed, int listedBlockKv) {
        long edgesTiles = Math.min(nkv, Bytes.times(2, listed));
        return row(1 + 2 * edgesTiles, Bytes.times(listed, ceilDiv(listedBlockKv, blockKv) + 1L));
    }

    /** The most blocks listed in the mask rows that one q-block row (the last, or any other) overlaps. */
    private long listedPerRow(int listedBlockQ, List<IntArray> rows, boolean lastRow) {
        long[] prefix = new long[rows.size() + 1];
        for (int r = 0; r < rows.size(); r++) {
            prefix[r + 1] = prefix[r] + rows.get(r).size();
        }
        int from = lastRow ? nq - 1 : 0;
        long lastListedToken = (long) rows.size() * listedBlockQ; // rows past the list are empty
        int to = lastRow ? nq - 1 : (int) Math.min(nq - 2L, lastListedToken / blockQ);
        long most = 0;
        for (int r = from; r <= to; r++) {
            long q0 = (long) r * blockQ;
            long q1 = Math.min(dims.seqQ(), q0 + blockQ);
            int first = (int) Math.min(rows.size(), q0 / listedBlockQ);
            int last = (int) Math.min(rows.size(), (q1 - 1) / listedBlockQ + 1);
            most = Math.max(most, prefix[last] - prefix[first]);
        }
        return most;
    }

    /** and / or: the children's boundaries, plus two for every tile where two or more children are PARTIAL. */
    private Row combine(List<Row> children) {
        long boundaries = 0;
        long partialSum = 0;
        long partialMost = 0;
        for (Row c : children) {
            boundaries = Bytes.add(boundaries, c.runs() - 1);
            partialSum = Bytes.add(partialSum, c.partial());
            partialMost = Math.max(partialMost, c.partial());
        }
        long undecided = Math.min(nkv, partialSum - partialMost);
        return row(Bytes.add(1 + boundaries, 2 * undecided), partialSum);
    }

    private Row row(long runs, long partial) {
        return new Row(Math.max(1, Math.min(nkv, runs)), Math.min(nkv, partial));
    }

    /** Distinct kv tiles holding a breakpoint (a column j in 1..Skv-1 whose pattern differs from j - 1's). */
    private final class Breakpoints {
        long tiles;
        private long lastTile = -1;

        /** Adds breakpoint {@code j}; breakpoints come in non-decreasing order. */
        void add(long j) {
            if (j >= 1 && j < dims.seqKv() && j / blockKv != lastTile) {
                lastTile = j / blockKv;
                tiles++;
            }
        }
    }

    /** The heap the bound leaves of one variant hold: drawn random blocks, copied lists, encoded segment ids. */
    long bindBytes(Mask m) {
        if (m instanceof Mask.RandomBlocks r) {
            long rows = ceilDiv(dims.seqQ(), r.blockQ());
            long kvBlocks = ceilDiv(dims.seqKv(), r.blockKv());
            long perRow = 16 + 4 * Math.min(r.perRow(), kvBlocks);
            return Bytes.add(Bytes.times(rows, perRow), NODE_BYTES + kvBlocks / 8 + 4 * kvBlocks);
        } else if (m instanceof Mask.BlockList l) {
            return listBytes(l.rows());
        } else if (m instanceof Mask.Painted p) {
            return listBytes(p.rows());
        } else if (m instanceof Mask.GlobalTokens g) {
            return NODE_BYTES + 4L * g.indices().size();
        } else if (m instanceof Mask.Documents d) {
            long total = NODE_BYTES;
            for (Mask.Segments s : d.perBatch()) {
                if (s instanceof Mask.Lengths l) {
                    total += 32L * (l.lengths().size() + 1);
                } else {
                    Mask.SegmentIds ids = (Mask.SegmentIds) s;
                    // a copy of each side, and run-length encoding that starts from one entry per token
                    total += 20L * (ids.q().size() + ids.kv().size());
                }
            }
            return total;
        } else if (m instanceof Mask.And a) {
            return childrenBytes(a.children());
        } else if (m instanceof Mask.Or o) {
            return childrenBytes(o.children());
        } else if (m instanceof Mask.Not n) {
            return NODE_BYTES + bindBytes(n.child());
        } else if (m instanceof Mask.PerHead p) {
            return childrenBytes(p.variants());
        }
        return NODE_BYTES;
    }

    private long childrenBytes(List<Mask> children) {
        long total = NODE_BYTES;
        for (Mask c : children) {
            total = Bytes.add(total, bindBytes(c));
        }
        return total;
    }

    private static long listBytes(List<IntArray> rows) {
        long total = NODE_BYTES;
        for (IntArray row : rows) {
            total += 16 + 4L * row.size();
        }
        return total;
    }

    private static int ceilDiv(int a, int b) {
        return (int) (((long) a + b - 1) / b);
    }

    private static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }
}
