package saw.app.cli;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.Pass;
import saw.engine.gpu.BackwardKernel;
import saw.engine.gpu.ForwardKernel;
import saw.engine.gpu.GpuBackend;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.TileLayout;

/**
 * The Hopper kernels against the mma.sync ones in one run (issue 6): B=4, H=16, bf16, D=128 (or the head dim given
 * with -Dsaw.timing.d), causal, window 1024, 8 packed causal documents and random blocks at 10/50/100 %. Forward
 * ({@code -Dsaw.timing.pass=fwd}, the default): mma at 128x64 and every Hopper family (wgmma-ws, wgmma-pp) at
 * 128x128; backward ({@code bwd}): mma and wgmma-ws at 128x128. Median of 20 event-timed runs after 3 warm-ups
 * (KernelTiming.time), useful TFLOP/s (the backward counts 2.5x the forward's FLOPs).
 * Run with: {@code java -cp 'lib/*' saw.app.cli.HopperTiming [S ...]}.
 */
public final class HopperTiming {
    private static final String[] MASKS = {"causal", "window1024", "docs8", "random10", "random50", "random100"};

    private HopperTiming() {}

    private record Variant(ForwardKernel fwd, BackwardKernel bwd, int blockQ, int blockKv) {
        boolean mma(Pass pass) {
            return pass == Pass.FWD ? fwd == ForwardKernel.MMA : bwd == BackwardKernel.MMA;
        }
    }

    private static final Variant[] FORWARD = {
        new Variant(ForwardKernel.MMA, BackwardKernel.MMA, 128, 64),
        new Variant(ForwardKernel.WGMMA_WS, BackwardKernel.MMA, 128, 128),
        new Variant(ForwardKernel.WGMMA_PINGPONG, BackwardKernel.MMA, 128, 128)};

    private static final Variant[] BACKWARD = {
        new Variant(ForwardKernel.MMA, BackwardKernel.MMA, 128, 128),
        new Variant(ForwardKernel.MMA, BackwardKernel.WGMMA_WS, 128, 128)};

    public static void main(String[] args) {
        int[] seqs = args.length == 0 ? new int[] {8192, 16384} : Arrays.stream(args).mapToInt(Integer::parseInt).toArray();
        int d = Integer.getInteger("saw.timing.d", 128);
        Pass pass = Pass.valueOf(System.getProperty("saw.timing.pass", "fwd").toUpperCase(Locale.ROOT));
        Variant[] variants = pass == Pass.FWD ? FORWARD : BACKWARD;
        List<String> table = new ArrayList<>();
        table.add(String.format(Locale.ROOT, "%-10s %6s %4s %-32s %9s %8s %8s", "mask", "S", "D", "kernel", "median_ms", "TFLOP/s",
                "vs_mma"));
        try (GpuBackend gpu = GpuBackend.open()) {
            System.out.println("device: " + gpu.device());
            for (int s : seqs) {
                for (String name : MASKS) {
                    AttentionProblem p = AttentionProblem.of(4, 16, 16, s, s, d, DType.BF16);
                    double bestMma = Double.MAX_VALUE;
                    for (Variant v : variants) {
                        BoundMask bound = BoundMask.bind(mask(name, s, v.blockQ, v.blockKv), new Dims(s, s, 4, 16));
                        TileLayout layout = bound.compile(v.blockQ, v.blockKv);
                        double flops = p.forwardFlops(bound.attendedPairs()) * (pass == Pass.FWD ? 1 : 2.5);
                        gpu.forwardKernel(v.fwd);
                        gpu.backwardKernel(v.bwd);
                        KernelTiming.Timing timing = KernelTiming.time(gpu, p, layout, pass);
                        double ms = timing.median();
                        if (v.mma(pass)) {
                            bestMma = Math.min(bestMma, ms);
                        }
                        String line = String.format(Locale.ROOT, "%-10s %6d %4d %-32s %9.3f %8.1f %8s", name, s, d, timing.kernel(), ms,
                                flops / (ms * 1e-3) / 1e12, v.mma(pass) ? "" : String.format(Locale.ROOT, "%.2fx", bestMma / ms));
                        System.out.println(line);
                        table.add(line);
                    }
                }
            }
        }
        System.out.println();
        table.forEach(System.out::println);
    }

    /** Random blocks are drawn per tile size, like saw bench --density: the same density, not the same blocks. */
    private static Mask mask(String name, int s, int bq, int bkv) {
        if (name.startsWith("random")) {
            double density = Integer.parseInt(name.substring("random".length())) / 100.0;
            int nkv = (s + bkv - 1) / bkv;
            int perRow = (int) Math.max(1, Math.min(nkv, Math.round(density * nkv)));
            return new Mask.RandomBlocks(bq, bkv, perRow, 0);
        }
        return KernelTiming.mask(name, s);
    }
}
