package saw.app.cli;

import java.nio.file.Path;
import java.util.Locale;
import picocli.CommandLine.Option;
import saw.engine.attention.Pass;
import saw.engine.bench.BadResultsFile;
import saw.engine.bench.BenchRow;
import saw.engine.bench.ResultsFile;
import saw.engine.ring.RingModel;

/** The roofline options of {@code saw ring} and {@code saw ring-run} (a picocli mixin). */
final class RingOptions {
    @Option(names = "--tflops", paramLabel = "R",
            description = "one device's useful forward TFLOP/s (default " + RingModel.DEFAULT_TFLOPS + ": saw's H200 forward, causal 8192)")
    Double tflops;

    @Option(names = "--rate-from", paramLabel = "RESULTS.json",
            description = "take the compute rate from a saw.bench/1 file: the best ok forward row of this config")
    Path rateFrom;

    @Option(names = "--link", paramLabel = "L", defaultValue = "nvlink",
            description = "link to the ring neighbour: nvlink (" + RingModel.NVLINK_GBS + " GB/s each way), ib ("
                    + RingModel.INFINIBAND_GBS + " GB/s), or a number of GB/s (default: ${DEFAULT-VALUE})")
    String link;

    /** The model for a problem of this head dim and K/V heads, its rate from the options. */
    RingModel model(int headDim, int kvHeads, int elementBytes, String configName) {
        if (tflops != null && rateFrom != null) {
            throw new BadInput("--tflops and --rate-from both give the compute rate; use one");
        }
        double rate = RingModel.DEFAULT_TFLOPS;
        String source = RingModel.DEFAULT_RATE_SOURCE;
        if (tflops != null) {
            if (!(tflops > 0) || tflops.isInfinite()) {
                throw new BadInput("--tflops must be a positive number, got " + tflops);
            }
            rate = tflops;
            source = "--tflops";
        } else if (rateFrom != null) {
            BenchRow best = bestForward(configName);
            rate = best.usefulTflops();
            source = String.format(Locale.ROOT, "measured: %s, %s, %s, tile %dx%d, %.1f TFLOP/s", rateFrom, best.config(),
                    best.kernel(), best.tiles().blockQ(), best.tiles().blockKv(), rate);
        }
        try {
            return new RingModel(headDim, kvHeads, elementBytes, rate, linkGBs(), source);
        } catch (IllegalArgumentException e) {
            throw new BadInput(e.getMessage());
        }
    }

    private double linkGBs() {
        switch (link.toLowerCase(Locale.ROOT)) {
            case "nvlink": return RingModel.NVLINK_GBS;
            case "ib": return RingModel.INFINIBAND_GBS;
            default:
                try {
                    double gbs = Double.parseDouble(link);
                    if (gbs > 0 && !Double.isInfinite(gbs)) {
                        return gbs;
                    }
                } catch (NumberFormatException e) {
                    // falls through to the message below
                }
                throw new BadInput("--link must be nvlink, ib or a positive number of GB/s, got '" + link + "'");
        }
    }

    private BenchRow bestForward(String configName) {
        ResultsFile results;
        try {
            results = ResultsFile.read(rateFrom);
        } catch (BadResultsFile e) {
            throw new BadInput("--rate-from: " + e.getMessage());
        }
        BenchRow best = null;
        for (BenchRow r : results.okRows()) {
            if (r.pass() == Pass.FWD && r.config().equals(configName) && (best == null || r.usefulTflops() > best.usefulTflops())) {
                best = r;
            }
        }
        if (best == null) {
            throw new BadInput("--rate-from: " + rateFrom + " has no ok forward row of config '" + configName + "'");
        }
        return best;
    }
}
