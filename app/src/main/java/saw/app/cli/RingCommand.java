package saw.app.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
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
import saw.engine.mask.TileLayout;
import saw.engine.ring.RingModel;
import saw.engine.ring.RingPlan;
import saw.engine.ring.RingPlanner;
import saw.engine.ring.RingScheme;
import saw.engine.ring.RingStep;
import saw.ui.chart.ChartFiles;
import saw.ui.chart.RingCharts;

/** {@code saw ring SPEC --devices N --scheme S}: plans a mask over a ring of devices (docs/ring.md). */
@Command(name = "ring", mixinStandardHelpOptions = true,
        description = {"Plans ring attention of a mask over N devices: per device and step the tiles and attended pairs it "
                + "computes and the K/V bytes it passes on, the imbalance, idle fraction and a roofline wall time, and "
                + "the four split schemes side by side.", "--json prints the saw.ring/1 object documented in docs/ring.md."})
final class RingCommand implements Callable<Integer> {
    static final String SCHEMA = "saw.ring/1";

    @Spec
    CommandSpec spec;

    @Mixin
    SpecArgs args;

    @Mixin
    RingOptions options;

    @Option(names = "--devices", paramLabel = "N", required = true, description = "devices in the ring, 2..1024")
    int devices;

    @Option(names = "--scheme", paramLabel = "S", defaultValue = "balanced",
            description = "contiguous, zigzag, striped or balanced (default: ${DEFAULT-VALUE})")
    String scheme;

    @Option(names = "--head-dim", defaultValue = "128", description = "D, for FLOPs and K/V bytes (default: ${DEFAULT-VALUE})")
    int headDim;

    @Option(names = "--kv-heads", description = "K/V heads (GQA); default: the config's heads")
    Integer kvHeads;

    @Option(names = "--json", description = "print the plan as one JSON object instead of tables")
    boolean json;

    @Option(names = "--chart", paramLabel = "FILE", description = "also write the scheme comparison as a chart (.png or .svg)")
    Path chart;

    @Override
    public Integer call() throws ConfigException, IOException {
        MaskConfig c = args.load();
        RingScheme chosen;
        try {
            chosen = RingScheme.parse(scheme);
        } catch (IllegalArgumentException e) {
            throw new BadInput("--scheme: " + e.getMessage());
        }
        if (headDim < 1) {
            throw new BadInput("--head-dim must be >= 1, got " + headDim);
        }
        int hkv = kvHeads == null ? c.heads() : kvHeads;
        if (hkv < 1 || c.heads() % hkv != 0) {
            throw new BadInput("--kv-heads must divide the " + c.heads() + " heads, got " + hkv);
        }
        RingModel model = options.model(headDim, hkv, 2, c.name());
        SizeGuard.compile(c).orThrow();
        SizeGuard.compileTime(c).orThrow();
        TileLayout layout = BoundMask.bind(c.mask(), c.dims()).compile(c.block().q(), c.block().kv());
        RingPlan plan = plan(layout, devices, chosen, model);
        List<Compared> comparison = compare(layout, devices, model);
        if (chart != null) {
            writeChart(c, comparison);
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            writeJson(out, c, plan, comparison);
        } else {
            printTables(out, c, plan, comparison);
        }
        out.flush();
        return SawCli.OK;
    }

    private void writeChart(MaskConfig c, List<Compared> comparison) {
        String name = chart.getFileName() == null ? "" : chart.getFileName().toString().toLowerCase(Locale.ROOT);
        if (!name.endsWith(".png") && !name.endsWith(".svg")) {
            throw new BadInput("--chart: " + chart + " must end in .png or .svg");
        }
        List<RingPlan> plans = new ArrayList<>();
        for (Compared x : comparison) {
            if (x.plan != null) {
                plans.add(x.plan);
            }
        }
        try {
            ChartFiles.write(RingCharts.comparison(c.name() + ": ring schemes over " + devices + " devices", plans), chart,
                    ChartFiles.DEFAULT_WIDTH, ChartFiles.DEFAULT_HEIGHT);
        } catch (IOException e) {
            throw new BadInput("--chart: cannot write " + chart + ": " + e.getMessage());
        }
    }

    private static RingPlan plan(TileLayout layout, int devices, RingScheme scheme, RingModel model) {
        try {
            return RingPlanner.plan(layout, devices, scheme, model);
        } catch (IllegalArgumentException e) {
            throw new BadInput("--devices " + devices + ", --scheme " + scheme.label() + ": " + e.getMessage());
        }
    }

    /** One scheme's plan, or why it cannot split this layout. */
    record Compared(RingScheme scheme, RingPlan plan, String why) {}

    static List<Compared> compare(TileLayout layout, int devices, RingModel model) {
        List<Compared> out = new ArrayList<>();
        for (RingScheme s : RingScheme.values()) {
            try {
                out.add(new Compared(s, RingPlanner.plan(layout, devices, s, model), null));
            } catch (IllegalArgumentException e) {
                out.add(new Compared(s, null, e.getMessage()));
            }
        }
        // worst first
        out.sort(Comparator.comparingDouble((Compared x) -> x.plan == null ? Double.MAX_VALUE : x.plan.predicted().wallMs())
                .reversed());
        return out;
    }

    private static void printTables(PrintWriter out, MaskConfig c, RingPlan plan, List<Compared> comparison) {
        TileLayout l = plan.layout();
        RingModel m = plan.model();
        int n = plan.devices();
        out.printf(Locale.ROOT, "saw ring %s: %d tokens, batch %d, heads %d, block %dx%d, %d devices, scheme %s%n", c.name(),
                l.dims().seqQ(), l.dims().batch(), l.dims().heads(), l.blockQ(), l.blockKv(), n, plan.scheme().label());
        out.printf(Locale.ROOT, "chunks: %d of %d tokens; model: D=%d, %d K/V heads, %d-byte K/V, %.1f TFLOP/s (%s), link %.0f GB/s%n",
                plan.chunkCount(), plan.chunkTokens(), m.headDim(), m.kvHeads(), m.elementBytes(), m.tflops(), m.rateSource(),
                m.linkGBs());
        long total = plan.totalPairs();
        out.printf("%n%6s %10s %16s %7s %11s %8s%n", "device", "tokens", "pairs", "share", "compute ms", "skipped");
        for (int d = 0; d < n; d++) {
            int skipped = 0;
            for (int s = 0; s < n; s++) {
                skipped += plan.step(d, s).skipped() ? 1 : 0;
            }
            long pairs = plan.devicePairs(d);
            out.printf(Locale.ROOT, "%6d %10d %16d %6.2f%% %11.3f %8d%n", d, plan.tokens(d), pairs,
                    total == 0 ? 0 : 100.0 * pairs / total, m.computeMs(pairs), skipped);
        }
        out.printf("%n%4s %8s %14s %12s %9s%n", "step", "critical", "compute ms", "transfer ms", "step ms");
        for (int s = 0; s < n; s++) {
            RingStep st = plan.step(plan.criticalDevice(s), s);
            out.printf(Locale.ROOT, "%4d %8d %14.3f %12.3f %9.3f%n", s, st.device(), st.computeMs(), st.transferMs(), st.ms());
        }
        RingPlan.Prediction p = plan.predicted();
        out.printf(Locale.ROOT, "%nimbalance %.2f%%, idle %.1f%%, predicted %.3f ms against an ideal %.3f ms: efficiency %.1f%%, "
                + "%d of %d (device, step) launches skipped%n", 100 * plan.imbalance(), 100 * p.idleFraction(), p.wallMs(),
                p.idealMs(), 100 * p.efficiency(), p.skippedSteps(), n * n);
        out.printf("%nschemes (worst first):%n%-10s %10s %7s %13s %10s %8s%n", "scheme", "imbalance", "idle", "predicted ms",
                "efficiency", "skipped");
        for (Compared x : comparison) {
            if (x.plan == null) {
                out.printf("%-10s %s%n", x.scheme.label(), x.why);
                continue;
            }
            RingPlan.Prediction q = x.plan.predicted();
            out.printf(Locale.ROOT, "%-10s %9.2f%% %6.1f%% %13.3f %9.1f%% %8d%n", x.scheme.label(), 100 * x.plan.imbalance(),
                    100 * q.idleFraction(), q.wallMs(), 100 * q.efficiency(), q.skippedSteps());
        }
    }

    private static void writeJson(PrintWriter out, MaskConfig c, RingPlan plan, List<Compared> comparison) throws IOException {
        JsonGenerator g = new JsonFactory().createGenerator(out);
        g.setPrettyPrinter(new DefaultPrettyPrinter().withSeparators(
                Separators.createDefaultInstance().withObjectFieldValueSpacing(Separators.Spacing.AFTER)));
        TileLayout l = plan.layout();
        RingModel m = plan.model();
        int n = plan.devices();
        g.writeStartObject();
        g.writeStringField("schema", SCHEMA);
        g.writeStringField("config", c.name());
        g.writeNumberField("seq_len", l.dims().seqQ());
        g.writeNumberField("batch", l.dims().batch());
        g.writeNumberField("heads", l.dims().heads());
        g.writeNumberField("block_q", l.blockQ());
        g.writeNumberField("block_kv", l.blockKv());
        g.writeNumberField("devices", n);
        g.writeStringField("scheme", plan.scheme().label());
        g.writeNumberField("chunk_tokens", plan.chunkTokens());
        g.writeArrayFieldStart("chunk_owner");
        for (int ch = 0; ch < plan.chunkCount(); ch++) {
            g.writeNumber(plan.chunkOwner(ch));
        }
        g.writeEndArray();
        g.writeObjectFieldStart("model");
        g.writeNumberField("head_dim", m.headDim());
        g.writeNumberField("kv_heads", m.kvHeads());
        g.writeNumberField("element_bytes", m.elementBytes());
        g.writeNumberField("tflops", m.tflops());
        g.writeStringField("rate_source", m.rateSource());
        g.writeNumberField("link_gbs", m.linkGBs());
        g.writeEndObject();
        g.writeArrayFieldStart("device_totals");
        for (int d = 0; d < n; d++) {
            g.writeStartObject();
            g.writeNumberField("device", d);
            g.writeNumberField("tokens", plan.tokens(d));
            g.writeNumberField("pairs", plan.devicePairs(d));
            g.writeNumberField("compute_ms", m.computeMs(plan.devicePairs(d)));
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeArrayFieldStart("steps");
        for (RingStep s : plan.steps()) {
            g.writeStartObject();
            g.writeNumberField("device", s.device());
            g.writeNumberField("step", s.step());
            g.writeNumberField("kv_shard", s.kvShard());
            g.writeNumberField("send_to", s.sendTo());
            g.writeNumberField("recv_from", s.recvFrom());
            g.writeNumberField("pairs", s.pairs());
            g.writeNumberField("full_tiles", s.fullTiles());
            g.writeNumberField("partial_tiles", s.partialTiles());
            g.writeNumberField("send_bytes", s.sendBytes());
            g.writeNumberField("recv_bytes", s.recvBytes());
            g.writeNumberField("compute_ms", s.computeMs());
            g.writeNumberField("transfer_ms", s.transferMs());
            g.writeBooleanField("skipped", s.skipped());
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeArrayFieldStart("step_critical");
        for (int s = 0; s < n; s++) {
            g.writeStartObject();
            g.writeNumberField("step", s);
            g.writeNumberField("device", plan.criticalDevice(s));
            g.writeNumberField("ms", plan.stepMs(s));
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeFieldName("summary");
        writeSummary(g, plan);
        g.writeArrayFieldStart("comparison");
        for (Compared x : comparison) {
            if (x.plan == null) {
                g.writeStartObject();
                g.writeStringField("scheme", x.scheme.label());
                g.writeStringField("unavailable", x.why);
                g.writeEndObject();
            } else {
                writeSummary(g, x.plan);
            }
        }
        g.writeEndArray();
        g.writeEndObject();
        g.flush();
        out.println();
    }

    private static void writeSummary(JsonGenerator g, RingPlan plan) throws IOException {
        RingPlan.Prediction p = plan.predicted();
        g.writeStartObject();
        g.writeStringField("scheme", plan.scheme().label());
        g.writeNumberField("total_pairs", plan.totalPairs());
        g.writeNumberField("imbalance", plan.imbalance());
        g.writeNumberField("idle_fraction", p.idleFraction());
        g.writeNumberField("predicted_ms", p.wallMs());
        g.writeNumberField("ideal_ms", p.idealMs());
        g.writeNumberField("efficiency", p.efficiency());
        g.writeNumberField("skipped_steps", p.skippedSteps());
        g.writeEndObject();
    }
}
