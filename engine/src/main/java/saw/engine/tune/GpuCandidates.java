package saw.engine.tune;

import java.util.ArrayList;
import java.util.List;
import saw.engine.attention.AttentionBackend.PreparedRun;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.KernelTiles;
import saw.engine.attention.Pass;
import saw.engine.gpu.BackwardKernel;
import saw.engine.gpu.ForwardKernel;
import saw.engine.gpu.GpuBackend;
import saw.engine.mask.TileLayout;

/**
 * The GPU's candidates: mma.sync at every tile size, and where the Hopper kernels fit, each Hopper family at its
 * tile. The default is what {@code saw bench} runs untuned: the recommended tile with the configured families.
 */
public final class GpuCandidates implements CandidateRunner {
    private final GpuBackend gpu;

    public GpuCandidates(GpuBackend gpu) {
        this.gpu = gpu;
    }

    @Override
    public String identity() {
        return gpu.identity();
    }

    @Override
    public List<Candidate> candidates(AttentionProblem p, Pass pass) {
        List<Candidate> out = new ArrayList<>();
        for (KernelTiles t : GpuBackend.tileSizes()) {
            out.add(new Candidate(t, "mma"));
            if (gpu.hopperFits(p, t)) {
                if (pass == Pass.FWD) {
                    for (ForwardKernel f : ForwardKernel.values()) {
                        if (f != ForwardKernel.MMA) {
                            out.add(new Candidate(t, f.label()));
                        }
                    }
                } else {
                    for (BackwardKernel b : BackwardKernel.values()) {
                        if (b != BackwardKernel.MMA) {
                            out.add(new Candidate(t, b.label()));
                        }
                    }
                }
            } else if (pass == Pass.FWD) {
                for (ForwardKernel f : ForwardKernel.values()) {
                    if (gpu.q64HopperForwardFits(p, t, f)) {
                        out.add(new Candidate(t, f.label()));
                    }
                }
            } else if (gpu.wideHopperBackwardFits(p, t, BackwardKernel.WGMMA_WS)) {
                // the Hopper backward family runs the head dim 256 wgmma backward there: the family that selects it
                out.add(new Candidate(t, BackwardKernel.WGMMA_WS.label()));
            }
        }
        return out;
    }

    @Override
    public Candidate defaultCandidate(AttentionProblem p, Pass pass) {
        KernelTiles t = gpu.recommendedTiles(pass);
        String family = pass == Pass.FWD ? ForwardKernel.configured().label() : BackwardKernel.configured().label();
        return new Candidate(t, gpu.hopperFits(p, t) ? family : "mma");
    }

    @Override
    public PreparedRun prepare(Candidate c, AttentionProblem p, TileLayout layout, Pass pass, long seed,
            boolean sinks) {
        apply(gpu, c, pass);
        return gpu.prepare(p, layout, pass, seed, sinks);
    }

    /** Makes {@code gpu} run the candidate's family for this pass (the tile comes with the layout). */
    public static void apply(GpuBackend gpu, Candidate c, Pass pass) {
        if (pass == Pass.FWD) {
            gpu.forwardKernel(family(ForwardKernel.values(), c.family(), ForwardKernel::label));
        } else {
            gpu.backwardKernel(family(BackwardKernel.values(), c.family(), BackwardKernel::label));
        }
    }

    private static <E> E family(E[] all, String label, java.util.function.Function<E, String> name) {
        for (E e : all) {
            if (name.apply(e).equals(label)) {
                return e;
            }
        }
        throw new IllegalArgumentException("kernel family '" + label + "' is not one this build has");
    }
}
