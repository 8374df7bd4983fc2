package saw.engine.bench;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.KernelTiles;
import saw.engine.attention.Pass;
import saw.engine.config.ConfigException;
import saw.engine.config.ConfigReader;
import saw.engine.config.ConfigWriter;
import saw.engine.config.MaskConfig;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.MaskChecks;

/**
 * What to measure: a config (as its JSON tree, so any numeric field can be swept by JSON pointer), the swept
 * fields, random-block densities, sequence lengths, tile sizes, passes and shapes. {@link #points} expands it in
 * the order vary values, sequence length, head dim, density, tile size, pass (the last changes fastest), editing the
 * tree at each pointer and reading it back through {@link ConfigReader}, so a swept value gets the same checks
 * and messages as a config file.
 *
 * <p>{@code densities}, when not empty, replace the config's mask by {@link Mask.RandomBlocks} at each tile size
 * with round(density * kv-blocks) blocks per q-block row (at least one), drawn from {@code seed}; the config then
 * only gives the sequence lengths. {@code seqs}, when not empty, set both sequence lengths. {@code batch},
 * {@code heads} and {@code kvHeads} of 0 take the config's batch and heads (and kvHeads = heads).
 */
public record Sweep(String source, JsonNode config, List<Vary> vary, List<Double> densities, List<Integer> seqs,
                    List<KernelTiles> tiles, List<Pass> passes, int batch, int heads, int kvHeads, List<Integer> headDims,
                    DType dtype, long seed) {
    public static final String RANDOM_BLOCKS = "random blocks";

    public Sweep {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(dtype, "dtype");
        config = config.deepCopy();
        vary = List.copyOf(vary);
        densities = List.copyOf(densities);
        seqs = List.copyOf(seqs);
        tiles = List.copyOf(tiles);
        passes = List.copyOf(passes);
        headDims = List.copyOf(headDims);
        if (!config.isObject()) {
            throw new IllegalArgumentException(source + ": a config is a JSON object");
        }
        if (tiles.isEmpty() || passes.isEmpty() || headDims.isEmpty()) {
            throw new IllegalArgumentException("a sweep needs at least one tile size, pass and head dim");
        }
    }

    /** The JSON tree of a loaded config, for sweeping it. */
    public static JsonNode tree(MaskConfig config) {
        try {
            return ResultsJson.MAPPER.readTree(ConfigWriter.toJson(config));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("saw wrote a config it cannot read back", e);
        }
    }

    /**
     * Every point, in sweep order.
     *
     * @throws BadSweep naming the option, pointer or config problem, before anything runs
     */
    public List<SweepPoint> points() throws BadSweep {
        checkOptions();
        List<SweepPoint> points = new ArrayList<>();
        for (Map<String, Double> values : combinations()) {
            ObjectNode tree = (ObjectNode) config.deepCopy();
            for (Map.Entry<String, Double> v : values.entrySet()) {
                set(tree, v.getKey(), v.getValue());
            }
            for (Integer seq : seqs.isEmpty() ? java.util.Collections.<Integer>singletonList(null) : seqs) {
                if (seq != null) {
                    tree.put("seq_len_q", seq);
                    tree.put("seq_len_kv", seq);
                }
                MaskConfig c = read(tree, values, seq);
                addPoints(points, c, values, seq);
            }
        }
        return points;
    }

    private void addPoints(List<SweepPoint> points, MaskConfig c, Map<String, Double> values, Integer seq) throws BadSweep {
        int b = batch > 0 ? batch : c.batch();
        int h = heads > 0 ? heads : c.heads();
        int hkv = kvHeads > 0 ? kvHeads : h;
        Dims dims;
        try {
            dims = new Dims(c.seqLenQ(), c.seqLenKv(), b, h);
        } catch (IllegalArgumentException e) {
            throw new BadSweep(e.getMessage());
        }
        List<Double> ds = densities.isEmpty() ? java.util.Collections.singletonList(Double.NaN) : densities;
        for (int d : headDims) {
            AttentionProblem problem;
            try {
                problem = AttentionProblem.of(b, h, hkv, c.seqLenQ(), c.seqLenKv(), d, dtype);
            } catch (IllegalArgumentException e) {
                throw new BadSweep(e.getMessage());
            }
            for (double density : ds) {
                for (KernelTiles t : tiles) {
                    Mask mask = Double.isNaN(density) ? c.mask() : randomBlocks(t, density, c.seqLenKv());
                    List<MaskChecks.Problem> problems = MaskChecks.check(mask, dims);
                    if (!problems.isEmpty()) {
                        throw new BadSweep(where(values, seq) + "with batch " + b + " and " + h + " heads: " + problems.get(0));
                    }
                    String name = Double.isNaN(density) ? c.name() : RANDOM_BLOCKS;
                    for (Pass p : passes) {
                        points.add(new SweepPoint(name, values, density, mask, problem, t, p));
                    }
                }
            }
        }
    }

    private Mask randomBlocks(KernelTiles t, double density, int seqKv) {
        int nkv = (seqKv + t.blockKv() - 1) / t.blockKv();
        int perRow = (int) Math.max(1, Math.min(nkv, Math.round(density * nkv)));
        return new Mask.RandomBlocks(t.blockQ(), t.blockKv(), perRow, seed);
    }

    private void checkOptions() throws BadSweep {
        for (double d : densities) {
            if (!(d > 0 && d <= 1)) {
                throw new BadSweep("--density " + d + " is not in (0, 1]; densities are fractions of the tiles, e.g. 0.05,0.5,1");
            }
        }
        for (KernelTiles t : tiles) {
            if (!MaskChecks.isValidBlock(t.blockQ()) || !MaskChecks.isValidBlock(t.blockKv())) {
                throw new BadSweep("--block " + t + ": tile sizes must be powers of two in 16..512");
            }
        }
        for (int s : seqs) {
            if (s < 1 || s > Dims.MAX_SEQ) {
                throw new BadSweep("--seq " + s + " is not in 1.." + Dims.MAX_SEQ);
            }
        }
        for (int d : headDims) {
            if (d < 1) {
                throw new BadSweep("--head-dim " + d + " must be >= 1");
            }
        }
        if (batch < 0 || heads < 0 || kvHeads < 0) {
            throw new BadSweep("--batch, --heads and --kv-heads must be >= 1");
        }
        for (Vary v : vary) {
            // checked once up front, so a bad pointer is reported before any point is built
            set((ObjectNode) config.deepCopy(), v.pointer(), v.values().get(0));
        }
    }

    /** Every combination of vary values, the first vary changing slowest; one empty map when nothing varies. */
    private List<Map<String, Double>> combinations() {
        List<Map<String, Double>> out = new ArrayList<>();
        out.add(new LinkedHashMap<>());
        for (Vary v : vary) {
            List<Map<String, Double>> next = new ArrayList<>();
            for (Map<String, Double> partial : out) {
                for (double value : v.values()) {
                    Map<String, Double> m = new LinkedHashMap<>(partial);
                    m.put(v.pointer(), value);
                    next.add(m);
                }
            }
            out = next;
        }
        return out;
    }

    private MaskConfig read(ObjectNode tree, Map<String, Double> values, Integer seq) throws BadSweep {
        try {
            return ConfigReader.parse(source, ResultsJson.MAPPER.writeValueAsString(tree));
        } catch (ConfigException e) {
            StringBuilder m = new StringBuilder(where(values, seq));
            for (var p : e.problems()) {
                m.append(p.path().isEmpty() ? "" : p.path() + ": ").append(p.message()).append("; ");
            }
            throw new BadSweep(m.substring(0, m.length() - 2));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private String where(Map<String, Double> values, Integer seq) {
        StringBuilder s = new StringBuilder(source);
        List<String> parts = new ArrayList<>();
        values.forEach((k, v) -> parts.add(k + "=" + SweepPoint.shortNumber(v)));
        if (seq != null) {
            parts.add("--seq " + seq);
        }
        if (!parts.isEmpty()) {
            s.append(" with ").append(String.join(", ", parts));
        }
        return s.append(": ").toString();
    }

    /** Sets the number at {@code pointer}, which must already hold a number. */
    static void set(ObjectNode root, String pointer, double value) throws BadSweep {
        JsonPointer ptr;
        try {
            ptr = JsonPointer.compile(pointer);
        } catch (IllegalArgumentException e) {
            throw new BadSweep("--vary " + pointer + ": not a JSON pointer (" + e.getMessage() + ")");
        }
        JsonNode parent = null;
        JsonNode node = root;
        String at = "";
        String token = "";
        for (JsonPointer rest = ptr; !rest.matches(); rest = rest.tail()) {
            token = rest.getMatchingProperty();
            JsonNode child = node.isObject() ? node.get(token)
                    : node.isArray() && rest.getMatchingIndex() >= 0 ? node.get(rest.getMatchingIndex()) : null;
            if (child == null) {
                throw new BadSweep("--vary " + pointer + ": " + missing(node, at, token));
            }
            parent = node;
            node = child;
            at = at + "/" + token.replace("~", "~0").replace("/", "~1");
        }
        if (!node.isNumber()) {
            String article = kind(node).matches("[aeiou].*") ? "an " : "a ";
            throw new BadSweep("--vary " + pointer + ": the value there is " + article + kind(node) + ", not a number; "
                    + "--vary sweeps numeric fields");
        }
        boolean whole = value == Math.rint(value) && Math.abs(value) <= Long.MAX_VALUE / 2.0;
        if (node.isIntegralNumber() && !whole) {
            throw new BadSweep("--vary " + pointer + ": the field holds a whole number; " + value + " is not one");
        }
        JsonNode replacement = node.isIntegralNumber()
                ? ResultsJson.MAPPER.getNodeFactory().numberNode((long) value)
                : ResultsJson.MAPPER.getNodeFactory().numberNode(value);
        if (parent instanceof ObjectNode o) {
            o.set(token, replacement);
        } else {
            ((ArrayNode) parent).set(Integer.parseInt(token), replacement);
        }
    }

    /** Why {@code node} (at pointer {@code at}) has nothing called {@code token}. */
    private static String missing(JsonNode node, String at, String token) {
        String where = at.isEmpty() ? "the config" : at;
        if (node.isObject()) {
            List<String> keys = new ArrayList<>();
            node.fieldNames().forEachRemaining(keys::add);
            return where + " has no field '" + token + "' (it has: " + String.join(", ", keys) + ")";
        }
        if (node.isArray()) {
            return where + " is an array of " + node.size() + " elements; '" + token + "' is not an index in it";
        }
        return where + " is a " + kind(node) + "; there is nothing inside it";
    }

    private static String kind(JsonNode n) {
        if (n.isObject()) {
            return "object";
        }
        if (n.isArray()) {
            return "array";
        }
        if (n.isTextual()) {
            return "string";
        }
        if (n.isBoolean()) {
            return "boolean";
        }
        return n.isNull() ? "null" : n.getNodeType().toString().toLowerCase(java.util.Locale.ROOT);
    }
}
