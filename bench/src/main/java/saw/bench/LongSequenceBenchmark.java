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
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.TileLayout;

/**
 * Issue 2's 1M-token target: causal, sliding window and 64 packed documents at 1,048,576 tokens, block 128x128,
 * in at most 1 s and 256 MB of heap (the fork runs with -Xmx256m, so exceeding it fails the run).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx256m"})
public class LongSequenceBenchmark {
    @Param({"causal", "sliding-window-4096", "packed-documents-64"})
    public String mask;

    @Param({"1048576"})
    public int seq;

    @Param({"16"})
    public int heads;

    private Mask built;

    @Setup
    public void setUp() {
        Mask causal = new Mask.Causal(0);
        if (mask.equals("causal")) {
            built = causal;
        } else if (mask.equals("sliding-window-4096")) {
            built = new Mask.And(List.of(causal, new Mask.SlidingWindow(4096, 0)));
        } else {
            built = BenchMasks.causalDocuments(seq);
        }
    }

    @Benchmark
    public long compileAndCount() {
        TileLayout layout = BoundMask.bind(built, new Dims(seq, seq, 1, heads)).compile(128, 128);
        return layout.count(saw.engine.mask.TileClass.PARTIAL);
    }
}
