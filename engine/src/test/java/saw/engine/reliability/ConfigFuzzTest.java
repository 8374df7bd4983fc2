package saw.engine.reliability;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import saw.engine.reliability.Bases.Base;
import saw.engine.reliability.Mutator.Mutant;
import saw.engine.reliability.Mutator.Op;
import saw.engine.reliability.Verdicts.Kind;
import saw.engine.reliability.Verdicts.Verdict;

/**
 * Mutates every preset and every nasty config, seeded, more than 10,000 times, and checks each mutant with
 * {@link Verdicts}: it loads into a config that writes back to itself and compiles, or it is rejected with a place
 * and a sentence; nothing else may happen. Each case is timed; the test fails only on a gross time (a loaded
 * 2-core CI machine must not make it flaky) and writes the distribution to docs/reliability.md.
 */
class ConfigFuzzTest {
    private static final int MUTANTS = 10_200;
    /** Per thousand cases: each giant (100 MB string, deep nesting, 10^8 entries) is drawn this often. */
    private static final int GIANT_PER_MILLE = 12;
    private static final long GROSS_NANOS = TimeUnit.SECONDS.toNanos(5);

    /** Counts and times for one op. */
    private static final class Tally {
        final long[] kinds = new long[Kind.values().length];
        final List<Long> nanos = new ArrayList<>();

        long cases() {
            return nanos.size();
        }
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void everyMutantLoadsAndCompilesOrIsRejectedWithAPlace() {
        long master = Long.getLong("saw.test.seed", 0xF0221L);
        List<Base> bases = new ArrayList<>(Bases.presets());
        bases.addAll(Bases.nasty());
        Map<Op, Tally> tallies = new EnumMap<>(Op.class);
        for (Op op : Op.values()) {
            tallies.put(op, new Tally());
        }
        List<String> failures = new ArrayList<>();
        long slowest = -1;
        String slowestCase = "";
        for (int n = 0; n < MUTANTS; n++) {
            long seed = master * 1_000_003L + n;
            SplittableRandom rnd = new SplittableRandom(seed);
            Base base = bases.get(n % bases.size());
            Mutant m = Mutator.mutate(base.bytes(), pickOp(rnd), rnd);
            long start = System.nanoTime();
            Verdict v = Verdicts.judge("mutant.json", m.open());
            long nanos = System.nanoTime() - start;
            Tally t = tallies.get(m.ops().get(0));
            t.kinds[v.kind().ordinal()]++;
            t.nanos.add(nanos);
            String which = m.ops() + " of " + base.name() + " (seed " + seed + ")";
            if (nanos > slowest) {
                slowest = nanos;
                slowestCase = which;
            }
            if (v.kind() == Kind.FAILED || nanos > GROSS_NANOS) {
                String doc = m.describe();
                failures.add(which + " took " + nanos / 1_000_000 + " ms: " + v.detail() + "\n  document: "
                        + (doc.length() > 600 ? doc.substring(0, 600) + "..." : doc));
            }
        }
        long total = tallies.values().stream().mapToLong(Tally::cases).sum();
        for (Op op : Op.values()) {
            writeRow(op, tallies.get(op));
        }
        long[] all = tallies.values().stream().flatMap(t -> t.nanos.stream()).mapToLong(Long::longValue).sorted().toArray();
        System.out.printf(Locale.ROOT, "config fuzz: %d cases, per case p50 %s, p99 %s, max %s (%s)%n", total,
                ms(percentile(all, 0.5)), ms(percentile(all, 0.99)), ms(slowest), slowestCase);
        if (!failures.isEmpty()) {
            fail(failures.size() + " of " + total + " mutants failed (replay one with -Dsaw.test.seed, master " + master + "):\n"
                    + String.join("\n", failures.subList(0, Math.min(20, failures.size()))));
        }
        assertTrue(total >= 10_000, "only " + total + " cases");
        for (Op op : Op.values()) {
            Tally t = tallies.get(op);
            assertTrue(t.cases() > 0 && t.kinds[Kind.REJECTED.ordinal()] > 0, op + " was not tried or never rejected");
        }
    }

    private static Op pickOp(SplittableRandom rnd) {
        int r = rnd.nextInt(1000);
        if (r < 3 * GIANT_PER_MILLE) {
            return Op.values()[Op.HUGE_STRING.ordinal() + r / GIANT_PER_MILLE];
        }
        return Op.values()[rnd.nextInt(Op.HUGE_STRING.ordinal())];
    }

    private static void writeRow(Op op, Tally t) {
        long rejected = t.kinds[Kind.REJECTED.ordinal()];
        long compiled = t.kinds[Kind.COMPILED.ordinal()];
        long smaller = t.kinds[Kind.COMPILED_SMALLER.ordinal()];
        long large = t.kinds[Kind.LOADED_TOO_LARGE.ordinal()];
        long failed = t.kinds[Kind.FAILED.ordinal()];
        String did = "rejected " + rejected + " with file:line:column, JSON pointer and a sentence; loaded " + (compiled + smaller + large)
                + " (compiled " + compiled + " at their size, " + smaller + " at " + Verdicts.SMALL_SEQ + " tokens"
                + (large > 0 ? ", " + large + " too large to compile here" : "") + ")" + (failed > 0 ? "; FAILED " + failed : "");
        long[] sorted = t.nanos.stream().mapToLong(Long::longValue).sorted().toArray();
        String measured = "per case: median " + ms(percentile(sorted, 0.5)) + ", p99 " + ms(percentile(sorted, 0.99))
                + ", max " + ms(sorted.length == 0 ? 0 : sorted[sorted.length - 1]);
        ReliabilityLog.write("config-fuzz-" + String.format(Locale.ROOT, "%02d", op.ordinal()),
                new ReliabilityLog.Row("Config inputs", 100 + op.ordinal(),
                        "mutants of the 11 presets and the nasty configs: " + op.label + (op.giant() ? "" : " (1 to 3 edits)"),
                        t.cases(), did, failed == 0 ? "nothing" : "see FAILED", measured));
    }

    static long percentile(long[] sorted, double p) {
        return sorted.length == 0 ? 0 : sorted[(int) Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
    }

    static String ms(long nanos) {
        return String.format(Locale.ROOT, "%.2f ms", nanos / 1e6);
    }
}
