package saw.engine.cpu;

import saw.engine.attention.AttentionBackend;
import saw.engine.attention.AttentionInputs;
import saw.engine.attention.AttentionOutputs;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.FloatArrays;
import saw.engine.attention.PartialAttention;
import saw.engine.attention.Pass;
import saw.engine.attention.TileLists;
import saw.engine.guard.SizeGuard;
import saw.engine.mask.TileLayout;

/**
 * The multithreaded fp32 block-sparse CPU implementation, so charts and tests work without a GPU. Timing uses the
 * wall clock around one pass on the common fork-join pool.
 */
public final class CpuBackend implements AttentionBackend.SinkTiming, PartialAttention {
    @Override
    public String name() {
        return "cpu";
    }

    @Override
    public String device() {
        return "CPU, " + Runtime.getRuntime().availableProcessors() + " threads";
    }

    @Override
    public AttentionOutputs forward(AttentionInputs in, TileLayout layout) {
        AttentionProblem p = in.problem();
        SizeGuard.cpuRun(p, layout, Pass.FWD).orThrow();
        BlockSparseCpu kernel = new BlockSparseCpu(p, TileLists.of(p, layout), sinksOf(in));
        float[] o = new float[(int) AttentionInputs.qSize(p)];
        float[] lse = new float[p.batch() * p.heads() * p.seqQ()];
        kernel.forward(FloatArrays.copyOf(in.q()), FloatArrays.copyOf(in.k()),
                FloatArrays.copyOf(in.v()), o, lse);
        return AttentionOutputs.forward(o, lse);
    }

    @Override
    public AttentionOutputs forwardBackward(AttentionInputs in, TileLayout layout) {
        AttentionProblem p = in.requireGradient().problem();
        SizeGuard.cpuRun(p, layout, Pass.BWD).orThrow();
        float[] sinks = sinksOf(in);
        BlockSparseCpu kernel = new BlockSparseCpu(p, TileLists.of(p, layout), sinks);
        Tensors x = new Tensors(in);
        float[] dsink = sinks == null ? null : new float[p.heads()];
        kernel.forward(x.q, x.k, x.v, x.o, x.lse);
        kernel.backward(x.q, x.k, x.v, x.dO, x.o, x.lse, x.dq, x.dk, x.dv, dsink);
        AttentionOutputs out = AttentionOutputs.withGradients(x.o, x.lse, x.dq, x.dk, x.dv);
        return dsink == null ? out : out.withSinkGradient(dsink);
    }

    @Override
    public AttentionOutputs backward(AttentionInputs in, TileLayout layout, AttentionOutputs whole) {
        AttentionProblem p = in.requireGradient().problem();
        SizeGuard.cpuRun(p, layout, Pass.BWD).orThrow();
        BlockSparseCpu kernel = new BlockSparseCpu(p, TileLists.of(p, layout), null);
        Tensors x = new Tensors(in);
        whole.get(AttentionOutputs.Output.O).get(x.o);
        whole.get(AttentionOutputs.Output.LSE).get(x.lse);
        kernel.backward(x.q, x.k, x.v, x.dO, x.o, x.lse, x.dq, x.dk, x.dv, null);
        return AttentionOutputs.withGradients(x.o, x.lse, x.dq, x.dk, x.dv);
    }

    /** With {@code sinks}, the forward folds them into each row's denominator and the backward adds dSink. */
    @Override
    public PreparedRun prepare(AttentionProblem problem, TileLayout layout, Pass pass, long seed, boolean sinks) {
        SizeGuard.cpuRun(problem, layout, pass).orThrow();
        AttentionInputs in = AttentionInputs.random(problem, seed, pass == Pass.BWD);
        float[] sinkLogits = sinks ? AttentionInputs.randomSinks(problem.heads(), seed) : null;
        float[] dsink = sinks && pass == Pass.BWD ? new float[problem.heads()] : null;
        BlockSparseCpu kernel = new BlockSparseCpu(problem, TileLists.of(problem, layout), sinkLogits);
        Tensors x = new Tensors(in);
        if (pass == Pass.BWD) {
            kernel.forward(x.q, x.k, x.v, x.o, x.lse);
        }
        return new PreparedRun() {
            @Override
            public String kernelName() {
                return "cpu_" + pass.label() + "_fp32_q" + layout.blockQ() + "_kv" + layout.blockKv() + (sinks ? "_sinks" : "");
            }

            @Override
            public double runTimedMs() {
                long t0 = System.nanoTime();
                if (pass == Pass.FWD) {
                    kernel.forward(x.q, x.k, x.v, x.o, x.lse);
                } else {
                    kernel.backward(x.q, x.k, x.v, x.dO, x.o, x.lse, x.dq, x.dk, x.dv, dsink);
                }
                return (System.nanoTime() - t0) / 1e6;
            }

            @Override
            public void close() {
            }
        };
    }

    @Override
    public void close() {
    }

    private static float[] sinksOf(AttentionInputs in) {
        return in.hasSinks() ? FloatArrays.copyOf(in.sinks()) : null;
    }

    /** Working arrays of one problem. */
    private static final class Tensors {
        final float[] q;
        final float[] k;
        final float[] v;
        final float[] dO;
        final float[] o;
        final float[] lse;
        final float[] dq;
        final float[] dk;
        final float[] dv;

        Tensors(AttentionInputs in) {
            AttentionProblem p = in.problem();
            q = FloatArrays.copyOf(in.q());
            k = FloatArrays.copyOf(in.k());
            v = FloatArrays.copyOf(in.v());
            dO = in.hasGradient() ? FloatArrays.copyOf(in.dO()) : null;
            o = new float[q.length];
            lse = new float[p.batch() * p.heads() * p.seqQ()];
            dq = dO == null ? null : new float[q.length];
            dk = dO == null ? null : new float[k.length];
            dv = dO == null ? null : new float[v.length];
        }
    }
}
