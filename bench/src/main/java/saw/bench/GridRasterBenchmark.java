package saw.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.TileGrid;
import saw.ui.grid.GridRaster;
import saw.ui.grid.Viewport;

/**
 * Issue 17's redraw target: the tile grid's raster (what a redraw after a zoom or pan computes) at 1M and 16M
 * tokens, causal window 256 plus 6 sinks, 128x128 tiles, in a 1200x800 view, fitted and zoomed in 8x on the
 * diagonal. Target: at most 0.3 s at 16M tokens on 2 cores.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
public class GridRasterBenchmark {
    private static final int WIDTH = 1200;
    private static final int HEIGHT = 800;
    private static final int[] COLORS = {0xfff4f4f2, 0xffe69f00, 0xff0072b2, 0xffc9c9c9};

    @Param({"1048576", "16777216"})
    public int seq;

    @Param({"fit", "zoom8"})
    public String view;

    private TileGrid grid;
    private Viewport viewport;
    private GridRaster raster;
    private int[] pixels;

    @Setup
    public void setUp() {
        Mask m = Mask.Or.of(Mask.And.of(new Mask.Causal(0), new Mask.SlidingWindow(256, 0)), new Mask.Sinks(6));
        grid = BoundMask.bind(m, Dims.square(seq)).compile(128, 128).grid(0);
        Viewport fit = Viewport.fit(grid.numQBlocks(), grid.numKvBlocks(), WIDTH, HEIGHT);
        viewport = view.equals("fit") ? fit : fit.zoom(8, WIDTH / 2.0, HEIGHT / 2.0, fit.scale());
        raster = new GridRaster(WIDTH, HEIGHT);
        pixels = new int[WIDTH * HEIGHT];
    }

    @Benchmark
    public int[] render() {
        raster.render(grid, viewport, COLORS, pixels);
        return pixels;
    }
}
