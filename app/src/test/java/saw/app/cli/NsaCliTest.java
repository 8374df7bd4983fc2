package saw.app.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import saw.engine.nsa.NsaSelection;
import saw.engine.nsa.NsaSelections;

class NsaCliTest {
    private static CliResult run(String... args) {
        return CliResult.ofSystem(args);
    }

    @Test
    void verifyRunsTheCpuBackendOnGeneratedAndMaskSelections() {
        CliResult r = run("verify", "--nsa", "random", "--seq", "200", "--heads", "8", "--kv-heads", "2", "--head-dim", "32",
                "--nsa-s", "3", "--nsa-block", "32", "--backend", "cpu", "--softcap", "20");
        assertEquals(SawCli.OK, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("B=1 HQ=8 Hkv=2 G=4 T=200 D=32 bf16 block 32 S 3 softcap 20.0"), r.out());
        assertTrue(r.out().trim().endsWith("PASS"), r.out());
        r = run("verify", "causal", "--nsa", "mask", "--seq", "150", "--heads", "2", "--kv-heads", "1", "--head-dim", "16",
                "--block", "64x32", "--backend", "cpu", "--pass", "fwd");
        assertEquals(SawCli.OK, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("block 32 S 5"), r.out());
    }

    @Test
    void badSelectionsExitTwoWithOneLineNamingTheOption(@TempDir Path dir) throws Exception {
        CliResult r = run("verify", "--nsa", "random", "--backend", "cpu");
        assertEquals(SawCli.BAD_INPUT, r.code());
        assertTrue(r.err().contains("--seq is required with --nsa random"), r.err());
        Path bad = dir.resolve("idx.npy");
        saw.engine.bench.Npy.writeInt32(bad, new int[] {1, 4, 1, 2}, new int[] {0, -1, 0, -1, 1, -1, 1, 5});
        r = run("verify", "--nsa", bad.toString(), "--nsa-block", "2", "--backend", "cpu", "--head-dim", "16");
        assertEquals(SawCli.BAD_INPUT, r.code());
        assertTrue(r.err().contains("--nsa " + bad + ": block_indices[0, 3, 0, 1] = 5 is outside -1..1"), r.err());
        assertEquals(1, r.err().trim().lines().count(), r.err());
        r = run("verify", "--backend", "cpu");
        assertEquals(SawCli.BAD_INPUT, r.code());
        assertTrue(r.err().contains("SPEC is required"), r.err());
    }

    @Test
    void dumpWritesTheSelectionAndBenchRecordsItsShape(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("dump");
        CliResult r = run("dump", "--nsa", "scored", "--seq", "100", "--heads", "4", "--kv-heads", "1", "--head-dim", "16",
                "--nsa-s", "2", "--nsa-block", "32", "--backend", "cpu", "--out", out.toString());
        assertEquals(SawCli.OK, r.code(), r.out() + r.err());
        for (String f : List.of("q", "k", "v", "do", "o", "lse", "dq", "dk", "dv", "block_indices", "block_counts")) {
            assertTrue(Files.exists(out.resolve(f + ".npy")), f);
        }
        NsaSelection back = NsaSelections.fromNpy(out.resolve("block_indices.npy"), out.resolve("block_counts.npy"), 32, true);
        assertArrayEquals(NsaSelections.scored(1, 100, 1, 2, 32, 16, 0).indices(), back.indices());

        Path rows = dir.resolve("rows.jsonl");
        r = run("bench", "--nsa", out.resolve("block_indices.npy").toString(), "--nsa-counts",
                out.resolve("block_counts.npy").toString(), "--nsa-block", "32", "--heads", "4", "--head-dim", "16",
                "--pass", "fwd,bwd", "--reps", "2", "--warmup", "0", "--out", rows.toString());
        assertEquals(SawCli.OK, r.code(), r.out() + r.err());
        List<String> lines = Files.readAllLines(rows);
        assertEquals(2, lines.size());
        JsonNode fwd = new ObjectMapper().readTree(lines.get(0));
        assertEquals(2, fwd.get("S").asInt());
        assertEquals(32, fwd.get("block").asInt());
        assertEquals(4, fwd.get("group").asInt());
        assertEquals(back.selectedPairs() * 4, fwd.get("selected_pairs").asLong());
        assertEquals(4.0 * 16 * back.selectedPairs() * 4, fwd.get("useful_flops").asDouble(), 1e-6);
        assertEquals(2.5 * fwd.get("useful_flops").asDouble(), new ObjectMapper().readTree(lines.get(1)).get("useful_flops").asDouble(), 1e-6);
    }
}
