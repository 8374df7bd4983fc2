package saw.ui.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.imageio.ImageIO;
import javax.xml.parsers.DocumentBuilderFactory;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.CombinedRangeCategoryPlot;
import org.jfree.chart.plot.CombinedRangeXYPlot;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.category.CategoryDataset;
import org.jfree.data.xy.XYDataset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.KernelTiles;
import saw.engine.attention.Pass;
import saw.engine.bench.BenchEnvironment;
import saw.engine.bench.BenchRow;
import saw.engine.bench.ResultsFile;
import saw.engine.bench.TileStats;
import saw.engine.bench.Timing;
import saw.engine.bench.Work;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.TileLayout;

class BenchChartsTest {
    @TempDir
    Path dir;

    /**
     * A density sweep as a backend would report it: real random-block layouts and tile counts, and a time that
     * grows with the visited tiles ({@code usPerTile} microseconds each), so throughput is known exactly.
     */
    static ResultsFile densitySweep(String source, String backend, List<KernelTiles> tiles, double usPerTile, int seq) {
        List<BenchRow> rows = new ArrayList<>();
        double[] densities = {0.1, 0.25, 0.5, 1.0};
        for (KernelTiles t : tiles) {
            for (double d : densities) {
                int nkv = (seq + t.blockKv() - 1) / t.blockKv();
                Mask mask = new Mask.RandomBlocks(t.blockQ(), t.blockKv(), (int) Math.round(d * nkv), 7);
                AttentionProblem p = AttentionProblem.of(1, 2, 2, seq, seq, 64, DType.BF16);
                TileLayout layout = BoundMask.bind(mask, new Dims(seq, seq, 1, 2)).compile(t.blockQ(), t.blockKv());
                TileStats stats = TileStats.of(layout);
                for (Pass pass : Pass.values()) {
                    double ms = usPerTile / 1000 * stats.visited() * (pass == Pass.FWD ? 1 : 2.5);
                    rows.add(new BenchRow(rows.size(), "random blocks", Map.of(), d, p, t, pass, backend,
                            pass.label() + "_" + t, "", stats, Work.of(p, t, pass, stats), 2, new Timing(ms, ms * 0.9, ms * 1.2, 20),
                            BenchRow.OK));
                }
            }
        }
        BenchEnvironment env = BenchEnvironment.here(backend, "test device", "test");
        return new ResultsFile(source, env, rows, Optional.empty());
    }

    @Test
    void densityChartHasOneLinePerTileSizeAndForwardBesideBackward() {
        ResultsFile f = densitySweep("a.json", "gpu", List.of(new KernelTiles(64, 64), new KernelTiles(128, 64)), 0.01, 1024);
        JFreeChart chart = BenchCharts.build(List.of(f), ChartOptions.of(ChartKind.DENSITY));
        CombinedRangeXYPlot plot = assertInstanceOf(CombinedRangeXYPlot.class, chart.getPlot());
        List<XYPlot> subplots = plot.getSubplots();
        assertEquals(2, subplots.size());
        assertEquals("block density (forward)", subplots.get(0).getDomainAxis().getLabel());
        assertEquals("block density (backward)", subplots.get(1).getDomainAxis().getLabel());
        for (int s = 0; s < 2; s++) {
            XYDataset data = subplots.get(s).getDataset();
            assertEquals(2, data.getSeriesCount());
            assertEquals("gpu 64x64", data.getSeriesKey(0));
            assertEquals("gpu 128x64", data.getSeriesKey(1));
            Pass pass = Pass.values()[s];
            for (int series = 0; series < 2; series++) {
                String tile = series == 0 ? "64x64" : "128x64";
                List<BenchRow> expected = f.rows().stream()
                        .filter(r -> r.pass() == pass && r.tiles().toString().equals(tile))
                        .sorted(java.util.Comparator.comparingDouble(r -> r.stats().blockDensity())).toList();
                assertEquals(expected.size(), data.getItemCount(series));
                for (int i = 0; i < expected.size(); i++) {
                    assertEquals(expected.get(i).stats().blockDensity(), data.getXValue(series, i), 1e-12);
                    assertEquals(expected.get(i).usefulTflops(), data.getYValue(series, i), 1e-9);
                }
            }
        }
        assertEquals(2, plot.getLegendItems().getItemCount(), "one legend entry per series, not per subplot");
        String subtitle = ((TextTitle) chart.getSubtitle(1)).getText();
        assertTrue(subtitle.contains("test device") && subtitle.contains("D=64") && subtitle.contains("bf16"), subtitle);
    }

    /** The rows of {@code f} as a run with learned sinks would report them, from another file. */
    private static ResultsFile withSinks(ResultsFile f, String source) {
        List<BenchRow> rows = new ArrayList<>();
        for (BenchRow r : f.rows()) {
            rows.add(new BenchRow(r.index(), r.config(), r.varied(), r.density(), r.problem(), r.tiles(), r.pass(), true,
                    r.backend(), r.kernel(), r.layout(), r.stats(), r.work(), r.warmup(), r.timing(), r.status()));
        }
        return new ResultsFile(source, f.environment(), rows, Optional.empty());
    }

    @Test
    void learnedSinksAreInTheSubtitleOfARunWithThemAndInTheSeriesNamesBesideARunWithout() {
        ResultsFile plain = densitySweep("plain.json", "gpu", List.of(new KernelTiles(64, 64)), 0.01, 1024);
        ResultsFile sinks = withSinks(plain, "sinks.json");
        JFreeChart alone = BenchCharts.build(List.of(sinks), ChartOptions.of(ChartKind.DENSITY));
        String subtitle = ((TextTitle) alone.getSubtitle(1)).getText();
        assertTrue(subtitle.contains("learned sinks"), subtitle);
        JFreeChart without = BenchCharts.build(List.of(plain), ChartOptions.of(ChartKind.DENSITY));
        assertTrue(!((TextTitle) without.getSubtitle(1)).getText().contains("sinks"), "no sinks, no word of them");

        JFreeChart both = BenchCharts.build(List.of(plain, sinks), ChartOptions.of(ChartKind.DENSITY));
        XYDataset data = ((CombinedRangeXYPlot) both.getPlot()).getSubplots().get(0).getDataset();
        List<String> keys = new ArrayList<>();
        for (int s = 0; s < data.getSeriesCount(); s++) {
            keys.add(data.getSeriesKey(s).toString());
        }
        assertEquals(2, keys.size(), keys.toString());
        assertEquals(1, keys.stream().filter(k -> k.endsWith("learned sinks")).count(), keys.toString());
    }

    @Test
    void chartsOfValuesUnderOneTflopsReadInGflops() {
        // 10 ms per visited tile: CPU speeds, far under one TFLOP/s
        ResultsFile cpu = densitySweep("cpu.json", "cpu", List.of(new KernelTiles(64, 64)), 1e4, 1024);
        JFreeChart chart = BenchCharts.build(List.of(cpu), ChartOptions.of(ChartKind.DENSITY));
        XYPlot fwd = ((CombinedRangeXYPlot) chart.getPlot()).getSubplots().get(0);
        assertEquals("useful GFLOP/s", ((CombinedRangeXYPlot) chart.getPlot()).getRangeAxis().getLabel());
        BenchRow first = cpu.rows().stream().filter(r -> r.pass() == Pass.FWD)
                .min(java.util.Comparator.comparingDouble(r -> r.stats().blockDensity())).orElseThrow();
        assertTrue(first.usefulTflops() < 1, "the fixture must be under one TFLOP/s");
        assertEquals(first.usefulTflops() * 1000, fwd.getDataset().getYValue(0, 0), 1e-9);

        ResultsFile gpu = densitySweep("gpu.json", "gpu", List.of(new KernelTiles(64, 64)), 0.01, 1024);
        JFreeChart fast = BenchCharts.build(List.of(gpu), ChartOptions.of(ChartKind.DENSITY));
        assertEquals("useful TFLOP/s", ((CombinedRangeXYPlot) fast.getPlot()).getRangeAxis().getLabel());
    }

    @Test
    void overlaidFilesBecomeSeparateKernels() {
        ResultsFile saw = densitySweep("saw.json", "gpu", List.of(new KernelTiles(128, 64)), 0.01, 1024);
        ResultsFile flex = densitySweep("flex.json", "flexattention", List.of(new KernelTiles(128, 128)), 0.02, 1024);
        ResultsFile sawAgain = densitySweep("dir/saw-v2.json", "gpu", List.of(new KernelTiles(128, 64)), 0.005, 1024);
        JFreeChart chart = BenchCharts.build(List.of(saw, flex, sawAgain), ChartOptions.of(ChartKind.DENSITY));
        XYDataset data = ((CombinedRangeXYPlot) chart.getPlot()).getSubplots().get(0).getDataset();
        List<Comparable<?>> keys = new ArrayList<>();
        for (int s = 0; s < data.getSeriesCount(); s++) {
            keys.add(data.getSeriesKey(s));
        }
        assertEquals(List.of("gpu (saw.json) 128x64", "flexattention 128x128", "gpu (saw-v2.json) 128x64"), keys);
    }

    @Test
    void blockChartGroupsBarsByTileSize() {
        ResultsFile f = densitySweep("a.json", "cpu", List.of(new KernelTiles(128, 64), new KernelTiles(64, 64)), 0.01, 512);
        JFreeChart chart = BenchCharts.build(List.of(f), ChartOptions.of(ChartKind.BLOCK).withLogScale(true));
        CombinedRangeCategoryPlot plot = assertInstanceOf(CombinedRangeCategoryPlot.class, chart.getPlot());
        assertInstanceOf(LogAxis.class, plot.getRangeAxis());
        List<CategoryPlot> subplots = plot.getSubplots();
        assertEquals(2, subplots.size());
        CategoryDataset data = subplots.get(0).getDataset();
        assertEquals(List.of("64x64", "128x64"), data.getColumnKeys());
        // four densities, so each density is its own series of bars
        assertEquals(List.of("cpu density 10%", "cpu density 25%", "cpu density 50%", "cpu density 100%"), data.getRowKeys());
        BenchRow r = f.rows().stream().filter(x -> x.pass() == Pass.FWD && x.density() == 0.5 && x.tiles().blockQ() == 128).findFirst().orElseThrow();
        assertEquals(r.usefulTflops(), data.getValue("cpu density 50%", "128x64").doubleValue(), 1e-9);
    }

    @Test
    void seqChartPlotsAgainstSequenceLength() {
        List<BenchRow> rows = new ArrayList<>();
        for (int seq : new int[] {256, 512, 1024}) {
            rows.addAll(densitySweep("x", "gpu", List.of(new KernelTiles(64, 64)), 0.01, seq).rows());
        }
        ResultsFile f = new ResultsFile("s.json", BenchEnvironment.here("gpu", "", ""), rows, Optional.empty());
        JFreeChart chart = BenchCharts.build(List.of(f), ChartOptions.of(ChartKind.SEQ));
        XYDataset data = ((CombinedRangeXYPlot) chart.getPlot()).getSubplots().get(1).getDataset();
        assertEquals(4, data.getSeriesCount());
        assertEquals("gpu 64x64 density 10%", data.getSeriesKey(0));
        assertEquals(3, data.getItemCount(0));
        assertEquals(256, data.getXValue(0, 0));
        assertEquals(1024, data.getXValue(0, 2));
    }

    /** One row of a problem "config" at sequence length seq, timed at ms on backend. */
    /** A row timed at {@code us} microseconds. */
    static BenchRow row(String config, int seq, KernelTiles t, Pass pass, String backend, double us) {
        double ms = us / 1000;
        AttentionProblem p = AttentionProblem.of(1, 2, 2, seq, seq, 64, DType.BF16);
        Mask mask = new Mask.RandomBlocks(t.blockQ(), t.blockKv(), 2, 7);
        TileStats stats = TileStats.of(BoundMask.bind(mask, new Dims(seq, seq, 1, 2)).compile(t.blockQ(), t.blockKv()));
        return new BenchRow(0, config, Map.of(), Double.NaN, p, t, pass, backend, "", "", stats, Work.of(p, t, pass, stats), 2,
                new Timing(ms, ms, ms, 20), BenchRow.OK);
    }

    static ResultsFile file(String source, List<BenchRow> rows) {
        return new ResultsFile(source, BenchEnvironment.here(rows.get(0).backend(), "test device", "test"), rows, Optional.empty());
    }

    @Test
    void configChartComparesEachImplementationsBestRowOnProblemsSawAndAPeerMeasured() {
        KernelTiles small = new KernelTiles(64, 64);
        KernelTiles big = new KernelTiles(128, 128);
        List<BenchRow> sawRows = new ArrayList<>();
        for (int seq : new int[] {2048, 1024}) {
            for (Pass pass : Pass.values()) {
                sawRows.add(row("causal", seq, small, pass, "gpu", 2.0));
                sawRows.add(row("causal", seq, big, pass, "gpu", 1.0)); // the better tile: its bar is this one
            }
        }
        sawRows.add(row("window", 1024, big, Pass.FWD, "gpu", 1.0)); // no peer measured it: no category
        // two files of saw's results, as a sweep per sequence length writes them: still one series "saw"
        ResultsFile saw1 = file("saw-1.json", sawRows.subList(0, 4));
        ResultsFile saw2 = file("saw-2.json", sawRows.subList(4, sawRows.size()));
        List<BenchRow> peerRows = new ArrayList<>();
        for (int seq : new int[] {1024, 2048}) {
            peerRows.add(row("causal", seq, big, Pass.FWD, "sdpa-cudnn", 0.8)); // forward only, and first in the file
            for (Pass pass : Pass.values()) {
                peerRows.add(row("causal", seq, big, pass, "flexattention", 1.5));
            }
        }
        peerRows.add(row("docs", 1024, big, Pass.FWD, "flexattention", 1.0)); // saw did not measure it: no category
        ResultsFile peers = file("flex.json", peerRows);

        JFreeChart chart = BenchCharts.build(List.of(saw1, saw2, peers), ChartOptions.of(ChartKind.CONFIG));
        CombinedRangeCategoryPlot plot = assertInstanceOf(CombinedRangeCategoryPlot.class, chart.getPlot());
        List<CategoryPlot> subplots = plot.getSubplots();
        assertEquals(2, subplots.size());
        assertEquals("forward", subplots.get(0).getDomainAxis().getLabel());
        assertEquals("backward", subplots.get(1).getDomainAxis().getLabel());
        for (CategoryPlot sub : subplots) {
            CategoryDataset data = sub.getDataset();
            assertEquals(List.of("causal 1K D=64", "causal 2K D=64"), data.getColumnKeys(), "sorted by sequence length");
            assertEquals(List.of("saw", "flexattention", "sdpa-cudnn"), data.getRowKeys(), "saw first, then by name");
        }
        CategoryDataset fwd = subplots.get(0).getDataset();
        CategoryDataset bwd = subplots.get(1).getDataset();
        for (int seq : new int[] {1024, 2048}) {
            String category = "causal " + seq / 1024 + "K D=64";
            assertEquals(row("causal", seq, big, Pass.FWD, "gpu", 1.0).usefulTflops(), fwd.getValue("saw", category).doubleValue(), 1e-9);
            assertEquals(row("causal", seq, big, Pass.BWD, "gpu", 1.0).usefulTflops(), bwd.getValue("saw", category).doubleValue(), 1e-9);
            assertEquals(row("causal", seq, big, Pass.FWD, "x", 1.5).usefulTflops(),
                    fwd.getValue("flexattention", category).doubleValue(), 1e-9);
            assertEquals(row("causal", seq, big, Pass.FWD, "x", 0.8).usefulTflops(),
                    fwd.getValue("sdpa-cudnn", category).doubleValue(), 1e-9);
            assertEquals(null, bwd.getValue("sdpa-cudnn", category), "no backward row, no bar");
        }
        assertEquals(3, plot.getLegendItems().getItemCount());

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BenchCharts.build(List.of(saw1), ChartOptions.of(ChartKind.CONFIG)));
        assertTrue(e.getMessage().contains("saw-1.json") && e.getMessage().contains("another implementation"), e.getMessage());
    }

    @Test
    void pngAndSvgFilesAreReadable() throws Exception {
        ResultsFile f = densitySweep("a.json", "gpu", List.of(new KernelTiles(64, 64), new KernelTiles(128, 64)), 0.01, 1024);
        ResultsFile peer = densitySweep("flex.json", "flexattention", List.of(new KernelTiles(64, 64)), 0.02, 1024);
        for (ChartKind kind : ChartKind.values()) {
            // a config chart compares implementations, so it needs a peer's rows beside saw's
            JFreeChart chart = BenchCharts.build(kind == ChartKind.CONFIG ? List.of(f, peer) : List.of(f), ChartOptions.of(kind));
            Path png = dir.resolve(kind + ".png");
            ChartFiles.write(chart, png, 800, 400);
            BufferedImage image = ImageIO.read(png.toFile());
            assertEquals(800, image.getWidth());
            assertEquals(400, image.getHeight());
            Path svg = dir.resolve(kind + ".svg");
            ChartFiles.write(chart, svg, 800, 400);
            DocumentBuilderFactory xml = DocumentBuilderFactory.newInstance();
            xml.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
            Document doc = xml.newDocumentBuilder().parse(svg.toFile());
            assertEquals("svg", doc.getDocumentElement().getTagName());
            String text = Files.readString(svg);
            assertTrue(text.contains("useful TFLOP/s vs") && text.contains("gpu density 50%") == (kind == ChartKind.BLOCK),
                    "title and legend text are in the SVG");
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ChartFiles.write(BenchCharts.build(List.of(f), ChartOptions.of(ChartKind.BLOCK)), dir.resolve("c.jpg"), 10, 10));
        assertTrue(e.getMessage().contains("c.jpg") && e.getMessage().contains(".png or .svg"), e.getMessage());
    }

    @Test
    void filesWithoutSuccessfulRowsAreRefusedByName() {
        ResultsFile empty = new ResultsFile("empty.json", BenchEnvironment.here("gpu", "", ""), List.of(), Optional.empty());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BenchCharts.build(List.of(empty), ChartOptions.of(ChartKind.DENSITY)));
        assertTrue(e.getMessage().contains("empty.json"), e.getMessage());
    }
}
