package saw.app.cli;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import saw.engine.attention.AttentionBackend;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.KernelTiles;
import saw.engine.attention.Pass;
import saw.engine.gpu.GpuBackend;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.TileLayout;

/**
 * The first GPU timing table (issue 3), until {@code saw bench} exists: B=4, H=16, D=128, bf16 at S=8192 and
 * 16384 for causal, sliding window 1024 and 8 packed causal documents; forward and backward at several tile sizes,
 * median of 20 event-timed runs after 3 warm-ups. Useful TFLOP/s = 4*D*attended pairs / time (backward 2.5x).
 * Run with: {@code java -cp 'lib/*' saw.app.cli.KernelTiming [S ...]}.
 */
public final class KernelTiming {
    private static final int REPS = 20;
    private static final int WARMUP = 3;
    private static final String[] FWD_TILES = {"128x64", "128x128", "64x64", "128x32"};
    private static final String[] BWD_TILES = {"64x128", "128x128", "64x64", "128x64"};

    private KernelTiming() {}

    public static void main(String[] args) {
        int[] seqs = args.length == 0 ? new int[] {8192, 16384} : Arrays.stream(args).mapToInt(Integer::parseInt).toArray();
        List<String> table = new ArrayList<>();
        table.add(String.format(Locale.ROOT, "%-10s %6s %-4s %-8s %-32s %9s %9s %9s %8s", "mask", "S", "pass", "tile",
                "kernel", "median_ms", "p10_ms", "p90_ms", "TFLOP/s"));
        List<String> best = new ArrayList<>();
        try (GpuBackend gpu = GpuBackend.open()) {
            System.out.println("device: " + gpu.device());
            for (int s : seqs) {
                for (String name : new String[] {"causal", "window1024", "docs8"}) {
                    Mask mask = mask(name, s);
                    AttentionProblem p = AttentionProblem.of(4, 16, 16, s, s, 128, DType.BF16);
                    BoundMask bound = BoundMask.bind(mask, new Dims(s, s, 4, 16));
                    double flops = p.forwardFlops(bound.attendedPairs());
                    double[] bestMs = {Double.MAX_VALUE, Double.MAX_VALUE};
                    String[] bestTile = new String[2];
                    for (Pass pass : Pass.values()) {
                        for (String tile : pass == Pass.FWD ? FWD_TILES : BWD_TILES) {
                            KernelTiles t = KernelTiles.parse(tile);
                            TileLayout layout = bound.compile(t.blockQ(), t.blockKv());
                            Timing ms = time(gpu, p, layout, pass);
                            double passFlops = pass == Pass.FWD ? flops : 2.5 * flops;
                            String line = String.format(Locale.ROOT, "%-10s %6d %-4s %-8s %-32s %9.3f %9.3f %9.3f %8.1f", name, s,
                                    pass.label(), tile, ms.kernel, ms.median, ms.p10, ms.p90, passFlops / (ms.median * 1e-3) / 1e12);
                            System.out.println(line);
                            table.add(line);
                            if (ms.median < bestMs[pass.ordinal()]) {
                                bestMs[pass.ordinal()] = ms.median;
                                bestTile[pass.ordinal()] = tile;
                            }
                        }
                    }
                    best.add(String.format(Locale.ROOT, "%-10s %6d  fwd %7.3f ms %6.1f TFLOP/s (%s)  fwd+bwd %7.3f ms %6.1f TFLOP/s (bwd %s)",
                            name, s, bestMs[0], flops / (bestMs[0] * 1e-3) / 1e12, bestTile[0], bestMs[0] + bestMs[1],
                            3.5 * flops / ((bestMs[0] + bestMs[1]) * 1e-3) / 1e12, bestTile[1]));
                }
            }
        }
        System.out.println();
        table.forEach(System.out::println);
        System.out.println();
        System.out.println("best tile per pass (B=4 H=16 D=128 bf16):");
        best.forEach(System.out::println);
    }

    static Mask mask(String name, int s) {
        switch (name) {
            case "causal": return new Mask.Causal(0);
            case "window1024": return new Mask.SlidingWindow(1024, 0);
            default: {
                int[] lengths = new int[8];
                Arrays.fill(lengths, s / 8);
                return new Mask.And(List.of(new Mask.Causal(0), Mask.Documents.ofLengths(lengths)));
            }
        }
    }

    /** Event-timed runs of one prepared problem: the kernel that ran and the 10th, 50th and 90th percentile ms. */
    record Timing(String kernel, double p10, double median, double p90) {}

    static Timing time(GpuBackend gpu, AttentionProblem p, TileLayout layout, Pass pass) {
        try (AttentionBackend.PreparedRun run = gpu.prepare(p, layout, pass, 42)) {
            for (int i = 0; i < WARMUP; i++) {
                run.runTimedMs();
            }
            double[] ms = new double[REPS];
            for (int i = 0; i < REPS; i++) {
                ms[i] = run.runTimedMs();
            }
            Arrays.sort(ms);
            return new Timing(run.kernelName(), ms[REPS / 10], ms[REPS / 2], ms[REPS - 1 - REPS / 10]);
        }
    }
}
