package saw.app.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import saw.engine.config.ConfigException;
import saw.engine.config.MaskConfig;
import saw.engine.guard.SizeGuard;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.TileClass;
import saw.engine.mask.TileLayout;

/**
 * {@code saw stats SPEC}: one JSON object with the tile counts, densities and how long compiling took. compile_ms is
 * the median, over --repeat runs after one warm-up run, of binding the mask to its sizes and compiling the layout.
 */
@Command(name = "stats", mixinStandardHelpOptions = true,
        description = "Compile a mask to tiles and print one JSON object: tile counts, densities and compile time.")
final class StatsCommand implements Callable<Integer> {
    static final int MAX_REPEAT = 1000;

    @Spec
    CommandSpec spec;

    @Mixin
    SpecArgs args;

    @Option(names = "--repeat", paramLabel = "N", defaultValue = "5",
            description = "time N compiles after one warm-up and report the median (default: ${DEFAULT-VALUE})")
    int repeat;

    @Override
    public Integer call() throws ConfigException, IOException {
        if (repeat < 1 || repeat > MAX_REPEAT) {
            throw new BadInput("--repeat must be in 1.." + MAX_REPEAT + ", got " + repeat);
        }
        MaskConfig c = args.load();
        SizeGuard.compile(c).orThrow();
        SizeGuard.compileTime(c).orThrow();
        Dims dims = c.dims();
        int bq = c.block().q();
        int bkv = c.block().kv();
        TileLayout layout = BoundMask.bind(c.mask(), dims).compile(bq, bkv); // the warm-up
        double[] ms = new double[repeat];
        for (int r = 0; r < repeat; r++) {
            long start = System.nanoTime();
            layout = BoundMask.bind(c.mask(), dims).compile(bq, bkv);
            ms[r] = (System.nanoTime() - start) / 1e6;
        }
        long empty = layout.count(TileClass.EMPTY);
        long partial = layout.count(TileClass.PARTIAL);
        long full = layout.count(TileClass.FULL);
        long pairs = layout.mask().attendedPairs();
        double heads = (double) dims.batch() * dims.heads();

        JsonGenerator g = new JsonFactory().createGenerator(spec.commandLine().getOut());
        g.setPrettyPrinter(new DefaultPrettyPrinter().withSeparators(
                Separators.createDefaultInstance().withObjectFieldValueSpacing(Separators.Spacing.AFTER)));
        g.writeStartObject();
        g.writeNumberField("seq_len_q", dims.seqQ());
        g.writeNumberField("seq_len_kv", dims.seqKv());
        g.writeNumberField("block_q", bq);
        g.writeNumberField("block_kv", bkv);
        g.writeNumberField("batch", dims.batch());
        g.writeNumberField("heads", dims.heads());
        g.writeNumberField("num_q_blocks", layout.numQBlocks());
        g.writeNumberField("num_kv_blocks", layout.numKvBlocks());
        g.writeObjectFieldStart("tiles");
        g.writeNumberField("empty", empty);
        g.writeNumberField("partial", partial);
        g.writeNumberField("full", full);
        g.writeEndObject();
        g.writeNumberField("attended_pairs", pairs);
        g.writeNumberField("token_density", pairs / (heads * dims.seqQ() * dims.seqKv()));
        g.writeNumberField("block_density", (partial + full) / (double) (empty + partial + full));
        g.writeNumberField("compile_ms", Math.round(median(ms) * 1000) / 1000.0);
        g.writeEndObject();
        g.flush();
        spec.commandLine().getOut().println();
        spec.commandLine().getOut().flush();
        return SawCli.OK;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
