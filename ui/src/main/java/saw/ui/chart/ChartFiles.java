package saw.ui.chart;

import java.awt.Rectangle;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.svg.SVGGraphics2D;
import org.jfree.svg.SVGUtils;

/** Writes a chart to a PNG or SVG file, chosen by the file's extension; works headless. */
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
            try (OutputStream out = Files.newOutputStream(file)) {
                ChartUtils.writeChartAsPNG(out, chart, width, height);
            }
        } else if (name.endsWith(".svg")) {
            SVGGraphics2D g = new SVGGraphics2D(width, height);
            chart.draw(g, new Rectangle(0, 0, width, height));
            SVGUtils.writeToSVG(file.toFile(), g.getSVGElement());
        } else {
            throw new IllegalArgumentException("chart file '" + file + "' must end in .png or .svg");
        }
    }
}
