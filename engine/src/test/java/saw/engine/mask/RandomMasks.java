package saw.engine.mask;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongConsumer;
import java.util.function.LongPredicate;
import org.junit.jupiter.api.Assertions;

/** Seeded random masks and sizes for tests that compare the engine with brute force. */
public final class RandomMasks {
    private final SplittableRandom rnd;
    private final Dims dims;

    public RandomMasks(SplittableRandom rnd, Dims dims) {
        this.rnd = rnd;
        this.dims = dims;
    }

    /**
     * Runs {@code check} on {@code count} seeds drawn from {@code -Dsaw.test.seed} (else {@code defaultMaster}); a
     * failure names the case and the seed that replays it.
     */
    public static void forEachSeed(long defaultMaster, int count, LongConsumer check) {
        countPassing(defaultMaster, count, seed -> {
            check.accept(seed);
            return true;
        });
    }

    /** {@link #forEachSeed} for checks that may skip a case (returning false); how many they checked. */
    public static int countPassing(long defaultMaster, int count, LongPredicate check) {
        long master = Long.getLong("saw.test.seed", defaultMaster);
        int checked = 0;
        for (int n = 0; n < count; n++) {
            long seed = master * 1_000_003L + n;
            try {
                checked += check.test(seed) ? 1 : 0;
            } catch (AssertionError | RuntimeException e) {
                Assertions.fail("case " + n + " failed; replay with seed " + seed + ": " + e.getMessage(), e);
            }
        }
        return checked;
    }

    /**
     * A random composition of at most {@code depth} levels bound to random sizes of at most {@code maxSeq} tokens, or
     * null when {@link MaskChecks} refuses the draw (the caller skips the case).
     */
    public static BoundMask randomBound(SplittableRandom rnd, int maxSeq, int depth) {
        Dims dims = randomDims(rnd, maxSeq);
        Mask mask = new RandomMasks(rnd, dims).mask(depth);
        return MaskChecks.check(mask, dims).isEmpty() ? BoundMask.bind(mask, dims) : null;
    }

    public static Dims randomDims(SplittableRandom rnd, int maxSeq) {
        int sq = 1 + rnd.nextInt(maxSeq);
        int skv = rnd.nextInt(3) == 0 ? sq : 1 + rnd.nextInt(maxSeq);
        return new Dims(sq, skv, 1 + rnd.nextInt(3), 1 + rnd.nextInt(4));
    }

    public static int randomBlock(SplittableRandom rnd) {
        return 16 << rnd.nextInt(5);
    }

    public Mask mask(int depth) {
        int pick = rnd.nextInt(depth <= 0 ? 14 : 19);
        int longest = Math.max(dims.seqQ(), dims.seqKv());
        switch (pick) {
            case 0: return new Mask.Full();
            case 1: return new Mask.Causal(rnd.nextInt(41) - 20 + (rnd.nextBoolean() ? dims.seqKv() - dims.seqQ() : 0));
            case 2: return new Mask.SlidingWindow(rnd.nextInt(4) == 0 ? -1 : rnd.nextInt(80), rnd.nextInt(3) == 0 ? -1 : rnd.nextInt(40));
            case 3: return new Mask.ChunkedCausal(1 + rnd.nextInt(70));
            case 4: return new Mask.PrefixLm(rnd.nextInt(dims.seqKv() + 1));
            case 5: return documents();
            case 6: {
                int n = rnd.nextInt(6);
                int[] g = new int[n];
                for (int x = 0; x < n; x++) {
                    g[x] = rnd.nextInt(longest);
                }
                return rnd.nextBoolean() ? new Mask.GlobalTokens(IntArray.of(g)) : Mask.GlobalTokens.first(Math.min(longest, rnd.nextInt(8)));
            }
            case 7: return new Mask.Dilated(1 + rnd.nextInt(Math.min(longest, 9)));
            case 8: return new Mask.Sinks(rnd.nextInt(Math.min(dims.seqKv(), 20) + 1));
            case 9: {
                int bq = randomBlock(rnd);
                int bkv = randomBlock(rnd);
                int nkv = (dims.seqKv() + bkv - 1) / bkv;
                return new Mask.RandomBlocks(bq, bkv, rnd.nextInt(nkv + 1), rnd.nextLong());
            }
            case 10:
            case 11: {
                int bq = randomBlock(rnd);
                int bkv = randomBlock(rnd);
                int nq = (dims.seqQ() + bq - 1) / bq;
                int nkv = (dims.seqKv() + bkv - 1) / bkv;
                List<IntArray> rows = new ArrayList<>();
                for (int r = 0, n = rnd.nextInt(nq + 1); r < n; r++) {
                    int[] row = new int[rnd.nextInt(nkv + 1)];
                    for (int x = 0; x < row.length; x++) {
                        row[x] = rnd.nextInt(nkv);
                    }
                    rows.add(IntArray.of(row));
                }
                return pick == 10 ? new Mask.BlockList(bq, bkv, rows) : new Mask.Painted(bq, bkv, rows);
            }
            case 12: return new Mask.Causal(0);
            case 13: return new Mask.SlidingWindow(rnd.nextInt(50), 0);
            case 14: case 15: return new Mask.And(children(depth));
            case 16: return new Mask.Or(children(depth));
            case 17: return new Mask.Not(mask(depth - 1));
            default: {
                int n = 1 + rnd.nextInt(Math.min(3, dims.heads()));
                List<Mask> v = new ArrayList<>();
                for (int x = 0; x < n; x++) {
                    v.add(mask(depth - 1));
                }
                return new Mask.PerHead(v);
            }
        }
    }

    private List<Mask> children(int depth) {
        List<Mask> c = new ArrayList<>();
        for (int x = 0, n = 1 + rnd.nextInt(3); x < n; x++) {
            c.add(mask(depth - 1));
        }
        return c;
    }

    private Mask documents() {
        int kind = rnd.nextInt(3);
        if (kind == 2 && dims.batch() > 1) {
            List<Mask.Segments> per = new ArrayList<>();
            for (int b = 0; b < dims.batch(); b++) {
                per.add(segments(rnd.nextInt(2)));
            }
            return new Mask.Documents(per);
        }
        return new Mask.Documents(List.of(segments(kind % 2)));
    }

    private Mask.Segments segments(int kind) {
        if (kind == 0) {
            int longest = Math.max(dims.seqQ(), dims.seqKv());
            List<Integer> lengths = new ArrayList<>();
            int left = longest - rnd.nextInt(Math.max(1, longest / 4));
            while (left > 0 && lengths.size() < 12) {
                int l = rnd.nextInt(6) == 0 ? 0 : 1 + rnd.nextInt(Math.max(1, left));
                l = Math.min(l, left);
                lengths.add(l);
                left -= l;
            }
            return new Mask.Lengths(IntArray.of(lengths.stream().mapToInt(Integer::intValue).toArray()));
        }
        return new Mask.SegmentIds(ids(dims.seqQ()), ids(dims.seqKv()));
    }

    private IntArray ids(int n) {
        int[] ids = new int[n];
        boolean sorted = rnd.nextBoolean();
        int cur = 0;
        for (int t = 0; t < n; t++) {
            if (sorted) {
                if (rnd.nextInt(20) == 0) {
                    cur++;
                }
                ids[t] = rnd.nextInt(30) == 0 ? -1 : cur;
            } else {
                ids[t] = rnd.nextInt(4) - 1;
            }
        }
        return IntArray.of(ids);
    }
}
