package saw.app.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;

class VerifyCommandTest {
    private static CliResult run(String... args) {
        return CliResult.ofSystem(args);
    }

    @Test
    void cpuBackendPassesForwardAndBackwardAndPrintsEveryOutput() {
        CliResult r = run("verify", "and(causal,docs(50,70))", "--seq", "150", "--heads", "4", "--kv-heads", "2", "--head-dim", "32",
                "--block", "64x32", "--backend", "cpu", "--softcap", "20");
        assertEquals(SawCli.OK, r.code(), r.out() + r.err());
        for (String name : new String[] {"O ", "LSE", "dQ", "dK", "dV"}) {
            assertTrue(r.out().contains("\n" + name), name + " missing in\n" + r.out());
        }
        assertTrue(r.out().trim().endsWith("PASS"), r.out());
    }

    @Test
    void presetsGiveTheMaskAndOptionsOverrideTheirSizes() {
        CliResult r = run("verify", "preset:causal", "--seq", "200", "--batch", "1", "--heads", "2", "--head-dim", "16", "--block",
                "64x32", "--backend", "cpu");
        assertEquals(SawCli.OK, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("B=1 H=2 Hkv=2 Sq=200 Skv=200 D=16 bf16 block 64x32"), r.out());
        r = run("verify", "window(8)", "--backend", "cpu");
        assertEquals(SawCli.BAD_INPUT, r.code());
        assertTrue(r.err().contains("--seq is required with a one-line mask"), r.err());
    }

    @Test
    void forwardOnlyChecksOAndLse() {
        CliResult r = run("verify", "window(16)", "--seq", "100", "--seq-kv", "80", "--pass", "fwd", "--backend", "cpu",
                "--head-dim", "16", "--block", "32x32", "--dtype", "fp16");
        assertEquals(SawCli.OK, r.code(), r.out() + r.err());
        assertTrue(!r.out().contains("dQ"), r.out());
    }

    @Test
    void badInputExitsTwoWithASentence() {
        CliResult r = run("verify", "causal", "--seq", "100", "--heads", "3", "--kv-heads", "2", "--backend", "cpu");
        assertEquals(SawCli.BAD_INPUT, r.code());
        assertEquals("saw verify: heads (3) must be a multiple of kv-heads (2)", r.err().trim());
        r = run("verify", "docs(200)", "--seq", "100", "--backend", "cpu");
        assertEquals(SawCli.BAD_INPUT, r.code());
        assertTrue(r.err().startsWith("saw verify: /mask"), r.err());
        r = run("verify", "causal", "--seq", "100", "--backend", "tpu");
        assertEquals(SawCli.BAD_INPUT, r.code());
        assertEquals("saw verify: backend 'tpu' is not one of gpu, cpu, cpu-reference", r.err().trim());
    }

    @Test
    void largeProblemsCheckTheFirstAndLastKvHeadGroups() {
        assertArrayEquals(new int[] {0, 1, 2, 3}, VerifyCommand.sampledGroups(AttentionProblem.of(1, 8, 4, 1000, 1000, 128, DType.BF16)));
        assertArrayEquals(new int[] {0, 7}, VerifyCommand.sampledGroups(AttentionProblem.of(2, 16, 4, 8192, 8192, 128, DType.BF16)));
    }

    @Test
    void verifyWithRowsChecksASeededSampleAndNamesItsRows() {
        CliResult run = run("verify", "and(causal,window(40))", "--seq", "300", "--heads", "4", "--kv-heads", "2",
                "--head-dim", "16", "--block", "64x32", "--backend", "cpu", "--rows", "4", "--seed", "9");
        assertEquals(SawCli.OK, run.code(), run.out() + run.err());
        assertTrue(run.out().contains("checked: 16 query rows (4 per head) and 8 kv rows for dK, dV, seed 9"), run.out());
        assertTrue(run.out().contains("query rows: b0 h0 [0, "), run.out());
        assertTrue(run.out().contains(", 299]; b0 h1 [0, "), run.out());
        assertTrue(run.out().strip().endsWith("PASS"), run.out());
        CliResult bad = run("verify", "causal", "--seq", "64", "--backend", "cpu", "--rows", "0");
        assertEquals(SawCli.BAD_INPUT, bad.code());
        assertTrue(bad.err().contains("--rows must be >= 1, got 0"), bad.err());
    }
}
