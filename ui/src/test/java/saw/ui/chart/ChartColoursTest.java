package saw.ui.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.Color;
import java.util.List;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.CombinedRangeXYPlot;
import org.jfree.chart.plot.XYPlot;
import org.junit.jupiter.api.Test;
import saw.engine.attention.KernelTiles;

class ChartColoursTest {
    private static double luminance(Object paint) {
        Color c = (Color) paint;
        return (0.2126 * c.getRed() + 0.7152 * c.getGreen() + 0.0722 * c.getBlue()) / 255;
    }

    @Test
    void aDarkWindowGetsADarkChartWithLightTextAndTheSeriesColoursStay() {
        var f = BenchChartsTest.densitySweep("a.json", "cpu", List.of(new KernelTiles(64, 64), new KernelTiles(128, 64)), 0.01, 512);
        JFreeChart chart = BenchCharts.build(List.of(f), new ChartOptions(ChartKind.DENSITY, Metric.USEFUL_TFLOPS, false));
        XYPlot first = (XYPlot) ((CombinedRangeXYPlot) chart.getPlot()).getSubplots().get(0);
        Object series0 = first.getRenderer().getSeriesPaint(0);

        ChartColours.apply(chart, true);
        assertTrue(luminance(chart.getBackgroundPaint()) < 0.2, "dark background");
        assertTrue(luminance(first.getBackgroundPaint()) < 0.2, "dark plot");
        assertTrue(luminance(first.getDomainAxis().getTickLabelPaint()) > 0.6, "light tick labels");
        assertTrue(luminance(chart.getTitle().getPaint()) > 0.6, "light title");
        assertEquals(series0, first.getRenderer().getSeriesPaint(0));

        ChartColours.apply(chart, false);
        assertTrue(luminance(chart.getBackgroundPaint()) > 0.9, "back to light");
        assertTrue(luminance(first.getDomainAxis().getTickLabelPaint()) < 0.3, "dark tick labels");
    }
}
