package saw.ui.chart;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.jfree.data.category.DefaultCategoryDataset;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.Pass;
import saw.engine.bench.BenchRow;
import saw.engine.bench.ResultsFile;

/**
 * The data of a {@link ChartKind#CONFIG} chart: one category per measured problem (config, sequence length, head
 * dim, and whatever else tells two problems apart), one series per implementation (saw first, then the others by name), and per pass the implementation's
 * best row for that problem over its tile sizes (saw runs several, peers usually report one). saw's own backends
 * ("gpu", "cpu") are labelled "saw". Only problems that saw and at least one other implementation measured are kept,
 * so every group of bars is a comparison.
 */
final class ConfigBars {
    /** The backends {@code saw bench} writes; every other backend is a peer implementation. */
    static final Set<String> SAW_BACKENDS = Set.of("gpu", "cpu");

    /** What makes two rows the same problem (every field but the tile size, the pass and the implementation). */
    private record Problem(String config, Map<String, Double> varied, double density, AttentionProblem shape) {
        static Problem of(BenchRow r) {
            return new Problem(r.config(), r.varied(), r.density(), r.problem());
        }
    }

    /** Categories (problem labels, left to right), series (implementations, saw first) and per-pass bars. */
    record Data(List<String> categories, List<String> series, Map<Pass, DefaultCategoryDataset> bars) {}

    private ConfigBars() {}

    /**
     * The bars of these files; every pass's dataset has all series as rows and all categories as columns (null where
     * an implementation has no row).
     *
     * @throws IllegalArgumentException when no problem has rows of saw and of another implementation
     */
    static Data of(List<ResultsFile> files, Metric.Unit metric) {
        Map<String, String> implLabel = implementationLabels(files);
        // best value per (problem, implementation, pass), problems and implementations in order of first appearance
        Map<Problem, Map<String, Map<Pass, Double>>> best = new LinkedHashMap<>();
        Set<String> sawSeries = new LinkedHashSet<>();
        Set<String> peerSeries = new LinkedHashSet<>();
        for (ResultsFile f : files) {
            for (BenchRow r : f.okRows()) {
                double v = metric.of(r);
                if (!Double.isFinite(v)) {
                    continue;
                }
                String impl = implLabel.get(key(f, r));
                (SAW_BACKENDS.contains(r.backend()) ? sawSeries : peerSeries).add(impl);
                best.computeIfAbsent(Problem.of(r), p -> new LinkedHashMap<>())
                        .computeIfAbsent(impl, i -> new EnumMap<>(Pass.class))
                        .merge(r.pass(), v, Math::max);
            }
        }
        List<Problem> problems = new ArrayList<>();
        for (Map.Entry<Problem, Map<String, Map<Pass, Double>>> e : best.entrySet()) {
            Set<String> impls = e.getValue().keySet();
            if (impls.stream().anyMatch(sawSeries::contains) && impls.stream().anyMatch(peerSeries::contains)) {
                problems.add(e.getKey());
            }
        }
        if (problems.isEmpty()) {
            throw new IllegalArgumentException("nothing to compare: a config chart needs rows of saw (backend gpu or cpu) and of "
                    + "another implementation for the same problem (config, sequence length, head dim, batch, heads, dtype) in "
                    + String.join(", ", files.stream().map(ResultsFile::source).toList()));
        }
        List<String> configOrder = problems.stream().map(Problem::config).distinct().toList();
        problems.sort(Comparator.<Problem>comparingInt(p -> configOrder.indexOf(p.config()))
                .thenComparingInt(p -> p.shape().seqQ()).thenComparingInt(p -> p.shape().seqKv())
                .thenComparingInt(p -> p.shape().headDim()));
        List<String> labels = labels(problems);
        // saw first, then the peers by name, so their colours do not depend on the order the files were given in
        List<String> series = new ArrayList<>(sawSeries);
        peerSeries.stream().sorted().forEach(series::add);
        Map<Pass, DefaultCategoryDataset> bars = new EnumMap<>(Pass.class);
        for (Pass pass : Pass.values()) {
            DefaultCategoryDataset data = new DefaultCategoryDataset();
            boolean any = false;
            for (String s : series) {
                for (int i = 0; i < problems.size(); i++) {
                    Map<Pass, Double> v = best.get(problems.get(i)).get(s);
                    Double value = v == null ? null : v.get(pass);
                    any |= value != null;
                    data.addValue(value, s, labels.get(i));
                }
            }
            if (any) {
                bars.put(pass, data);
            }
        }
        return new Data(labels, List.copyOf(series), bars);
    }

    private static String key(ResultsFile f, BenchRow r) {
        return f.source() + "\u0000" + r.backend();
    }

    /**
     * "saw" for saw's backends ("saw gpu", "saw cpu" when both appear), the backend name for the others; the file
     * name is added where one implementation measured the same problem in two files (a before/after comparison).
     */
    private static Map<String, String> implementationLabels(List<ResultsFile> files) {
        Set<String> sawBackends = new HashSet<>();
        Map<String, Map<Problem, Set<String>>> filesPerProblem = new HashMap<>();
        for (ResultsFile f : files) {
            for (BenchRow r : f.okRows()) {
                if (SAW_BACKENDS.contains(r.backend())) {
                    sawBackends.add(r.backend());
                }
                filesPerProblem.computeIfAbsent(r.backend(), b -> new HashMap<>())
                        .computeIfAbsent(Problem.of(r), p -> new HashSet<>()).add(f.source());
            }
        }
        Map<String, String> labels = new HashMap<>();
        for (ResultsFile f : files) {
            for (BenchRow r : f.okRows()) {
                String b = r.backend();
                String label = !SAW_BACKENDS.contains(b) ? b : sawBackends.size() > 1 ? "saw " + b : "saw";
                boolean repeated = filesPerProblem.get(b).values().stream().anyMatch(s -> s.size() > 1);
                labels.put(key(f, r), repeated ? label + " (" + SeriesKeys.fileName(f.source()) + ")" : label);
            }
        }
        return labels;
    }

    /** "causal 16K D=128", with batch, heads and dtype added where two problems would otherwise read the same. */
    private static List<String> labels(List<Problem> problems) {
        List<String> shortLabels = problems.stream().map(ConfigBars::shortLabel).toList();
        Map<String, Long> counts = shortLabels.stream().collect(Collectors.groupingBy(s -> s, Collectors.counting()));
        List<String> labels = new ArrayList<>();
        for (int i = 0; i < problems.size(); i++) {
            String l = shortLabels.get(i);
            if (counts.get(l) > 1) {
                AttentionProblem s = problems.get(i).shape();
                l += " B=" + s.batch() + " H=" + s.heads() + "/" + s.kvHeads() + " " + s.dtype().label();
            }
            // a category key must be unique, or the dataset would merge two problems' bars
            while (labels.contains(l)) {
                l += "'";
            }
            labels.add(l);
        }
        return labels;
    }

    private static String shortLabel(Problem p) {
        List<String> parts = new ArrayList<>();
        parts.add(p.config());
        p.varied().forEach((k, v) -> parts.add(k.substring(k.lastIndexOf('/') + 1) + "=" + SeriesKeys.number(v)));
        if (!Double.isNaN(p.density())) {
            parts.add("density " + SeriesKeys.number(100 * p.density()) + "%");
        }
        AttentionProblem s = p.shape();
        parts.add(s.seqQ() == s.seqKv() ? tokens(s.seqQ()) : tokens(s.seqQ()) + "x" + tokens(s.seqKv()));
        parts.add("D=" + s.headDim());
        return String.join(" ", parts);
    }

    /** 16384 as "16K", 1048576 as "1M", anything else as the number. */
    static String tokens(int n) {
        if (n % (1 << 20) == 0) {
            return n / (1 << 20) + "M";
        }
        return n % 1024 == 0 ? n / 1024 + "K" : Integer.toString(n);
    }
}
