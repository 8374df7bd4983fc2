package saw.bench;

import java.util.List;
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
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.TileLists;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.IntArray;
import saw.engine.mask.Mask;
import saw.engine.mask.TileLayout;

/**
 * The GPU's tile tables ({@link TileLists#of}: row and column lists and the bit tiles of every PARTIAL tile, the
 * costly part) at 128x128 tiles, 32 heads: a dilated mask, where every tile is PARTIAL, and the long-context masks
 * of issue 18. Each case is MASK@TOKENS; the layout is compiled in setup, so only the tables are timed.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 8)
@Fork(value = 1, jvmArgsAppend = {"-Xmx8g"})
public class TileBitsBenchmark {
    @Param({"dilated-4@32768", "dilated-4@131072", "causal-dilated-3@32768", "sinks@1048576", "docs64k@1048576",
            "chunked@1048576", "window@1048576"})
    public String tables;

    private AttentionProblem problem;
    private TileLayout layout;

    @Setup
    public void setUp() {
        String name = tables.substring(0, tables.indexOf('@'));
        int seq = Integer.parseInt(tables.substring(tables.indexOf('@') + 1));
        Mask causal = new Mask.Causal(0);
        Mask mask = switch (name) {
            case "dilated-4" -> new Mask.Dilated(4);
            case "causal-dilated-3" -> new Mask.And(List.of(causal, new Mask.Dilated(3)));
            case "sinks" -> new Mask.And(List.of(causal, new Mask.Or(List.of(new Mask.Sinks(4), new Mask.SlidingWindow(4096, 0)))));
            case "docs64k" -> {
                int[] lengths = new int[seq / 65536];
                java.util.Arrays.fill(lengths, 65536);
                yield new Mask.And(List.of(causal, new Mask.Documents(List.of(new Mask.Lengths(IntArray.of(lengths))))));
            }
            case "chunked" -> new Mask.ChunkedCausal(8192);
            case "window" -> new Mask.SlidingWindow(4096, 0);
            default -> throw new IllegalArgumentException("unknown case " + tables);
        };
        problem = AttentionProblem.of(1, 32, 8, seq, seq, 128, DType.BF16);
        layout = BoundMask.bind(mask, new Dims(seq, seq, 1, 32)).compile(128, 128);
    }

    @Benchmark
    public TileLists build() {
        return TileLists.of(problem, layout);
    }
}
