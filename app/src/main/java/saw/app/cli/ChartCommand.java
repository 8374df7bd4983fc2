package saw.app.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.jfree.chart.JFreeChart;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import saw.engine.bench.BadResultsFile;
import saw.engine.bench.ResultsFile;
import saw.ui.chart.BenchCharts;
import saw.ui.chart.ChartFiles;
import saw.ui.chart.ChartKind;
import saw.ui.chart.ChartOptions;
import saw.ui.chart.Metric;

/** {@code saw chart}: renders saw.bench/1 results as a PNG or SVG chart, headless. */
@Command(name = "chart", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Chart saw.bench/1 results (several files are overlaid, each implementation and tile size a series).",
            "Forward and backward are drawn side by side; the format follows the --out extension (.png or .svg)."})
final class ChartCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "RESULTS", description = "saw.bench/1 results files")
    List<String> files;

    @Option(names = "--x", paramLabel = "AXIS", defaultValue = "density",
            description = {"density (lines), block (grouped bars per tile size), seq (lines) or config (grouped bars per",
                "problem, one per implementation: saw's best tile against each peer); default: ${DEFAULT-VALUE}"})
    String x;

    @Option(names = "--head-dim", paramLabel = "D", description = "chart only the rows with this head dim (files often hold several)")
    Integer headDim;

    @Option(names = "--title", paramLabel = "TEXT", description = "the chart's title instead of the metric and axis")
    String title;

    @Option(names = "--metric", paramLabel = "M", defaultValue = "useful",
            description = "useful or computed TFLOP/s, or bandwidth GB/s (default: ${DEFAULT-VALUE})")
    String metric;

    @Option(names = "--log", description = "logarithmic y axis")
    boolean log;

    @Option(names = "--out", required = true, paramLabel = "FILE", description = "chart.png or chart.svg")
    String out;

    @Option(names = "--size", paramLabel = "WxH", defaultValue = "1200x600", description = "image size in pixels (default: ${DEFAULT-VALUE})")
    String size;

    @Override
    public Integer call() throws IOException {
        requireChartLibraries();
        ChartOptions options;
        try {
            options = new ChartOptions(ChartKind.parse(x), Metric.parse(metric), log);
        } catch (IllegalArgumentException e) {
            throw new BadInput(e.getMessage());
        }
        int[] wh = parseSize();
        Path outFile = BenchCommand.outputFile("--out", out);
        String lower = out.toLowerCase(java.util.Locale.ROOT);
        if (!lower.endsWith(".png") && !lower.endsWith(".svg")) {
            throw new BadInput("--out '" + out + "' must end in .png or .svg");
        }
        List<ResultsFile> results = new ArrayList<>();
        for (String f : files) {
            try {
                ResultsFile r = ResultsFile.read(Path.of(f));
                r.truncation().ifPresent(t -> spec.commandLine().getErr().println("saw chart: note: " + t));
                results.add(headDim == null ? r : new ResultsFile(r.source(), r.environment(),
                        r.rows().stream().filter(row -> row.problem().headDim() == headDim).toList(), r.truncation()));
            } catch (BadResultsFile e) {
                throw new BadInput(e.getMessage());
            } catch (java.nio.file.InvalidPathException e) {
                throw new BadInput("'" + f + "' is not a valid file path");
            }
        }
        if (headDim != null && results.stream().allMatch(r -> r.rows().isEmpty())) {
            throw new BadInput("--head-dim " + headDim + ": no row with head dim " + headDim + " in " + String.join(", ", files));
        }
        try {
            JFreeChart chart = BenchCharts.build(results, options);
            if (title != null && !title.isBlank()) {
                chart.setTitle(title);
            }
            ChartFiles.write(chart, outFile, wh[0], wh[1]);
        } catch (IllegalArgumentException e) {
            throw new BadInput(e.getMessage());
        }
        spec.commandLine().getOut().println(outFile);
        return SawCli.OK;
    }

    /** A headless pack for GPU servers may leave out the chart libraries or the java.desktop module. */
    static void requireChartLibraries() {
        for (String name : new String[] {"java.awt.image.BufferedImage", "org.jfree.chart.JFreeChart", "org.jfree.svg.SVGGraphics2D",
            "saw.ui.chart.BenchCharts"}) {
            try {
                Class.forName(name, false, ChartCommand.class.getClassLoader());
            } catch (ClassNotFoundException | LinkageError e) {
                throw new BadInput("this saw installation cannot draw charts: " + name + " is missing (saw chart needs "
                        + "saw-ui, JFreeChart, JFreeSVG and the java.desktop module); chart the results where the full saw.jar runs, "
                        + "or build the GPU pack with SAW_PACK_CHARTS=1");
            }
        }
    }

    private int[] parseSize() {
        String[] parts = size.toLowerCase(java.util.Locale.ROOT).split("x");
        try {
            if (parts.length == 2) {
                int w = Integer.parseInt(parts[0].trim());
                int h = Integer.parseInt(parts[1].trim());
                if (w >= 100 && h >= 100 && w <= 10000 && h <= 10000) {
                    return new int[] {w, h};
                }
            }
        } catch (NumberFormatException e) {
            // the message below says what is expected
        }
        throw new BadInput("--size '" + size + "' is not WxH with both in 100..10000, e.g. 1200x600");
    }
}
