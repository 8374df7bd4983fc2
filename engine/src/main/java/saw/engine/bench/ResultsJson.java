package saw.engine.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Predicate;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.KernelTiles;
import saw.engine.attention.Pass;

/** The {@code saw.bench/1} encoding of headers and rows (docs/bench-format.md), shared by the JSON and CSV writers. */
final class ResultsJson {
    static final String SCHEMA = "saw.bench/1";
    static final ObjectMapper MAPPER = new ObjectMapper();

    private ResultsJson() {}

    static ObjectNode header(BenchEnvironment env) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("schema", SCHEMA);
        o.put("gpu", env.gpu());
        o.put("driver", env.driver());
        o.put("cuda", env.cuda());
        o.put("compute_capability", env.computeCapability());
        o.put("jvm", env.jvm());
        o.put("os", env.os());
        o.put("saw_version", env.sawVersion());
        o.put("git_commit", env.gitCommit());
        o.put("date", env.date());
        o.put("backend", env.backend());
        o.put("device", env.device());
        o.put("command", env.command());
        o.put("bytes_model", Work.BYTES_MODEL);
        o.put("percentiles", "linear");
        return o;
    }

    /** A row's fields in file order; NaN becomes null, {@code varied} stays a map. */
    static Map<String, Object> flatten(BenchRow r) {
        Map<String, Object> m = new LinkedHashMap<>();
        AttentionProblem p = r.problem();
        m.put("row", r.index());
        m.put("config", r.config());
        Map<String, Object> varied = new LinkedHashMap<>();
        r.varied().forEach((k, v) -> varied.put(k, number(v)));
        m.put("varied", varied);
        m.put("density", number(r.density()));
        m.put("batch", p.batch());
        m.put("heads", p.heads());
        m.put("kv_heads", p.kvHeads());
        m.put("seq_q", p.seqQ());
        m.put("seq_kv", p.seqKv());
        m.put("head_dim", p.headDim());
        m.put("dtype", p.dtype().label());
        m.put("scale", p.scale());
        m.put("softcap", p.softcap());
        m.put("sinks", r.sinks());
        m.put("tile", r.tiles().toString());
        m.put("block_q", r.tiles().blockQ());
        m.put("block_kv", r.tiles().blockKv());
        m.put("pass", r.pass().label());
        m.put("backend", r.backend());
        m.put("kernel", r.kernel());
        m.put("layout", r.layout().isEmpty() ? null : r.layout());
        m.put("tiles_empty", r.stats().empty());
        m.put("tiles_partial", r.stats().partial());
        m.put("tiles_full", r.stats().full());
        m.put("attended_pairs", r.stats().attendedPairs());
        m.put("token_density", r.stats().tokenDensity());
        m.put("block_density", r.stats().blockDensity());
        m.put("warmup", r.warmup());
        m.put("reps", r.ok() ? r.timing().reps() : null);
        m.put("median_ms", r.ok() ? r.timing().medianMs() : null);
        m.put("p10_ms", r.ok() ? r.timing().p10Ms() : null);
        m.put("p90_ms", r.ok() ? r.timing().p90Ms() : null);
        m.put("useful_flops", r.work().usefulFlops());
        m.put("computed_flops", r.work().computedFlops());
        m.put("bytes", r.work().bytes());
        m.put("useful_tflops", number(r.usefulTflops()));
        m.put("computed_tflops", number(r.computedTflops()));
        m.put("bandwidth_gbs", number(r.bandwidthGbs()));
        m.put("status", r.status());
        return m;
    }

    /** NaN as null, integral values as longs (so 256 stays 256, not 256.0). */
    private static Object number(double v) {
        if (Double.isNaN(v)) {
            return null;
        }
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return (long) v;
        }
        return v;
    }

    /** Reads one row; {@code where} ("results.json line 7") starts every message. */
    static BenchRow row(JsonNode o, String where) throws BadResultsFile {
        Fields f = new Fields(o, where);
        AttentionProblem problem;
        KernelTiles tiles;
        Pass pass;
        try {
            int headDim = f.integer("head_dim");
            double scale = f.optionalNumber("scale");
            double softcap = f.optionalNumber("softcap");
            problem = new AttentionProblem(f.integer("batch"), f.integer("heads"), f.integer("kv_heads"),
                    f.integer("seq_q"), f.integer("seq_kv"), headDim, DType.parse(f.text("dtype")),
                    Double.isNaN(scale) ? 1.0 / Math.sqrt(headDim) : scale, Double.isNaN(softcap) ? 0 : softcap);
            tiles = new KernelTiles(f.integer("block_q"), f.integer("block_kv"));
            pass = Pass.parse(f.text("pass"));
        } catch (IllegalArgumentException e) {
            throw new BadResultsFile(where + ": " + e.getMessage());
        }
        Map<String, Double> varied = new LinkedHashMap<>();
        JsonNode v = o.get("varied");
        if (v != null && !v.isNull()) {
            if (!v.isObject()) {
                throw new BadResultsFile(where + ": 'varied' must be an object of JSON pointer -> number");
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (!e.getValue().isNumber()) {
                    throw new BadResultsFile(where + ": varied value '" + e.getKey() + "' must be a number");
                }
                varied.put(e.getKey(), e.getValue().asDouble());
            }
        }
        String status = f.text("status");
        Timing timing = null;
        try {
            if (status.equals(BenchRow.OK)) {
                timing = new Timing(f.number("median_ms"), f.number("p10_ms"), f.number("p90_ms"), f.integer("reps"));
            }
            TileStats stats = new TileStats(f.count("tiles_empty"), f.count("tiles_partial"), f.count("tiles_full"),
                    f.count("attended_pairs"), f.optionalNumber("token_density"), f.optionalNumber("block_density"));
            Work work = new Work(f.number("useful_flops"), f.number("computed_flops"), f.number("bytes"));
            return new BenchRow(f.integer("row"), f.text("config"), varied, f.optionalNumber("density"), problem, tiles,
                    pass, f.optionalBoolean("sinks"), f.text("backend"), f.optionalText("kernel"), f.optionalText("layout"), stats, work, f.optionalInteger("warmup"), timing, status);
        } catch (IllegalArgumentException e) {
            throw new BadResultsFile(where + ": " + e.getMessage());
        }
    }

    static BenchEnvironment environment(JsonNode o, String where) throws BadResultsFile {
        Fields f = new Fields(o, where);
        return new BenchEnvironment(f.optionalText("gpu"), f.optionalText("driver"), f.optionalText("cuda"),
                f.optionalText("compute_capability"), f.optionalText("jvm"), f.optionalText("os"),
                f.optionalText("saw_version"), f.optionalText("git_commit"), f.optionalText("date"), f.text("backend"),
                f.optionalText("device"), f.optionalText("command"));
    }

    /** Typed field access whose failures name the field. */
    private static final class Fields {
        private final JsonNode o;
        private final String where;

        Fields(JsonNode o, String where) {
            this.o = o;
            this.where = where;
        }

        /** Missing or null: an optional field's reader then gives its default. */
        private boolean absent(String name) {
            JsonNode n = o.get(name);
            return n == null || n.isNull();
        }

        private JsonNode required(String name) throws BadResultsFile {
            if (absent(name)) {
                throw new BadResultsFile(where + ": field '" + name + "' is missing");
            }
            return o.get(name);
        }

        /** The field, present and of the kind {@code is} accepts ({@code kind} says it in the failure). */
        private JsonNode typed(String name, Predicate<JsonNode> is, String kind) throws BadResultsFile {
            JsonNode n = required(name);
            if (!is.test(n)) {
                throw new BadResultsFile(where + ": field '" + name + "' must be " + kind + ", got " + n);
            }
            return n;
        }

        String text(String name) throws BadResultsFile {
            return typed(name, JsonNode::isTextual, "a string").asText();
        }

        String optionalText(String name) throws BadResultsFile {
            return absent(name) ? "" : text(name);
        }

        double number(String name) throws BadResultsFile {
            return typed(name, JsonNode::isNumber, "a number").asDouble();
        }

        double optionalNumber(String name) throws BadResultsFile {
            return absent(name) ? Double.NaN : number(name);
        }

        long count(String name) throws BadResultsFile {
            return typed(name, n -> n.canConvertToLong() && n.isIntegralNumber(), "a whole number").asLong();
        }

        int integer(String name) throws BadResultsFile {
            return typed(name, n -> n.isIntegralNumber() && n.canConvertToInt(), "a 32-bit whole number").asInt();
        }

        /** False when absent (files written before the field). */
        boolean optionalBoolean(String name) throws BadResultsFile {
            return !absent(name) && typed(name, JsonNode::isBoolean, "true or false").asBoolean();
        }

        int optionalInteger(String name) throws BadResultsFile {
            return absent(name) ? 0 : integer(name);
        }
    }
}
