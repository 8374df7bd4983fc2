package saw.engine.guard;

import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;
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
 * number of kv-blocks. Rows are bounded one by one where that is cheap, else by the most any row can have.
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

    /** Asks {@link #row} for a bound that holds for every row but the last. */
    static final int ANY_ROW = -1;
    /** Rows times mask nodes up to which runs are bounded row by row (tighter); above it, by the most of any row. */
    private static final long PER_ROW_WORK = 1L << 22;

    private final Dims dims;
    private final int blockKv;
    private final int blockQ;
    private final int nq;
    private final int nkv;
    private final int lastHeight;
    /** What leaves need for every row (sorted indices, prefix sums), found once per leaf. */
    private final Map<Object, Object> facts = new IdentityHashMap<>();

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
        return sumOverRows(variant, Row::runs);
    }

    /**
     * Most tiles of one variant that compiling classifies one by one: the PARTIAL tiles and the tiles where runs
     * change. Compile time grows with it; the rest of a row is decided a whole range at a time.
     */
    long tilesClassified(Mask variant) {
        return sumOverRows(variant, b -> Math.min(nkv, b.runs() + b.partial()));
    }

    private long sumOverRows(Mask variant, ToLongFunction<Row> of) {
        if (dependsOnRow(variant) && (long) nq * nodes(variant) <= PER_ROW_WORK) {
            long total = 0;
            for (int r = 0; r < nq; r++) {
                total += of.applyAsLong(row(variant, r));
            }
            return total;
        }
        long last = of.applyAsLong(row(variant, nq - 1));
        return nq == 1 ? last : Bytes.add(Bytes.times(nq - 1, of.applyAsLong(row(variant, ANY_ROW))), last);
    }

    /** {@link #tilesClassified} summed over the variants of {@code mask}. */
    static long tilesClassified(Mask mask, Dims dims, int blockQ, int blockKv) {
        LayoutBound b = new LayoutBound(dims, blockQ, blockKv);
        long total = 0;
        for (Mask variant : BoundMask.variantMasks(mask, dims)) {
            total = Bytes.add(total, b.tilesClassified(variant));
        }
        return total;
    }

    /** The bound for q-block row {@code r}, or with {@link #ANY_ROW} for every row but the last. */
    Row row(Mask m, int r) {
        int h = r == ANY_ROW ? blockQ : height(r);
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
            return global(g, r);
        } else if (m instanceof Mask.Documents d) {
            return documents(d, r);
        } else if (m instanceof Mask.RandomBlocks rb) {
            int rows = ceilDiv(dims.seqQ(), rb.blockQ());
            long touched = Math.min(rows, ceilDiv(h, rb.blockQ()) + 1L);
            long listed = touched * Math.min(rb.perRow(), ceilDiv(dims.seqKv(), rb.blockKv()));
            return blockSet(listed, 2 * listed, rb.blockKv());
        } else if (m instanceof Mask.BlockList l) {
            return blockSet(l, l.blockQ(), l.blockKv(), l.rows(), r);
        } else if (m instanceof Mask.Painted p) {
            return blockSet(p, p.blockQ(), p.blockKv(), p.rows(), r);
        } else if (m instanceof Mask.And a) {
            return combine(a.children().stream().map(c -> row(c, r)).toList());
        } else if (m instanceof Mask.Or o) {
            return combine(o.children().stream().map(c -> row(c, r)).toList());
        } else if (m instanceof Mask.Not n) {
            return row(n.child(), r);
        } else if (m instanceof Mask.PerHead p) {
            // resolved before bounding; were one left, each head uses one of these, so the largest bound holds
            Row most = row(1, 0);
            for (Mask v : p.variants()) {
                Row b = row(v, r);
                most = row(Math.max(most.runs(), b.runs()), Math.max(most.partial(), b.partial()));
            }
            return most;
        }
        throw new IllegalStateException("no bound for " + m.getClass().getSimpleName());
    }

    private int height(int r) {
        return r == nq - 1 ? lastHeight : blockQ;
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

    /** i in G or j in G: columns change pattern at g and g + 1; a row with a global query attends everywhere. */
    private Row global(Mask.GlobalTokens g, int r) {
        GlobalFacts f = (GlobalFacts) facts.computeIfAbsent(g, x -> new GlobalFacts(g.indices()));
        boolean globalRow;
        if (r == ANY_ROW) {
            globalRow = f.firstIndex < dims.seqQ();
        } else {
            int q0 = r * blockQ;
            int x = lowerBound(f.sorted, q0);
            globalRow = x < f.sorted.length && f.sorted[x] < q0 + height(r);
        }
        return row(1 + 2 * f.breakpointTiles, globalRow ? nkv : f.tilesWithGlobalColumn);
    }

    /** What {@link #global} needs of a global token set, found once. */
    private final class GlobalFacts {
        final int[] sorted;
        final int firstIndex;
        final long breakpointTiles;
        final long tilesWithGlobalColumn;

        GlobalFacts(IntArray indices) {
            sorted = indices.toArray();
            firstIndex = sorted.length == 0 ? Integer.MAX_VALUE : sorted[0];
            Breakpoints bp = new Breakpoints();
            long withColumn = 0;
            long lastTile = -1;
            for (int t : sorted) {
                bp.add(t);
                bp.add(t + 1L);
                if (t < dims.seqKv() && t / blockKv != lastTile) {
                    lastTile = t / blockKv;
                    withColumn++;
                }
            }
            breakpointTiles = bp.tiles;
            tilesWithGlobalColumn = withColumn;
        }
    }

    /**
     * Documents: columns change pattern only at the edges of the documents the row's queries belong to (columns of
     * other documents are attended by none of them), and, for segment ids, where the key side's id changes.
     */
    private Row documents(Mask.Documents d, int r) {
        long most = 0;
        for (Mask.Segments s : d.perBatch()) {
            if (s instanceof Mask.Lengths l) {
                LengthFacts f = (LengthFacts) facts.computeIfAbsent(l, x -> new LengthFacts(l.lengths()));
                long touched = r == ANY_ROW ? f.mostTouched : f.touched(r);
                most = Math.max(most, Math.min(nkv, 2 * touched));
            } else {
                Long tiles = (Long) facts.computeIfAbsent(s, x -> idChangeTiles(((Mask.SegmentIds) s).kv()));
                most = Math.max(most, tiles);
            }
        }
        return row(1 + 2 * most, nkv);
    }

    private long idChangeTiles(IntArray kv) {
        Breakpoints bp = new Breakpoints();
        for (int j = 1; j < kv.size(); j++) {
            if (kv.get(j) != kv.get(j - 1)) {
                bp.add(j);
            }
        }
        return bp.tiles;
    }

    /** Where consecutive documents start, and how many a q-block row can touch. */
    private final class LengthFacts {
        /** Distinct document boundaries strictly inside the query range, ascending. */
        final long[] inner;
        /** Most documents any row but the last touches. */
        final long mostTouched;

        LengthFacts(IntArray lengths) {
            long[] b = new long[lengths.size()];
            int n = 0;
            long end = 0;
            for (int x = 0; x < lengths.size(); x++) {
                end += lengths.get(x);
                if (end > 0 && end < dims.seqQ() && (n == 0 || b[n - 1] != end)) {
                    b[n++] = end;
                }
            }
            inner = Arrays.copyOf(b, n);
            long most = 1;
            for (int x = 0, y = 0; x < n; x = y) {
                long row = inner[x] / blockQ;
                y = x;
                long inside = 0;
                while (y < n && inner[y] / blockQ == row) {
                    inside += inner[y] % blockQ != 0 ? 1 : 0;
                    y++;
                }
                if (row < nq - 1) {
                    most = Math.max(most, inside + 1);
                }
            }
            mostTouched = most;
        }

        /** Documents (padding included) that q-block row {@code r} touches. */
        long touched(int r) {
            long q0 = (long) r * blockQ;
            long q1 = q0 + height(r);
            return 1 + lowerBound(inner, q1) - upperBound(inner, q0);
        }
    }

    /**
     * Listed blocks (block lists, painted cells) of width blockKv': the columns change pattern at the edges of each
     * touched row's runs of consecutive listed blocks.
     */
    private Row blockSet(Mask m, int listedBlockQ, int listedBlockKv, List<IntArray> rows, int r) {
        ListFacts f = (ListFacts) facts.computeIfAbsent(m, x -> new ListFacts(listedBlockQ, rows));
        if (r != ANY_ROW) {
            long q0 = (long) r * blockQ;
            long q1 = q0 + height(r);
            int first = (int) Math.min(rows.size(), q0 / listedBlockQ);
            int last = (int) Math.min(rows.size(), (q1 - 1) / listedBlockQ + 1);
            return blockSet(f.listed[last] - f.listed[first], f.edges[last] - f.edges[first], listedBlockKv);
        }
        long mostListed = 0;
        long mostEdges = 0;
        long lastListedToken = (long) rows.size() * listedBlockQ; // rows past the list are empty
        for (int row = 0, to = (int) Math.min(nq - 2L, lastListedToken / blockQ); row <= to; row++) {
            long q0 = (long) row * blockQ;
            int first = (int) Math.min(rows.size(), q0 / listedBlockQ);
            int last = (int) Math.min(rows.size(), (q0 + blockQ - 1) / listedBlockQ + 1);
            mostListed = Math.max(mostListed, f.listed[last] - f.listed[first]);
            mostEdges = Math.max(mostEdges, f.edges[last] - f.edges[first]);
        }
        return blockSet(mostListed, mostEdges, listedBlockKv);
    }

    private Row blockSet(long listed, long edges, int listedBlockKv) {
        long edgeTiles = Math.min(nkv, edges);
        return row(1 + 2 * edgeTiles, Bytes.times(listed, ceilDiv(listedBlockKv, blockKv) + 1L));
    }

    /** Prefix sums over a block list's rows: blocks listed, and edges of runs of consecutive blocks. */
    private static final class ListFacts {
        final long[] listed;
        final long[] edges;

        ListFacts(int listedBlockQ, List<IntArray> rows) {
            listed = new long[rows.size() + 1];
            edges = new long[rows.size() + 1];
            for (int r = 0; r < rows.size(); r++) {
                IntArray row = rows.get(r);
                long runs = 0;
                for (int x = 0; x < row.size(); x++) {
                    runs += x == 0 || row.get(x) != row.get(x - 1) + 1 ? 1 : 0;
                }
                listed[r + 1] = listed[r] + row.size();
                edges[r + 1] = edges[r] + 2 * runs;
            }
        }
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

    /** Whether some leaf's bound depends on where its row is, not only on its height. */
    private static boolean dependsOnRow(Mask m) {
        if (m instanceof Mask.BlockList || m instanceof Mask.Painted || m instanceof Mask.GlobalTokens) {
            return true;
        } else if (m instanceof Mask.Documents d) {
            return d.perBatch().stream().anyMatch(s -> s instanceof Mask.Lengths);
        } else if (m instanceof Mask.And a) {
            return a.children().stream().anyMatch(LayoutBound::dependsOnRow);
        } else if (m instanceof Mask.Or o) {
            return o.children().stream().anyMatch(LayoutBound::dependsOnRow);
        } else if (m instanceof Mask.Not n) {
            return dependsOnRow(n.child());
        } else if (m instanceof Mask.PerHead p) {
            return p.variants().stream().anyMatch(LayoutBound::dependsOnRow);
        }
        return false;
    }

    private static int nodes(Mask m) {
        int n = 1;
        if (m instanceof Mask.And a) {
            for (Mask c : a.children()) {
                n += nodes(c);
            }
        } else if (m instanceof Mask.Or o) {
            for (Mask c : o.children()) {
                n += nodes(c);
            }
        } else if (m instanceof Mask.Not x) {
            n += nodes(x.child());
        } else if (m instanceof Mask.PerHead p) {
            for (Mask c : p.variants()) {
                n += nodes(c);
            }
        }
        return n;
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

    private static int lowerBound(int[] sorted, int key) {
        int x = Arrays.binarySearch(sorted, key);
        return x >= 0 ? x : -x - 1;
    }

    /** Index of the first entry >= key, in a strictly increasing array. */
    private static int lowerBound(long[] sorted, long key) {
        int x = Arrays.binarySearch(sorted, key);
        return x >= 0 ? x : -x - 1;
    }

    /** Index of the first entry > key, in a strictly increasing array. */
    private static int upperBound(long[] sorted, long key) {
        int x = Arrays.binarySearch(sorted, key);
        return x >= 0 ? x + 1 : -x - 1;
    }

    private static int ceilDiv(int a, int b) {
        return (int) (((long) a + b - 1) / b);
    }

    private static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }
}
