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
import saw.engine.config.MaskConfig;
import saw.engine.config.Presets;
import saw.engine.mask.BoundMask;
import saw.engine.mask.TileLayout;

/**
 * Issue 2's speed target: every preset at Sq = Skv = 131072, block 128x128, bound, classified and compiled to the
 * compact layout. Run: {@code java -jar bench/target/saw-jmh.jar CompileBenchmark} (see docs/benchmarks.md).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx256m"})
public class CompileBenchmark {
    @Param({"causal", "sliding-window", "llama4-chunked", "prefix-lm", "packed-documents", "longformer", "bigbird",
            "streamingllm", "dilated", "nsa-block-list", "gemma-per-head"})
    public String preset;

    @Param({"131072"})
    public int seq;

    private MaskConfig config;

    @Setup
    public void setUp() {
        config = Presets.get(preset).withSeq(seq);
    }

    @Benchmark
    public TileLayout compile() {
        return BoundMask.bind(config.mask(), config.dims()).compile(128, 128);
    }
}
