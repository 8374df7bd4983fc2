package saw.ui.chart;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Paint;
import java.awt.Shape;
import java.text.DecimalFormat;
import java.text.NumberFormat;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.LegendItem;
import org.jfree.chart.LegendItemCollection;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.CombinedRangeCategoryPlot;
import org.jfree.chart.plot.CombinedRangeXYPlot;
import org.jfree.chart.plot.DefaultDrawingSupplier;
import org.jfree.chart.plot.Plot;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.labels.StandardCategoryItemLabelGenerator;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import saw.engine.attention.KernelTiles;
import saw.engine.attention.Pass;
import saw.engine.bench.ResultsFile;

/**
 * Builds the benchmark charts from {@code saw.bench/1} results with plain JFreeChart (no JavaFX, so they also render
 * headless on a GPU server): throughput against block density or sequence length as lines, per tile size as grouped
 * bars, or per measured problem as grouped bars, one per implementation ({@link ChartKind#CONFIG}, see
 * {@link ConfigBars}); forward and backward side by side sharing the y axis; any number of files overlaid, each
 * implementation and tile size its own series (see {@link SeriesKeys}). Only rows with status "ok" are drawn.
 */
public final class BenchCharts {
    /** Okabe-Ito colours (distinguishable with the common colour-vision deficiencies), then darker variants. */
    private static final Color[] PALETTE = {
        new Color(0x0072B2), new Color(0xE69F00), new Color(0x009E73), new Color(0xCC79A7), new Color(0x56B4E9),
        new Color(0xD55E00), new Color(0xF0E442), new Color(0x000000), new Color(0x004C77), new Color(0x9A6A00),
        new Color(0x006A4D), new Color(0x8A5170),
    };
    private static final Shape[] SHAPES = DefaultDrawingSupplier.createStandardSeriesShapes();

    private BenchCharts() {}

    /**
     * The chart of these files.
     *
     * @throws IllegalArgumentException when no file has a successful row (the message names the files)
     */
    public static JFreeChart build(List<ResultsFile> files, ChartOptions options) {
        List<SeriesKeys.Point> points = SeriesKeys.points(files);
        if (points.isEmpty()) {
            throw new IllegalArgumentException("nothing to chart: no row with status \"ok\" in "
                    + String.join(", ", files.stream().map(ResultsFile::source).toList()));
        }
        Metric.Unit unit = options.metric().unitFor(points.stream().mapToDouble(p -> options.metric().of(p.row())).max().orElse(0));
        if (options.kind() == ChartKind.CONFIG) {
            return configChart(files, points, unit, options);
        }
        SeriesKeys keys = new SeriesKeys(options.kind(), points);
        List<String> series = new ArrayList<>(new LinkedHashSet<>(points.stream().map(keys::key).toList()));
        List<Pass> passes = new ArrayList<>(new TreeSet<>(points.stream().map(p -> p.row().pass()).toList()));
        ValueAxis range = rangeAxis(unit, options);
        Plot plot = options.kind() == ChartKind.BLOCK
                ? barPlot(points, keys, series, passes, range, unit, options)
                : linePlot(points, keys, series, passes, range, unit, options);
        String title = unit.axisLabel() + " vs " + (options.kind() == ChartKind.DENSITY ? "block density"
                : options.kind() == ChartKind.SEQ ? "sequence length" : "tile size");
        JFreeChart chart = new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        String sub = subtitle(files, keys);
        if (!sub.isEmpty()) {
            chart.addSubtitle(new TextTitle(sub, new Font(Font.SANS_SERIF, Font.PLAIN, 12)));
        }
        return chart;
    }

    private static Plot linePlot(List<SeriesKeys.Point> points, SeriesKeys keys, List<String> series, List<Pass> passes,
                                 ValueAxis range, Metric.Unit unit, ChartOptions options) {
        CombinedRangeXYPlot combined = new CombinedRangeXYPlot(range);
        combined.setGap(16);
        for (Pass pass : passes) {
            XYSeriesCollection data = new XYSeriesCollection();
            for (String name : series) {
                data.addSeries(new XYSeries(name, true, true));
            }
            for (SeriesKeys.Point p : points) {
                if (p.row().pass() == pass) {
                    double x = options.kind() == ChartKind.DENSITY ? p.row().stats().blockDensity() : p.row().problem().seqQ();
                    data.getSeries(series.indexOf(keys.key(p))).add(x, unit.of(p.row()));
                }
            }
            NumberAxis domain = new NumberAxis((options.kind() == ChartKind.DENSITY ? "block density" : "sequence length")
                    + " (" + passName(pass) + ")");
            if (options.kind() == ChartKind.DENSITY) {
                domain.setNumberFormatOverride(NumberFormat.getPercentInstance(Locale.ROOT));
                domain.setAutoRangeIncludesZero(true);
            } else {
                domain.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
                domain.setAutoRangeIncludesZero(false);
            }
            XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
            for (int i = 0; i < series.size(); i++) {
                renderer.setSeriesPaint(i, paint(i));
                renderer.setSeriesShape(i, SHAPES[i % SHAPES.length]);
                renderer.setSeriesStroke(i, new BasicStroke(2f));
            }
            XYPlot sub = new XYPlot(data, domain, null, renderer);
            style(sub);
            combined.add(sub);
        }
        combined.setFixedLegendItems(legend(series, true));
        return combined;
    }

    private static Plot barPlot(List<SeriesKeys.Point> points, SeriesKeys keys, List<String> series, List<Pass> passes,
                                ValueAxis range, Metric.Unit unit, ChartOptions options) {
        Set<KernelTiles> tiles = new TreeSet<>(Comparator.comparingInt(KernelTiles::blockQ).thenComparingInt(KernelTiles::blockKv));
        points.forEach(p -> tiles.add(p.row().tiles()));
        CombinedRangeCategoryPlot combined = new CombinedRangeCategoryPlot(range);
        combined.setGap(16);
        double lowest = points.stream().mapToDouble(p -> unit.of(p.row())).filter(v -> v > 0).min().orElse(1);
        for (Pass pass : passes) {
            DefaultCategoryDataset data = new DefaultCategoryDataset();
            for (String name : series) {
                for (KernelTiles t : tiles) {
                    data.addValue((Number) null, name, t.toString());
                }
            }
            for (SeriesKeys.Point p : points) {
                if (p.row().pass() == pass) {
                    data.setValue(unit.of(p.row()), keys.key(p), p.row().tiles().toString());
                }
            }
            BarRenderer renderer = barRenderer(series.size(), lowest, options);
            CategoryPlot sub = new CategoryPlot(data, new CategoryAxis("tile size, q x kv (" + passName(pass) + ")"), null, renderer);
            sub.setBackgroundPaint(Color.WHITE);
            sub.setRangeGridlinePaint(new Color(0xD0D0D0));
            combined.add(sub);
        }
        combined.setFixedLegendItems(legend(series, false));
        return combined;
    }

    /**
     * Implementation against implementation: one group of bars per problem, one bar per implementation (its best
     * tile size), each bar labelled with its value; see {@link ConfigBars}.
     */
    private static JFreeChart configChart(List<ResultsFile> files, List<SeriesKeys.Point> points, Metric.Unit unit,
                                          ChartOptions options) {
        ConfigBars.Data data = ConfigBars.of(files, unit);
        double lowest = Double.POSITIVE_INFINITY;
        for (DefaultCategoryDataset d : data.bars().values()) {
            for (int r = 0; r < d.getRowCount(); r++) {
                for (int c = 0; c < d.getColumnCount(); c++) {
                    Number v = d.getValue(r, c);
                    if (v != null && v.doubleValue() > 0) {
                        lowest = Math.min(lowest, v.doubleValue());
                    }
                }
            }
        }
        CombinedRangeCategoryPlot combined = new CombinedRangeCategoryPlot(rangeAxis(unit, options));
        combined.setGap(16);
        for (Map.Entry<Pass, DefaultCategoryDataset> e : data.bars().entrySet()) {
            BarRenderer renderer = barRenderer(data.series().size(), Double.isFinite(lowest) ? lowest : 1, options);
            renderer.setDefaultItemLabelGenerator(new StandardCategoryItemLabelGenerator("{2}", new DecimalFormat("0")));
            renderer.setDefaultItemLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 9));
            renderer.setDefaultItemLabelsVisible(true);
            CategoryAxis axis = new CategoryAxis(passName(e.getKey()));
            axis.setMaximumCategoryLabelLines(2);
            axis.setCategoryMargin(0.12);
            CategoryPlot sub = new CategoryPlot(e.getValue(), axis, null, renderer);
            sub.setBackgroundPaint(Color.WHITE);
            sub.setRangeGridlinePaint(new Color(0xD0D0D0));
            combined.add(sub);
        }
        combined.setFixedLegendItems(legend(data.series(), false));
        JFreeChart chart = new JFreeChart(unit.axisLabel() + " vs implementation, per problem",
                JFreeChart.DEFAULT_TITLE_FONT, combined, true);
        chart.setBackgroundPaint(Color.WHITE);
        chart.getLegend().setItemFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        String sub = subtitle(files, new SeriesKeys(ChartKind.CONFIG, points));
        chart.addSubtitle(new TextTitle((sub.isEmpty() ? "" : sub + " · ") + "each bar: the implementation's best tile size",
                new Font(Font.SANS_SERIF, Font.PLAIN, 12)));
        return chart;
    }

    private static BarRenderer barRenderer(int series, double lowest, ChartOptions options) {
        BarRenderer renderer = new BarRenderer();
        renderer.setBarPainter(new StandardBarPainter());
        renderer.setShadowVisible(false);
        renderer.setItemMargin(0.05);
        if (options.logScale()) {
            // bars start at a power of ten below the smallest value: a log axis has no zero
            renderer.setBase(Math.pow(10, Math.floor(Math.log10(lowest))));
            renderer.setIncludeBaseInRange(false);
        }
        for (int i = 0; i < series; i++) {
            renderer.setSeriesPaint(i, paint(i));
        }
        return renderer;
    }

    private static ValueAxis rangeAxis(Metric.Unit unit, ChartOptions options) {
        if (options.logScale()) {
            LogAxis log = new LogAxis(unit.axisLabel() + " (log)");
            log.setSmallestValue(1e-9);
            log.setNumberFormatOverride(NumberFormat.getNumberInstance(Locale.ROOT));
            return log;
        }
        NumberAxis axis = new NumberAxis(unit.axisLabel());
        axis.setAutoRangeIncludesZero(true);
        return axis;
    }

    static void style(XYPlot plot) {
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(new Color(0xD0D0D0));
        plot.setRangeGridlinePaint(new Color(0xD0D0D0));
    }

    /** One legend entry per series, though each appears in every pass's plot. */
    private static LegendItemCollection legend(List<String> series, boolean lines) {
        LegendItemCollection items = new LegendItemCollection();
        for (int i = 0; i < series.size(); i++) {
            LegendItem item = new LegendItem(series.get(i), paint(i));
            if (lines) {
                item.setShape(SHAPES[i % SHAPES.length]);
            }
            items.add(item);
        }
        return items;
    }

    static Paint paint(int i) {
        return PALETTE[i % PALETTE.length];
    }

    private static String passName(Pass pass) {
        return pass == Pass.FWD ? "forward" : "backward";
    }

    private static String subtitle(List<ResultsFile> files, SeriesKeys keys) {
        Set<String> devices = new LinkedHashSet<>();
        for (ResultsFile f : files) {
            String d = !f.environment().gpu().isEmpty() ? f.environment().gpu() : f.environment().device();
            if (!d.isEmpty()) {
                devices.add(d);
            }
        }
        List<String> parts = new ArrayList<>(devices);
        String shared = keys.sharedDescription();
        if (!shared.isEmpty()) {
            parts.add(shared);
        }
        return String.join(" · ", parts);
    }
}
