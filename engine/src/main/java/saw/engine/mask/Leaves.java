package saw.engine.mask;

import java.util.Arrays;

/** The primitives as {@link Node.Leaf}s, each classifying any rectangle exactly from its bounds. */
final class Leaves {
    private Leaves() {}

    /** Attends iff lo <= j - i <= hi (causal: lo unbounded, hi = offset). */
    static final class Band extends Node.Leaf {
        final long lo;
        final long hi;

        Band(long lo, long hi) {
            this.lo = lo;
            this.hi = hi;
        }

        @Override
        boolean attends(int i, int j) {
            long d = (long) j - i;
            return d >= lo && d <= hi;
        }

        @Override
        int row(int i, int j0, int n) {
            return span(j0, n, i + lo, i + hi + 1);
        }

        @Override
        int classify(int q0, int q1, int k0, int k1) {
            long dMin = (long) k0 - (q1 - 1);
            long dMax = (long) (k1 - 1) - q0;
            if (dMax < lo || dMin > hi) {
                return EMPTY;
            }
            return dMin >= lo && dMax <= hi ? FULL : PARTIAL;
        }

        @Override
        long countRow(int i, int k0, int k1) {
            long from = Math.max(k0, i + lo);
            long to = Math.min(k1 - 1L, i + hi);
            return Math.max(0, to - from + 1);
        }
    }

    /** floor(i/chunk) == floor(j/chunk) and j <= i. */
    static final class Chunked extends Node.Leaf {
        final int chunk;

        Chunked(int chunk) {
            this.chunk = chunk;
        }

        @Override
        boolean attends(int i, int j) {
            return j <= i && i / chunk == j / chunk;
        }

        @Override
        int row(int i, int j0, int n) {
            return span(j0, n, (long) (i / chunk) * chunk, i + 1L);
        }

        @Override
        int classify(int q0, int q1, int k0, int k1) {
            int qa = q0 / chunk;
            int qb = (q1 - 1) / chunk;
            int ka = k0 / chunk;
            int kb = (k1 - 1) / chunk;
            if (qa == qb && ka == kb && qa == ka && k1 - 1 <= q0) {
                return FULL;
            }
            int lo = Math.max(qa, ka);
            int hi = Math.min(qb, kb);
            if (lo > hi) {
                return EMPTY;
            }
            if (hi - lo >= 2 || nonEmptyIn(lo, q1, k0) || nonEmptyIn(hi, q1, k0)) {
                return PARTIAL;
            }
            return EMPTY;
        }

        /** Whether chunk x holds an attending pair of the rectangle: its smallest column is <= its largest row. */
        private boolean nonEmptyIn(int x, int q1, int k0) {
            long maxRow = Math.min(q1 - 1L, (x + 1L) * chunk - 1);
            long minCol = Math.max(k0, (long) x * chunk);
            return minCol <= maxRow;
        }

        @Override
        long countRow(int i, int k0, int k1) {
            long from = Math.max(k0, (long) (i / chunk) * chunk);
            long to = Math.min(k1 - 1L, i);
            return Math.max(0, to - from + 1);
        }
    }

    /** j < prefix or j <= i. */
    static final class Prefix extends Node.Leaf {
        final int prefix;

        Prefix(int prefix) {
            this.prefix = prefix;
        }

        @Override
        boolean attends(int i, int j) {
            return j < prefix || j <= i;
        }

        @Override
        int row(int i, int j0, int n) {
            return span(j0, n, 0, Math.max(prefix, i + 1L));
        }

        @Override
        int classify(int q0, int q1, int k0, int k1) {
            if (k1 <= prefix || k1 - 1 <= q0) {
                return FULL;
            }
            if (k0 >= prefix && k0 > q1 - 1) {
                return EMPTY;
            }
            return PARTIAL;
        }

        @Override
        long countRow(int i, int k0, int k1) {
            long last = Math.max(prefix - 1L, i);
            return clamp(last + 1 - k0, 0, k1 - k0);
        }
    }

    /** j < count. */
    static final class Sinks extends Node.Leaf {
        final int count;

        Sinks(int count) {
            this.count = count;
        }

        @Override
        boolean attends(int i, int j) {
            return j < count;
        }

        @Override
        int row(int i, int j0, int n) {
            return span(j0, n, 0, count);
        }

        @Override
        int classify(int q0, int q1, int k0, int k1) {
            return k1 <= count ? FULL : k0 >= count ? EMPTY : PARTIAL;
        }

        @Override
        long countRow(int i, int k0, int k1) {
            return clamp((long) count - k0, 0, k1 - k0);
        }

        @Override
        long countTight(int q0, int q1, int k0, int k1) {
            return (q1 - q0) * countRow(q0, k0, k1);
        }
    }

    /** (i - j) mod stride == 0. */
    static final class Dilated extends Node.Leaf {
        final int stride;

        Dilated(int stride) {
            this.stride = stride;
        }

        @Override
        boolean attends(int i, int j) {
            return Math.floorMod((long) i - j, stride) == 0;
        }

        @Override
        int row(int i, int j0, int n) {
            int w = 0;
            for (int b = Math.floorMod((long) i - j0, stride); b < n; b += stride) {
                w |= 1 << b;
            }
            return w;
        }

        @Override
        int classify(int q0, int q1, int k0, int k1) {
            long dMin = (long) q0 - (k1 - 1);
            long dMax = (long) (q1 - 1) - k0;
            boolean any = Math.floorDiv(dMax, stride) * stride >= dMin;
            if (!any) {
                return EMPTY;
            }
            return stride == 1 || dMin == dMax ? FULL : PARTIAL;
        }

        @Override
        long countRow(int i, int k0, int k1) {
            long r = Math.floorMod(i, stride);
            return Math.floorDiv(k1 - 1L - r, stride) - Math.floorDiv(k0 - 1L - r, stride);
        }
    }

    /** i in G or j in G, G sorted. */
    static final class Global extends Node.Leaf {
        final int[] sorted;

        Global(int[] sorted) {
            this.sorted = sorted;
        }

        private boolean contains(int x) {
            return Arrays.binarySearch(sorted, x) >= 0;
        }

        private int countIn(int from, int to) {
            return lowerBound(sorted, to) - lowerBound(sorted, from);
        }

        @Override
        boolean attends(int i, int j) {
            return contains(i) || contains(j);
        }

        @Override
        int row(int i, int j0, int n) {
            if (contains(i)) {
                return low(n);
            }
            int w = 0;
            for (int x = lowerBound(sorted, j0); x < sorted.length && sorted[x] < j0 + n; x++) {
                w |= 1 << (sorted[x] - j0);
            }
            return w;
        }

        @Override
        int classify(int q0, int q1, int k0, int k1) {
            int cq = countIn(q0, q1);
            int ck = countIn(k0, k1);
            if (cq == q1 - q0 || ck == k1 - k0) {
                return FULL;
            }
            return cq == 0 && ck == 0 ? EMPTY : PARTIAL;
        }

        @Override
        long countRow(int i, int k0, int k1) {
            return contains(i) ? k1 - k0 : countIn(k0, k1);
        }

        @Override
        long countTight(int q0, int q1, int k0, int k1) {
            long cq = countIn(q0, q1);
            long ck = countIn(k0, k1);
            return cq * (k1 - k0) + (q1 - q0 - cq) * ck;
        }
    }

    /** Block (i / blockQ, j / blockKv) attends iff listed; rows[r] sorted, rows past the end list nothing. */
    static final class BlockSet extends Node.Leaf {
        final int blockQ;
        final int blockKv;
        final int[][] rows;

        BlockSet(int blockQ, int blockKv, int[][] rows) {
            this.blockQ = blockQ;
            this.blockKv = blockKv;
            this.rows = rows;
        }

        private int[] row(int r) {
            return r < rows.length ? rows[r] : EMPTY_ROW;
        }

        @Override
        boolean attends(int i, int j) {
            return Arrays.binarySearch(row(i / blockQ), j / blockKv) >= 0;
        }

        @Override
        int row(int i, int j0, int n) {
            int[] listed = row(i / blockQ);
            int w = 0;
            for (int x = lowerBound(listed, j0 / blockKv); x < listed.length && (long) listed[x] * blockKv < j0 + n; x++) {
                w |= span(j0, n, (long) listed[x] * blockKv, (listed[x] + 1L) * blockKv);
            }
            return w;
        }

        @Override
        int classify(int q0, int q1, int k0, int k1) {
            int kbA = k0 / blockKv;
            int kbB = (k1 - 1) / blockKv;
            int width = kbB - kbA + 1;
            boolean any = false;
            boolean all = true;
            for (int r = q0 / blockQ, rEnd = (q1 - 1) / blockQ; r <= rEnd; r++) {
                int[] listed = row(r);
                int c = lowerBound(listed, kbB + 1) - lowerBound(listed, kbA);
                any |= c > 0;
                all &= c == width;
                if (any && !all) {
                    return PARTIAL;
                }
                if (r >= rows.length && !any) {
                    return EMPTY;
                }
            }
            return all ? FULL : any ? PARTIAL : EMPTY;
        }

        @Override
        long countRow(int i, int k0, int k1) {
            return columnsIn(row(i / blockQ), k0, k1);
        }

        private long columnsIn(int[] listed, int k0, int k1) {
            long total = 0;
            for (int x = lowerBound(listed, k0 / blockKv); x < listed.length; x++) {
                long from = Math.max(k0, (long) listed[x] * blockKv);
                long to = Math.min(k1, (listed[x] + 1L) * blockKv);
                if (from >= k1) {
                    break;
                }
                total += Math.max(0, to - from);
            }
            return total;
        }

        @Override
        long countTight(int q0, int q1, int k0, int k1) {
            long total = 0;
            for (int r = q0 / blockQ, rEnd = Math.min((q1 - 1) / blockQ, rows.length - 1); r <= rEnd; r++) {
                long rowsHere = Math.min(q1, (r + 1L) * blockQ) - Math.max(q0, (long) r * blockQ);
                total += rowsHere * columnsIn(rows[r], k0, k1);
            }
            return total;
        }

        private static final int[] EMPTY_ROW = new int[0];
    }

    /**
     * seg(i) == seg(j) and seg(i) != -1, with the ids of each side run-length encoded: run x covers
     * [starts[x], starts[x+1]) with id ids[x]. Lengths-based documents share one encoding for both sides.
     */
    static final class Segmented extends Node.Leaf {
        /** Above this many runs per side, the id sets of a rectangle are not compared one by one. */
        private static final int SMALL_RUNS = 32;
        final Runs q;
        final Runs kv;
        /** Both sides hold the same non-decreasing ids (padding, -1, only at the end), as lengths give. */
        final boolean sharedMonotone;

        Segmented(Runs q, Runs kv, boolean sharedMonotone) {
            this.q = q;
            this.kv = kv;
            this.sharedMonotone = sharedMonotone;
        }

        @Override
        boolean attends(int i, int j) {
            int a = q.idAt(i);
            return a != -1 && a == kv.idAt(j);
        }

        @Override
        int row(int i, int j0, int n) {
            int a = q.idAt(i);
            if (a == -1 || j0 >= kv.length) {
                return 0;
            }
            int w = 0;
            for (int y = kv.runOf(j0); y < kv.starts.length && kv.starts[y] < j0 + n; y++) {
                if (kv.ids[y] == a) {
                    w |= span(j0, n, kv.starts[y], kv.end(y));
                }
            }
            return w;
        }

        @Override
        int classify(int q0, int q1, int k0, int k1) {
            int ra = q.runOf(q0);
            int rb = q.runOf(q1 - 1);
            int sa = kv.runOf(k0);
            int sb = kv.runOf(k1 - 1);
            if (ra == rb && sa == sb) {
                int id = q.ids[ra];
                return id != -1 && id == kv.ids[sa] ? FULL : EMPTY;
            }
            if (sharedMonotone) {
                int lo = Math.max(q.ids[ra], kv.ids[sa]);
                int hi = Math.min(lastRealId(q, ra, rb), lastRealId(kv, sa, sb));
                return lo == -1 || hi == -1 || lo > hi ? EMPTY : PARTIAL;
            }
            if (rb - ra < SMALL_RUNS && sb - sa < SMALL_RUNS) {
                for (int x = ra; x <= rb; x++) {
                    int id = q.ids[x];
                    if (id == -1) {
                        continue;
                    }
                    for (int y = sa; y <= sb; y++) {
                        if (kv.ids[y] == id) {
                            return PARTIAL;
                        }
                    }
                }
                return EMPTY;
            }
            return UNKNOWN;
        }

        private static int lastRealId(Runs runs, int from, int to) {
            for (int x = to; x >= from; x--) {
                if (runs.ids[x] != -1) {
                    return runs.ids[x];
                }
            }
            return -1;
        }

        @Override
        long countRow(int i, int k0, int k1) {
            int id = q.idAt(i);
            return id == -1 ? 0 : kv.overlapWithId(id, k0, k1);
        }

        @Override
        long countTight(int q0, int q1, int k0, int k1) {
            long total = 0;
            for (int x = q.runOf(q0), end = q.runOf(q1 - 1); x <= end; x++) {
                int id = q.ids[x];
                if (id == -1) {
                    continue;
                }
                long rowsHere = Math.min(q1, q.end(x)) - Math.max(q0, q.starts[x]);
                total += rowsHere * kv.overlapWithId(id, k0, k1);
            }
            return total;
        }
    }

    /** Run-length encoded segment ids over [0, length). */
    static final class Runs {
        final int[] starts;
        final int[] ids;
        final int length;

        Runs(int[] starts, int[] ids, int length) {
            this.starts = starts;
            this.ids = ids;
            this.length = length;
        }

        static Runs ofLengths(int[] lengths, int length) {
            int[] s = new int[lengths.length + 1];
            int[] id = new int[lengths.length + 1];
            int n = 0;
            int pos = 0;
            for (int d = 0; d < lengths.length && pos < length; d++) {
                if (lengths[d] == 0) {
                    continue;
                }
                s[n] = pos;
                id[n++] = d;
                pos += lengths[d];
            }
            if (pos < length || n == 0) {
                s[n] = Math.min(pos, length);
                id[n++] = -1;
            }
            return new Runs(Arrays.copyOf(s, n), Arrays.copyOf(id, n), length);
        }

        static Runs ofIds(int[] perToken) {
            int[] s = new int[perToken.length];
            int[] id = new int[perToken.length];
            int n = 0;
            for (int t = 0; t < perToken.length; t++) {
                if (n == 0 || id[n - 1] != perToken[t]) {
                    s[n] = t;
                    id[n++] = perToken[t];
                }
            }
            return new Runs(Arrays.copyOf(s, n), Arrays.copyOf(id, n), perToken.length);
        }

        int end(int run) {
            return run + 1 < starts.length ? starts[run + 1] : length;
        }

        int runOf(int pos) {
            int x = Arrays.binarySearch(starts, pos);
            return x >= 0 ? x : -x - 2;
        }

        int idAt(int pos) {
            return pos < length ? ids[runOf(pos)] : -1;
        }

        long overlapWithId(int id, int k0, int k1) {
            long total = 0;
            for (int y = runOf(k0), end = runOf(k1 - 1); y <= end; y++) {
                if (ids[y] == id) {
                    total += Math.min(k1, end(y)) - Math.max(k0, starts[y]);
                }
            }
            return total;
        }

        boolean monotoneWithTrailingPadding() {
            boolean padding = false;
            for (int x = 0; x < ids.length; x++) {
                if (ids[x] == -1) {
                    padding = true;
                } else if (padding || (x > 0 && ids[x] < ids[x - 1])) {
                    return false;
                }
            }
            return true;
        }
    }

    /** The index of the first element >= key in a sorted array. */
    static int lowerBound(int[] sorted, int key) {
        int lo = 0;
        int hi = sorted.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (sorted[mid] < key) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
