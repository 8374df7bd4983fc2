package saw.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class RingCommandTest {
    private static CliResult run(String... args) {
        return CliResult.ofWriters(args);
    }

    @Test
    void jsonPlanHasEveryStepAndItsPairsSumToTheMasks() throws Exception {
        CliResult r = run("ring", "preset:packed-documents", "--devices", "4", "--scheme", "zigzag", "--json");
        assertEquals(SawCli.OK, r.code(), r.err());
        JsonNode plan = new ObjectMapper().readTree(r.out());
        assertEquals("saw.ring/1", plan.get("schema").asText());
        assertEquals(16, plan.get("steps").size());
        CliResult stats = run("stats", "preset:packed-documents", "--repeat", "1");
        long pairs = new ObjectMapper().readTree(stats.out()).get("attended_pairs").asLong();
        long sum = 0;
        for (JsonNode s : plan.get("steps")) {
            sum += s.get("pairs").asLong();
            assertEquals(Math.floorMod(s.get("device").asInt() - s.get("step").asInt(), 4), s.get("kv_shard").asInt());
        }
        assertEquals(pairs, sum);
        assertEquals(pairs, plan.get("summary").get("total_pairs").asLong());
        assertEquals(4, plan.get("comparison").size());
    }

    @Test
    void tablesEndWithTheSchemeComparison() {
        CliResult r = run("ring", "preset:causal", "--seq", "16384", "--devices", "8");
        assertEquals(SawCli.OK, r.code(), r.err());
        assertTrue(r.out().contains("schemes (worst first):"), r.out());
        assertTrue(r.out().contains("\ncontiguous "), r.out());
    }

    @Test
    void badRingArgumentsGiveOneLineAndExitTwo() {
        String[][] cases = {
            {"ring", "preset:causal", "--devices", "1"},
            {"ring", "preset:causal", "--devices", "8", "--scheme", "spiral"},
            {"ring", "preset:causal", "--seq", "256", "--devices", "8"},
            {"ring", "preset:causal", "--devices", "8", "--link", "fast"},
            {"ring", "preset:causal", "--devices", "8", "--tflops", "-3"},
            {"ring", "preset:causal", "--devices", "8", "--kv-heads", "5"},
            {"ring-run", "preset:causal", "--seq", "256", "--devices", "0", "--backend", "cpu"},
            {"ring-run", "preset:causal", "--seq", "256", "--backend", "tpu"},
            {"ring-run", "preset:causal", "--seq", "256", "--scheme", "ring", "--backend", "cpu"},
            {"ring-run", "preset:causal", "--seq", "256", "--repeat", "-1", "--backend", "cpu"},
            {"ring-run", "window(16)", "--backend", "cpu"},
            {"ring-run", "window(16", "--seq", "256", "--backend", "cpu"},
            {"ring-run", "causal", "--seq", "256", "--devices", "8", "--backend", "cpu"},
        };
        for (String[] args : cases) {
            CliResult r = run(args);
            String what = String.join(" ", args);
            assertEquals(SawCli.BAD_INPUT, r.code(), what + ": " + r.out() + r.err());
            assertEquals(1, r.err().strip().lines().count(), what + ": " + r.err());
            assertTrue(!r.err().contains("Exception") && !r.err().contains("\tat "), what + ": " + r.err());
        }
        assertTrue(run("ring", "preset:causal", "--devices", "8", "--scheme", "spiral").err().contains("--scheme"));
        assertTrue(run("ring", "preset:causal", "--seq", "256", "--devices", "8").err()
                .contains("8 devices need at least 8 chunks of 128 tokens; 256 tokens make 2"));
    }

    @Test
    void ringRunOnTheCpuBackendPassesEverySchemeForwardAndBackward() {
        CliResult r = run("ring-run", "and(causal,docs(100,250,80))", "--seq", "512",
                "--heads", "2", "--kv-heads", "1", "--head-dim", "32", "--block", "64x32", "--backend", "cpu", "--devices",
                "2,3", "--repeat", "1", "--steps");
        assertEquals(SawCli.OK, r.code(), r.out() + r.err());
        for (String scheme : new String[] {"contiguous", "zigzag", "striped", "balanced"}) {
            assertTrue(r.out().contains("\n2     " + scheme), scheme + " missing in\n" + r.out());
        }
        assertTrue(r.out().contains("N=3 balanced bwd device 2 ms by step:"), r.out());
        assertTrue(r.out().trim().endsWith("PASS"), r.out());
    }
}
