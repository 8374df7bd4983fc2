package saw.engine.ring;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;
import saw.engine.mask.TileClass;
import saw.engine.mask.TileGrid;
import saw.engine.mask.TileLayout;

/**
 * Splits a compiled layout over a ring of devices. Work is counted exactly: FULL runs from their sizes, PARTIAL tiles
 * from the mask's exact pair count, every variant weighted by how many (batch, head) pairs use it.
 */
public final class RingPlanner {
    public static final int MIN_DEVICES = 2;
    public static final int MAX_DEVICES = 1024;

    private RingPlanner() {}

    /**
     * Plans {@code layout} over {@code devices} devices.
     *
     * @throws IllegalArgumentException when the device count is out of range, the sequence is too short to give
     *     every device a chunk (zigzag: two), or the query and key lengths differ (a ring shards one sequence)
     */
    public static RingPlan plan(TileLayout layout, int devices, RingScheme scheme, RingModel model) {
        if (devices < MIN_DEVICES || devices > MAX_DEVICES) {
            throw new IllegalArgumentException("devices must be in " + MIN_DEVICES + ".." + MAX_DEVICES + ", got " + devices);
        }
        int seq = layout.dims().seqQ();
        if (seq != layout.dims().seqKv()) {
            throw new IllegalArgumentException("a ring shards one sequence: the query length " + seq
                    + " must equal the key length " + layout.dims().seqKv());
        }
        int chunkTokens = Math.max(layout.blockQ(), layout.blockKv());
        int chunks = (int) ((seq + (long) chunkTokens - 1) / chunkTokens);
        if (chunks < devices) {
            throw new IllegalArgumentException(devices + " devices need at least " + devices + " chunks of " + chunkTokens
                    + " tokens; " + seq + " tokens make " + chunks);
        }
        if (scheme == RingScheme.ZIGZAG && chunks < 2 * devices) {
            throw new IllegalArgumentException("zigzag over " + devices + " devices needs at least " + 2 * devices
                    + " chunks of " + chunkTokens + " tokens; " + seq + " tokens make " + chunks);
        }
        Work work = new Work(layout);
        int[] owner = owners(scheme, chunks, devices, work, chunkTokens);
        return work.plan(scheme, devices, model, chunkTokens, owner);
    }

    static int[] owners(RingScheme scheme, int chunks, int devices, Work work, int chunkTokens) {
        int[] owner = new int[chunks];
        switch (scheme) {
            case CONTIGUOUS:
                for (int d = 0; d < devices; d++) {
                    Arrays.fill(owner, split(chunks, devices, d), split(chunks, devices, d + 1), d);
                }
                break;
            case ZIGZAG:
                for (int piece = 0; piece < 2 * devices; piece++) {
                    int d = piece < devices ? piece : 2 * devices - 1 - piece;
                    Arrays.fill(owner, split(chunks, 2 * devices, piece), split(chunks, 2 * devices, piece + 1), d);
                }
                break;
            case STRIPED:
                for (int c = 0; c < chunks; c++) {
                    owner[c] = c % devices;
                }
                break;
            default:
                return Balance.assign(work.chunkWork(chunkTokens, chunks), devices);
        }
        return owner;
    }

    /** Start of part {@code i} of {@code n} near-equal parts of {@code total}. */
    private static int split(int total, int n, int i) {
        return (int) ((long) total * i / n);
    }

    /** The layout's exact pair counts, walked once per variant and kept for the per-device split. */
    static final class Work {
        private final TileLayout layout;
        private final long[] mult;
        private final long[][] partialPairs;
        private final long[] rowPairs;

        Work(TileLayout layout) {
            this.layout = layout;
            this.mult = layout.mask().variantMultiplicity();
            int nq = layout.numQBlocks();
            this.rowPairs = new long[nq];
            this.partialPairs = new long[layout.variantCount()][];
            for (int v = 0; v < partialPairs.length; v++) {
                TileGrid g = layout.grid(v);
                long[] cache = new long[(int) g.count(TileClass.PARTIAL)];
                int idx = 0;
                for (int qb = 0; qb < nq; qb++) {
                    int rows = layout.qEnd(qb) - layout.qStart(qb);
                    long row = 0;
                    for (int r = 0; r < g.runCount(qb); r++) {
                        TileClass c = g.runClass(qb, r);
                        int a = g.runStart(qb, r);
                        int b = g.runEnd(qb, r);
                        if (c == TileClass.FULL) {
                            row += (long) rows * (layout.kvEnd(b - 1) - layout.kvStart(a));
                        } else if (c == TileClass.PARTIAL) {
                            for (int kb = a; kb < b; kb++) {
                                long n = layout.attendingInTile(v, qb, kb);
                                cache[idx++] = n;
                                row += n;
                            }
                        }
                    }
                    rowPairs[qb] += mult[v] * row;
                }
                partialPairs[v] = cache;
            }
        }

        /** Attended pairs of each chunk's queries against every key, all batch entries and heads. */
        long[] chunkWork(int chunkTokens, int chunks) {
            long[] w = new long[chunks];
            for (int qb = 0; qb < rowPairs.length; qb++) {
                w[(int) ((long) layout.qStart(qb) / chunkTokens)] += rowPairs[qb];
            }
            return w;
        }

        RingPlan plan(RingScheme scheme, int n, RingModel model, int chunkTokens, int[] owner) {
            int nq = layout.numQBlocks();
            int nkv = layout.numKvBlocks();
            int[] qOwner = new int[nq];
            for (int qb = 0; qb < nq; qb++) {
                qOwner[qb] = owner[(int) ((long) layout.qStart(qb) / chunkTokens)];
            }
            int[] kvOwner = new int[nkv];
            for (int kb = 0; kb < nkv; kb++) {
                kvOwner[kb] = owner[(int) ((long) layout.kvStart(kb) / chunkTokens)];
            }
            // prefix[e * (nkv + 1) + kb]: kv-blocks of shard e before kb, for long FULL runs
            int[] prefix = new int[n * (nkv + 1)];
            for (int e = 0; e < n; e++) {
                int base = e * (nkv + 1);
                for (int kb = 0; kb < nkv; kb++) {
                    prefix[base + kb + 1] = prefix[base + kb] + (kvOwner[kb] == e ? 1 : 0);
                }
            }
            int bkv = layout.blockKv();
            int lastCols = layout.kvEnd(nkv - 1) - layout.kvStart(nkv - 1);
            long[] pairs = new long[n * n];
            long[] full = new long[n * n];
            long[] partial = new long[n * n];
            for (int v = 0; v < layout.variantCount(); v++) {
                TileGrid g = layout.grid(v);
                long m = mult[v];
                long[] cache = partialPairs[v];
                int idx = 0;
                for (int qb = 0; qb < nq; qb++) {
                    long rows = layout.qEnd(qb) - layout.qStart(qb);
                    int d = qOwner[qb] * n;
                    for (int r = 0; r < g.runCount(qb); r++) {
                        TileClass c = g.runClass(qb, r);
                        int a = g.runStart(qb, r);
                        int b = g.runEnd(qb, r);
                        if (c == TileClass.PARTIAL) {
                            for (int kb = a; kb < b; kb++) {
                                int de = d + kvOwner[kb];
                                partial[de] += m;
                                pairs[de] += m * cache[idx++];
                            }
                        } else if (c == TileClass.FULL && b - a <= n) {
                            for (int kb = a; kb < b; kb++) {
                                int de = d + kvOwner[kb];
                                full[de] += m;
                                pairs[de] += m * rows * (layout.kvEnd(kb) - layout.kvStart(kb));
                            }
                        } else if (c == TileClass.FULL) {
                            for (int e = 0; e < n; e++) {
                                int base = e * (nkv + 1);
                                int cnt = prefix[base + b] - prefix[base + a];
                                full[d + e] += m * cnt;
                                pairs[d + e] += m * rows * cnt * bkv;
                            }
                            if (b == nkv) {
                                pairs[d + kvOwner[nkv - 1]] -= m * rows * (bkv - lastCols);
                            }
                        }
                    }
                }
            }
            long[] tokens = new long[n];
            int seq = layout.dims().seqQ();
            for (int ch = 0; ch < owner.length; ch++) {
                tokens[owner[ch]] += Math.min(seq, (long) (ch + 1) * chunkTokens) - (long) ch * chunkTokens;
            }
            int batch = layout.dims().batch();
            RingStep[] steps = new RingStep[n * n];
            for (int d = 0; d < n; d++) {
                for (int s = 0; s < n; s++) {
                    int e = Math.floorMod(d - s, n);
                    boolean passes = s < n - 1;
                    long send = passes ? model.shardBytes(tokens[e], batch) : 0;
                    long recv = passes ? model.shardBytes(tokens[Math.floorMod(d - s - 1, n)], batch) : 0;
                    int de = d * n + e;
                    steps[d * n + s] = new RingStep(d, s, e, passes ? (d + 1) % n : -1, passes ? Math.floorMod(d - 1, n) : -1,
                            pairs[de], full[de], partial[de], send, recv, model.computeMs(pairs[de]),
                            model.transferMs(Math.max(send, recv)));
                }
            }
            return new RingPlan(layout, scheme, n, model, chunkTokens, owner, steps);
        }
    }

    /**
     * Longest-processing-time-first with equal chunk counts, then swaps between the busiest and the idlest device
     * while a swap lowers the larger of the two.
     */
    static final class Balance {
        private Balance() {}

        static int[] assign(long[] work, int n) {
            int chunks = work.length;
            int cap = (chunks + n - 1) / n;
            Integer[] order = new Integer[chunks];
            for (int c = 0; c < chunks; c++) {
                order[c] = c;
            }
            Arrays.sort(order, (x, y) -> Long.compare(work[y], work[x]));
            long[] load = new long[n];
            int[] count = new int[n];
            int[] owner = new int[chunks];
            PriorityQueue<Integer> open = new PriorityQueue<>(n, (x, y) -> load[x] != load[y]
                    ? Long.compare(load[x], load[y]) : Integer.compare(x, y));
            for (int d = 0; d < n; d++) {
                open.add(d);
            }
            for (int c : order) {
                int d = open.poll();
                owner[c] = d;
                load[d] += work[c];
                if (++count[d] < cap) {
                    open.add(d);
                }
            }
            List<List<Integer>> held = new ArrayList<>();
            for (int d = 0; d < n; d++) {
                held.add(new ArrayList<>());
            }
            for (int c = 0; c < chunks; c++) {
                held.get(owner[c]).add(c);
            }
            for (int iter = 0; iter < 20 * n; iter++) {
                int hi = 0;
                int lo = 0;
                for (int d = 1; d < n; d++) {
                    hi = load[d] > load[hi] ? d : hi;
                    lo = load[d] < load[lo] ? d : lo;
                }
                long gap = load[hi] - load[lo];
                int bestX = -1;
                int bestY = -1;
                long bestDelta = 0;
                for (int i = 0; i < held.get(hi).size(); i++) {
                    long wx = work[held.get(hi).get(i)];
                    for (int j = 0; j < held.get(lo).size(); j++) {
                        long delta = wx - work[held.get(lo).get(j)];
                        if (delta > 0 && delta < gap && Math.min(delta, gap - delta) > Math.min(bestDelta, gap - bestDelta)) {
                            bestDelta = delta;
                            bestX = i;
                            bestY = j;
                        }
                    }
                }
                if (bestX < 0) {
                    break;
                }
                int x = held.get(hi).get(bestX);
                int y = held.get(lo).get(bestY);
                held.get(hi).set(bestX, y);
                held.get(lo).set(bestY, x);
                owner[x] = lo;
                owner[y] = hi;
                load[hi] -= bestDelta;
                load[lo] += bestDelta;
            }
            return owner;
        }
    }
}
