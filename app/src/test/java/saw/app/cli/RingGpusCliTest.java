package saw.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import saw.engine.gpu.GpuBackend;

/** {@code saw ring-run --gpus}: its input errors (one line, exit 2), without a GPU its one-line refusal; saw ring-chart. */
class RingGpusCliTest {
    private static CliResult run(String... args) {
        return CliResult.ofWriters(args);
    }

    @Test
    void badGpuOptionsAreOneLineEachWithExitCode2() {
        String[][] cases = {
            {"ring-run", "causal", "--seq", "1024", "--devices", "2", "--gpus", "0"},
            {"ring-run", "causal", "--seq", "1024", "--devices", "2", "--gpus", "2", "--backend", "cpu"},
            {"ring-run", "causal", "--seq", "1024", "--devices", "2", "--gpus", "2", "--transport", "carrier-pigeon"},
            {"ring-run", "causal", "--seq", "1024", "--devices", "2", "--backend", "cpu", "--out", "r.json"},
        };
        String[] expected = {
            "--gpus must be at least 1, got 0",
            "--gpus runs the rings on GPUs; it does not go with --backend cpu",
            "--transport: transport 'carrier-pigeon' is not one of auto, nccl, p2p",
            "--out writes the results of --gpus runs; add --gpus G",
        };
        for (int i = 0; i < cases.length; i++) {
            CliResult r = run(cases[i]);
            String what = String.join(" ", cases[i]);
            assertEquals(SawCli.BAD_INPUT, r.code(), what + ": " + r.out() + r.err());
            assertEquals(1, r.err().strip().lines().count(), what + ": " + r.err());
            assertTrue(r.err().contains(expected[i]), what + ": " + r.err());
        }
    }

    @Test
    void ringChartDrawsEfficiencyAgainstDevicesPerSchemeAndSaysWhenThereIsNothingToDraw(@TempDir Path dir) throws Exception {
        Path results = dir.resolve("ring.json");
        Files.write(results, List.of("{\"schema\":\"saw.bench/1\"}",
                row(2, "zigzag", "fwd", 0.91, null), row(2, "zigzag", "bwd", 0.87, 0.88), row(4, "zigzag", "fwd", 0.86, null),
                row(2, "balanced", "fwd", 0.93, null), "{\"row\":9,\"config\":\"causal\",\"ring_devices\":1}"));
        Path png = dir.resolve("eff.png");
        CliResult r = run("ring-chart", results.toString(), "--out", png.toString());
        assertEquals(SawCli.OK, r.code(), r.err());
        assertTrue(Files.size(png) > 1000, "a PNG was written");
        Path empty = dir.resolve("empty.json");
        Files.write(empty, List.of("{\"schema\":\"saw.bench/1\"}", "{\"row\":0,\"config\":\"causal\"}"));
        CliResult none = run("ring-chart", empty.toString(), "--out", dir.resolve("none.png").toString());
        assertEquals(SawCli.BAD_INPUT, none.code(), none.out());
        assertEquals(1, none.err().strip().lines().count(), none.err());
        assertTrue(none.err().contains("no ring rows to chart"), none.err());
    }

    private static String row(int n, String scheme, String pass, double efficiency, Double fwdBwd) {
        return "{\"row\":0,\"config\":\"causal\",\"pass\":\"" + pass + "\",\"ring_devices\":" + n + ",\"ring_scheme\":\""
                + scheme + "\",\"ring_virtual\":false,\"efficiency\":" + efficiency
                + (fwdBwd == null ? "" : ",\"fwd_bwd_efficiency\":" + fwdBwd) + "}";
    }

    @Test
    void withoutAGpuTheRingSaysWhyInOneLine() {
        Assumptions.assumeFalse(GpuBackend.detect().usable(), "a GPU is here; bench/gpu/ring-nccl.sh runs the ring on it");
        CliResult r = run("ring-run", "causal", "--seq", "1024", "--devices", "2", "--scheme", "zigzag", "--gpus", "1");
        assertEquals(SawCli.INTERNAL_ERROR, r.code(), r.out() + r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().startsWith("saw ring-run: ") && !r.err().contains("\tat "), r.err());
    }
}
