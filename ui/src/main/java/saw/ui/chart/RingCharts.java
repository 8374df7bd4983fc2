package saw.ui.chart;

import java.awt.Color;
import java.awt.Font;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.CategoryLabelPositions;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import saw.engine.ring.RingPlan;

/**
 * Charts of ring plans with plain JFreeChart (they render headless too): the split schemes side by side, one
 * plan's load per device, and measured multi-GPU efficiency against the device count.
 */
public final class RingCharts {
    private static final Color[] SERIES = {new Color(0xD55E00), new Color(0xE69F00), new Color(0x0072B2)};

    private RingCharts() {}

    /**
     * Imbalance, idle fraction and roofline efficiency of each plan (one bar group per plan, labelled
     * "scheme N=devices"), in percent.
     */
    public static JFreeChart comparison(String title, List<RingPlan> plans) {
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        for (RingPlan p : plans) {
            String key = p.scheme().label() + " N=" + p.devices();
            RingPlan.Prediction pr = p.predicted();
            data.addValue(100 * p.imbalance(), "imbalance (max/mean - 1)", key);
            data.addValue(100 * pr.idleFraction(), "idle", key);
            data.addValue(100 * pr.efficiency(), "predicted efficiency", key);
        }
        JFreeChart chart = bars(title, "percent", data);
        if (!plans.isEmpty()) {
            RingPlan first = plans.get(0);
            chart.addSubtitle(new TextTitle(String.format(Locale.ROOT,
                    "%d tokens, block %dx%d, %.0f TFLOP/s, link %.0f GB/s: efficiency = even compute / predicted wall time",
                    first.layout().dims().seqQ(), first.layout().blockQ(), first.layout().blockKv(), first.model().tflops(),
                    first.model().linkGBs()), new Font(Font.SANS_SERIF, Font.PLAIN, 12)));
        }
        return chart;
    }

    /** Attended pairs per device, over the whole ring and at {@code step}, in millions. */
    public static JFreeChart loads(RingPlan plan, int step) {
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        for (int d = 0; d < plan.devices(); d++) {
            String key = Integer.toString(d);
            data.addValue(plan.devicePairs(d) / 1e6, "whole ring", key);
            data.addValue(plan.step(d, step).pairs() / 1e6, "step " + step, key);
        }
        JFreeChart chart = bars(plan.scheme().label() + ", " + plan.devices() + " devices: load per device", "attended pairs (M)",
                data);
        CategoryPlot p = chart.getCategoryPlot();
        p.getDomainAxis().setLabel("device");
        if (plan.devices() > 16) {
            p.getDomainAxis().setTickLabelsVisible(false);
        }
        return chart;
    }

    /**
     * Measured ring efficiency (percent of N x the single GPU's rate) against the ring's device count, one line per
     * series (a split scheme and pass), from {@code saw ring-run --gpus} results.
     *
     * @param series efficiency as a fraction (1 = ideal) by device count, per series name, in legend order
     * @throws IllegalArgumentException when there is nothing to draw
     */
    public static JFreeChart efficiency(String title, String subtitle, Map<String, SortedMap<Integer, Double>> series) {
        if (series.values().stream().allMatch(Map::isEmpty)) {
            throw new IllegalArgumentException("no ring rows to chart (rows with ring_devices and efficiency, as "
                    + "saw ring-run --gpus --out writes)");
        }
        XYSeriesCollection data = new XYSeriesCollection();
        for (Map.Entry<String, SortedMap<Integer, Double>> e : series.entrySet()) {
            XYSeries s = new XYSeries(e.getKey());
            e.getValue().forEach((n, eff) -> s.add(n.doubleValue(), 100 * eff));
            data.addSeries(s);
        }
        NumberAxis x = new NumberAxis("devices in the ring (N)");
        x.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
        NumberAxis y = new NumberAxis("efficiency (% of N x single-GPU rate)");
        y.setAutoRangeIncludesZero(true);
        XYLineAndShapeRenderer lines = new XYLineAndShapeRenderer(true, true);
        for (int i = 0; i < series.size(); i++) {
            lines.setSeriesPaint(i, BenchCharts.paint(i));
        }
        XYPlot plot = new XYPlot(data, x, y, lines);
        BenchCharts.style(plot);
        JFreeChart chart = new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        if (!subtitle.isEmpty()) {
            chart.addSubtitle(new TextTitle(subtitle));
        }
        return chart;
    }

    private static JFreeChart bars(String title, String yLabel, DefaultCategoryDataset data) {
        CategoryAxis x = new CategoryAxis();
        x.setCategoryLabelPositions(CategoryLabelPositions.UP_45);
        NumberAxis y = new NumberAxis(yLabel);
        BarRenderer r = new BarRenderer();
        r.setBarPainter(new StandardBarPainter());
        r.setShadowVisible(false);
        for (int i = 0; i < SERIES.length; i++) {
            r.setSeriesPaint(i, SERIES[i]);
        }
        CategoryPlot plot = new CategoryPlot(data, x, y, r);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(new Color(0xD0D0D0));
        JFreeChart chart = new JFreeChart(title, new Font(Font.SANS_SERIF, Font.BOLD, 15), plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        return chart;
    }
}
