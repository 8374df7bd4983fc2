package saw.ui.chart;

import java.awt.Rectangle;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Locale;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.svg.SVGGraphics2D;
import saw.engine.io.AtomicFiles;

/** Writes a chart to a PNG or SVG file (atomically), chosen by the file's extension; works headless. */
public final class ChartFiles {
    public static final int DEFAULT_WIDTH = 1200;
    public static final int DEFAULT_HEIGHT = 600;

    private ChartFiles() {}

    /**
     * @throws IllegalArgumentException when the file name does not end in .png or .svg
     */
    public static void write(JFreeChart chart, Path file, int width, int height) throws IOException {
        String name = file.getFileName() == null ? "" : file.getFileName().toString().toLowerCase(Locale.ROOT);
        if (width < 1 || height < 1) {
            throw new IllegalArgumentException("chart size must be positive, got " + width + "x" + height);
        }
        if (name.endsWith(".png")) {
            AtomicFiles.write(file, out -> ChartUtils.writeChartAsPNG(out, chart, width, height));
        } else if (name.endsWith(".svg")) {
            SVGGraphics2D g = new SVGGraphics2D(width, height);
            chart.draw(g, new Rectangle(0, 0, width, height));
            byte[] svg = g.getSVGDocument().getBytes(StandardCharsets.UTF_8);
            AtomicFiles.write(file, out -> out.write(svg));
        } else {
            throw new IllegalArgumentException("chart file '" + file + "' must end in .png or .svg");
        }
    }
}
