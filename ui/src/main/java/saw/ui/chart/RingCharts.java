package saw.ui.chart;

import java.util.Map;
import java.util.SortedMap;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** Ring attention's scaling chart: efficiency (percent of N x the single GPU's rate) against the ring's device count. */
public final class RingCharts {
    private RingCharts() {}

    /**
     * One line per series (a split scheme and pass), points at each measured device count.
     *
     * @param series efficiency as a fraction (1 = ideal) by device count, per series name, in legend order
     * @throws IllegalArgumentException when there is nothing to draw
     */
    public static JFreeChart efficiency(String title, String subtitle, Map<String, SortedMap<Integer, Double>> series) {
        XYSeriesCollection data = new XYSeriesCollection();
        for (Map.Entry<String, SortedMap<Integer, Double>> e : series.entrySet()) {
            XYSeries s = new XYSeries(e.getKey());
            e.getValue().forEach((n, eff) -> s.add(n.doubleValue(), 100 * eff));
            data.addSeries(s);
        }
        if (series.values().stream().allMatch(Map::isEmpty)) {
            throw new IllegalArgumentException("no ring rows to chart (rows with ring_devices and efficiency, as "
                    + "saw ring-run --gpus --out writes)");
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
        chart.setBackgroundPaint(java.awt.Color.WHITE);
        if (!subtitle.isEmpty()) {
            chart.addSubtitle(new TextTitle(subtitle));
        }
        return chart;
    }
}
