package saw.engine.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import saw.engine.reliability.Bases.Base;
import saw.engine.reliability.Verdicts.Kind;
import saw.engine.reliability.Verdicts.Verdict;

/**
 * Each hand-written nasty config (engine/src/test/resources/nasty) does what nasty/expected.tsv says: the ok-*
 * files load (and compile, or are too large to compile here), every other file is rejected with a first problem
 * that says the expected thing at a place. The newer-schema files keep "made by a newer saw" tested.
 */
class NastyCorpusTest {
    @Test
    void everyNastyConfigLoadsOrIsRejectedAsExpected() {
        Map<String, String[]> expected = new HashMap<>();
        for (String line : Bases.expectations()) {
            if (!line.isBlank() && !line.startsWith("#")) {
                String[] f = line.split("\t", 3);
                expected.put(f[0], f);
            }
        }
        List<String> wrong = new ArrayList<>();
        int loaded = 0;
        int rejected = 0;
        int tooLarge = 0;
        long slowest = 0;
        List<Base> corpus = Bases.nasty();
        for (Base b : corpus) {
            String[] e = expected.remove(b.name());
            if (e == null) {
                wrong.add(b.name() + ": not listed in nasty/expected.tsv");
                continue;
            }
            long start = System.nanoTime();
            Verdict v = Verdicts.judge(b.name(), new ByteArrayInputStream(b.bytes()));
            slowest = Math.max(slowest, System.nanoTime() - start);
            boolean loads = v.kind() == Kind.COMPILED || v.kind() == Kind.COMPILED_SMALLER || v.kind() == Kind.LOADED_TOO_LARGE;
            if (e[1].equals("loads") != loads || v.kind() == Kind.FAILED || !v.detail().contains(e[2])) {
                wrong.add(b.name() + ": expected " + e[1] + " with \"" + e[2] + "\", got " + v);
            }
            loaded += loads ? 1 : 0;
            rejected += v.kind() == Kind.REJECTED ? 1 : 0;
            tooLarge += v.kind() == Kind.LOADED_TOO_LARGE ? 1 : 0;
        }
        expected.keySet().forEach(name -> wrong.add(name + ": listed in nasty/expected.tsv but missing"));
        if (!wrong.isEmpty()) {
            fail(String.join("\n", wrong));
        }
        assertEquals(corpus.size(), loaded + rejected);
        assertTrue(corpus.size() >= 80, "the corpus shrank to " + corpus.size());
        ReliabilityLog.write("config-nasty", new ReliabilityLog.Row("Config inputs", 99,
                "hand-written nasty configs (engine/src/test/resources/nasty): bad JSON, NaN, 41-digit numbers, invalid UTF-8, "
                        + "$ref, @class, URLs and paths as names, newer schemas, terminal escapes, 2^24 tokens",
                corpus.size(), "rejected " + rejected + ", each with the expected first problem at its line and column; loaded "
                        + loaded + " as expected (" + tooLarge + " of them too large to compile here: the size guard refuses them)",
                "nothing", "slowest " + ConfigFuzzTest.ms(slowest)));
    }
}
