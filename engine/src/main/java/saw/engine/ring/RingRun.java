package saw.engine.ring;

import java.util.Arrays;
import saw.engine.attention.AttentionBackend;
import saw.engine.attention.AttentionInputs;
import saw.engine.attention.AttentionOutputs;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.PartialAttention;
import saw.engine.attention.Pass;
import saw.engine.mask.TileLayout;

/**
 * A ring plan run on one device, part by part: every (device, step) sub-layout is one block-sparse launch, merged by
 * {@link LseMerge} as the ring would merge it; the backward takes the merged O and LSE and sums each part's
 * gradients. Skipped steps launch nothing.
 */
public final class RingRun {
    private RingRun() {}

    /** Called after each part, for progress. */
    public interface Progress {
        void done(int device, int step, int parts);
    }

    /** The merged outputs: O and LSE, and dQ, dK, dV when {@code backward}. */
    public static AttentionOutputs run(PartialAttention kernels, RingPlan plan, AttentionInputs in, boolean backward,
                                       Progress progress) {
        int n = plan.devices();
        AttentionProblem p = in.problem();
        TileLayout[] sub = new TileLayout[n * n];
        LseMerge merge = new LseMerge(p.batch() * p.heads() * p.seqQ(), p.headDim());
        int done = 0;
        for (int d = 0; d < n; d++) {
            for (int s = 0; s < n; s++) {
                if (!plan.step(d, s).skipped()) {
                    sub[d * n + s] = plan.subLayout(d, s);
                    merge.addForward(kernels.forward(in, sub[d * n + s]));
                }
                progress.done(d, s, ++done);
            }
        }
        if (!backward) {
            return merge.result();
        }
        AttentionOutputs whole = merge.result();
        for (int d = 0; d < n; d++) {
            for (int s = 0; s < n; s++) {
                if (sub[d * n + s] != null) {
                    merge.addGradients(kernels.backward(in, sub[d * n + s], whole));
                }
                progress.done(d, s, ++done);
            }
        }
        return merge.result();
    }

    /**
     * The median of {@code repeats} timed launches of every part's {@code pass}, ms, [device][step] (0 where
     * skipped), on the backend's own random inputs.
     */
    public static double[][] time(AttentionBackend backend, RingPlan plan, AttentionProblem p, Pass pass, int repeats,
                                  long seed, Progress progress) {
        int n = plan.devices();
        double[][] ms = new double[n][n];
        int done = 0;
        for (int d = 0; d < n; d++) {
            for (int s = 0; s < n; s++) {
                if (!plan.step(d, s).skipped()) {
                    ms[d][s] = medianMs(backend, p, plan.subLayout(d, s), pass, repeats, seed);
                }
                progress.done(d, s, ++done);
            }
        }
        return ms;
    }

    /** One warm-up launch, then the median of {@code repeats}. */
    public static double medianMs(AttentionBackend backend, AttentionProblem p, TileLayout layout, Pass pass, int repeats,
                                  long seed) {
        try (AttentionBackend.PreparedRun run = backend.prepare(p, layout, pass, seed)) {
            run.runTimedMs();
            double[] t = new double[repeats];
            for (int i = 0; i < repeats; i++) {
                t[i] = run.runTimedMs();
            }
            Arrays.sort(t);
            return t[repeats / 2];
        }
    }
}
