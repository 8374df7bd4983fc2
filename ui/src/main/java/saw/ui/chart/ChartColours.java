package saw.ui.chart;

import java.awt.Color;
import java.awt.Paint;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.Axis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.CombinedRangeCategoryPlot;
import org.jfree.chart.plot.CombinedRangeXYPlot;
import org.jfree.chart.plot.Plot;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.title.LegendTitle;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.title.Title;

/** Recolours a chart built by {@link BenchCharts} for a light or a dark window; the series colours stay. */
public final class ChartColours {
    private ChartColours() {}

    /** Background, text and grid-line colours for a light or dark window. */
    public static void apply(JFreeChart chart, boolean dark) {
        Color background = dark ? new Color(0x0d1117) : Color.WHITE;
        Color text = dark ? new Color(0xc9d1d9) : new Color(0x24292f);
        Color grid = dark ? new Color(0x30363d) : new Color(0xd0d0d0);
        chart.setBackgroundPaint(background);
        if (chart.getTitle() != null) {
            chart.getTitle().setPaint(text);
        }
        for (int i = 0; i < chart.getSubtitleCount(); i++) {
            Title t = chart.getSubtitle(i);
            if (t instanceof TextTitle tt) {
                tt.setPaint(text);
            } else if (t instanceof LegendTitle lt) {
                lt.setBackgroundPaint(background);
                lt.setItemPaint(text);
            }
        }
        plot(chart.getPlot(), background, text, grid);
    }

    private static void plot(Plot p, Paint background, Color text, Paint grid) {
        p.setBackgroundPaint(background);
        if (p instanceof CombinedRangeXYPlot c) {
            axis(c.getRangeAxis(), text);
            for (Object s : c.getSubplots()) {
                plot((Plot) s, background, text, grid);
            }
        } else if (p instanceof CombinedRangeCategoryPlot c) {
            axis(c.getRangeAxis(), text);
            for (Object s : c.getSubplots()) {
                plot((Plot) s, background, text, grid);
            }
        } else if (p instanceof XYPlot x) {
            x.setDomainGridlinePaint(grid);
            x.setRangeGridlinePaint(grid);
            axis(x.getDomainAxis(), text);
            axis(x.getRangeAxis(), text);
        } else if (p instanceof CategoryPlot c) {
            c.setRangeGridlinePaint(grid);
            axis(c.getDomainAxis(), text);
            axis(c.getRangeAxis(), text);
        }
    }

    private static void axis(Axis a, Color text) {
        if (a != null) {
            a.setLabelPaint(text);
            a.setTickLabelPaint(text);
            a.setAxisLinePaint(text);
            a.setTickMarkPaint(text);
        }
    }
}
