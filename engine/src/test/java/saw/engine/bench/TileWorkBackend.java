package saw.engine.bench;

import java.util.SplittableRandom;
import saw.engine.attention.AttentionBackend;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.Pass;
import saw.engine.mask.TileLayout;

/**
 * TEST DOUBLE, not attention: a backend whose "kernel" does real CPU work proportional to the visited tiles (one
 * blockQ x blockKv x headDim multiply-add block per visited tile, on one batch entry and head), so sweeps in tests
 * take measurable, mask-dependent time. It refuses head dims in {@code refusedHeadDims} the way a real backend
 * refuses what it cannot run, and counts what it was asked to do.
 */
public final class TileWorkBackend implements AttentionBackend {
    private final int refusedHeadDim;
    int prepared;
    int runs;
    boolean closed;

    public TileWorkBackend(int refusedHeadDim) {
        this.refusedHeadDim = refusedHeadDim;
    }

    @Override
    public String name() {
        return "test-double";
    }

    @Override
    public String device() {
        return "CPU (test double)";
    }

    @Override
    public PreparedRun prepare(AttentionProblem problem, TileLayout layout, Pass pass, long seed) {
        if (problem.headDim() == refusedHeadDim) {
            throw new IllegalArgumentException("head dim " + refusedHeadDim + " is not supported by the test double");
        }
        prepared++;
        int bq = layout.blockQ();
        int bkv = layout.blockKv();
        int d = problem.headDim();
        SplittableRandom rnd = new SplittableRandom(seed);
        float[] q = new float[bq * d];
        float[] k = new float[bkv * d];
        for (int i = 0; i < q.length; i++) {
            q[i] = (float) rnd.nextDouble(-1, 1);
        }
        for (int i = 0; i < k.length; i++) {
            k[i] = (float) rnd.nextDouble(-1, 1);
        }
        long visited = layout.grid(0, 0).count(saw.engine.mask.TileClass.PARTIAL)
                + layout.grid(0, 0).count(saw.engine.mask.TileClass.FULL);
        int repeats = pass == Pass.FWD ? 1 : 2;
        return new PreparedRun() {
            float sink;

            @Override
            public String kernelName() {
                return pass.label() + "_tilework_q" + bq + "_kv" + bkv;
            }

            @Override
            public double runTimedMs() {
                runs++;
                long t0 = System.nanoTime();
                float acc = 0;
                for (long t = 0; t < visited * repeats; t++) {
                    for (int i = 0; i < bq; i++) {
                        for (int j = 0; j < bkv; j++) {
                            float s = 0;
                            for (int x = 0; x < d; x++) {
                                s += q[i * d + x] * k[j * d + x];
                            }
                            acc += s;
                        }
                    }
                }
                sink += acc;
                return (System.nanoTime() - t0) / 1e6;
            }

            @Override
            public void close() {}
        };
    }

    @Override
    public void close() {
        closed = true;
    }
}
