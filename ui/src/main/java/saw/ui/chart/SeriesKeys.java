package saw.ui.chart;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import saw.engine.bench.BenchRow;
import saw.engine.bench.ResultsFile;

/**
 * Names chart series. A series is one implementation (the row's backend: "gpu", "cpu", "flexattention", ...; with
 * the file name added when two files bring the same one) at one tile size, plus whatever else differs between the
 * rows on the chart (config, swept values, sequence length, head dim, learned sinks, ...). What all rows share goes to
 * the subtitle.
 */
final class SeriesKeys {
    /** A successful row and the implementation label it is charted under. */
    record Point(String source, BenchRow row) {}

    /** The row attributes a series can be told apart by, in the order they appear in its name. */
    enum Attribute {
        SOURCE(p -> p.source()),
        TILE(p -> p.row().tiles().toString()),
        CONFIG(p -> p.row().config()),
        VARIED(p -> p.row().varied().entrySet().stream()
                .map(e -> e.getKey().substring(e.getKey().lastIndexOf('/') + 1) + "=" + number(e.getValue()))
                .collect(Collectors.joining(" "))),
        DENSITY(p -> Double.isNaN(p.row().density()) ? "" : "density " + number(100 * p.row().density()) + "%"),
        SEQ(p -> p.row().problem().seqQ() == p.row().problem().seqKv() ? "S=" + p.row().problem().seqQ()
                : "S=" + p.row().problem().seqQ() + "x" + p.row().problem().seqKv()),
        HEAD_DIM(p -> "D=" + p.row().problem().headDim()),
        HEADS(p -> "B=" + p.row().problem().batch() + " H=" + p.row().problem().heads() + "/" + p.row().problem().kvHeads()),
        DTYPE(p -> p.row().problem().dtype().label()),
        SINKS(p -> p.row().sinks() ? "learned sinks" : "");

        private final Function<Point, String> text;

        Attribute(Function<Point, String> text) {
            this.text = text;
        }

        String of(Point p) {
            return text.apply(p);
        }
    }

    private final ChartKind kind;
    private final Set<Attribute> varying;
    private final Map<Attribute, String> shared = new EnumMap<>(Attribute.class);

    SeriesKeys(ChartKind kind, List<Point> points) {
        this.kind = kind;
        this.varying = EnumSet.noneOf(Attribute.class);
        for (Attribute a : Attribute.values()) {
            Set<String> values = points.stream().map(a::of).collect(Collectors.toCollection(LinkedHashSet::new));
            if (values.size() > 1) {
                varying.add(a);
            } else if (!values.isEmpty() && !values.iterator().next().isEmpty()) {
                shared.put(a, values.iterator().next());
            }
        }
    }

    /** The series a point belongs to. */
    String key(Point p) {
        List<String> parts = new ArrayList<>();
        for (Attribute a : Attribute.values()) {
            if (onAxis(a)) {
                continue;
            }
            if (a == Attribute.SOURCE || a == Attribute.TILE || varying.contains(a)) {
                String t = a.of(p);
                if (!t.isEmpty()) {
                    parts.add(t);
                }
            }
        }
        return String.join(" ", parts);
    }

    /** What every point shares and no series name says, e.g. "bf16 · D=128 · B=4 H=16/16". */
    String sharedDescription() {
        List<String> parts = new ArrayList<>();
        for (Map.Entry<Attribute, String> e : shared.entrySet()) {
            Attribute a = e.getKey();
            if (a != Attribute.SOURCE && a != Attribute.TILE && !onAxis(a)) {
                parts.add(e.getValue());
            }
        }
        return String.join(" · ", parts);
    }

    /** Attributes the x axis already shows (a swept value changes the density, so it counts as on that axis). */
    private boolean onAxis(Attribute a) {
        if (kind == ChartKind.DENSITY) {
            return a == Attribute.DENSITY || a == Attribute.VARIED;
        }
        if (kind == ChartKind.CONFIG) {
            // a config chart's categories name the problem; each bar is an implementation's best tile
            return a != Attribute.SOURCE && a != Attribute.HEADS && a != Attribute.DTYPE && a != Attribute.SINKS;
        }
        return kind == ChartKind.SEQ ? a == Attribute.SEQ : a == Attribute.TILE;
    }

    /** Every successful row of the files, labelled by backend, with the file name where backends repeat. */
    static List<Point> points(List<ResultsFile> files) {
        Map<String, Set<String>> filesPerBackend = new HashMap<>();
        for (ResultsFile f : files) {
            for (BenchRow r : f.okRows()) {
                filesPerBackend.computeIfAbsent(r.backend(), b -> new HashSet<>()).add(f.source());
            }
        }
        List<Point> points = new ArrayList<>();
        for (ResultsFile f : files) {
            for (BenchRow r : f.okRows()) {
                String label = filesPerBackend.get(r.backend()).size() > 1
                        ? r.backend() + " (" + fileName(f.source()) + ")" : r.backend();
                points.add(new Point(label, r));
            }
        }
        return points;
    }

    static String fileName(String source) {
        try {
            Path name = Path.of(source).getFileName();
            return name == null ? source : name.toString();
        } catch (java.nio.file.InvalidPathException e) {
            return source;
        }
    }

    static String number(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        return String.format(java.util.Locale.ROOT, "%.4g", v);
    }
}
