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
import saw.engine.mask.TileLayout;
import saw.engine.ring.RingModel;
import saw.engine.ring.RingPlan;
import saw.engine.ring.RingPlanner;
import saw.engine.ring.RingScheme;

/**
 * Issue 15's target: planning a 1,048,576-token mask over 64 devices in under 1 s on 2 cores. {@code plan} times
 * the planner on an already compiled layout (block 128x128, 16 heads); {@code compileAndPlan} adds the compile.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx512m"})
public class RingPlanBenchmark {
    @Param({"causal", "packed-documents-64"})
    public String mask;

    @Param({"balanced", "zigzag"})
    public String scheme;

    @Param({"1048576"})
    public int seq;

    @Param({"64"})
    public int devices;

    private Mask built;
    private TileLayout layout;
    private RingScheme chosen;

    @Setup
    public void setUp() {
        Mask causal = new Mask.Causal(0);
        if (mask.equals("causal")) {
            built = causal;
        } else {
            built = BenchMasks.causalDocuments(seq);
        }
        layout = BoundMask.bind(built, new Dims(seq, seq, 1, 16)).compile(128, 128);
        chosen = RingScheme.parse(scheme);
    }

    @Benchmark
    public double plan() {
        RingPlan p = RingPlanner.plan(layout, devices, chosen, RingModel.defaults(16));
        return p.imbalance();
    }

    @Benchmark
    public double compileAndPlan() {
        TileLayout l = BoundMask.bind(built, new Dims(seq, seq, 1, 16)).compile(128, 128);
        return RingPlanner.plan(l, devices, chosen, RingModel.defaults(16)).imbalance();
    }
}
