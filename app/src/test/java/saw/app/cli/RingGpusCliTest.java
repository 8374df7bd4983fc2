package saw.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import saw.engine.gpu.GpuBackend;

/** {@code saw ring-run --gpus}: its input errors (one line, exit 2) and, without a GPU, its one-line refusal. */
class RingGpusCliTest {
    private record Result(int code, String out, String err) {}

    private static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = SawCli.run(new PrintWriter(out), new PrintWriter(err), args);
        return new Result(code, out.toString(), err.toString());
    }

    @Test
    void badGpuOptionsAreOneLineEachWithExitCode2() {
        String[][] cases = {
            {"ring-run", "causal", "--seq", "1024", "--devices", "2", "--gpus", "0"},
            {"ring-run", "causal", "--seq", "1024", "--devices", "2", "--gpus", "2", "--backend", "cpu"},
            {"ring-run", "causal", "--seq", "1024", "--devices", "2", "--gpus", "2", "--transport", "carrier-pigeon"},
        };
        String[] expected = {
            "--gpus must be at least 1, got 0",
            "--gpus runs the rings on GPUs; it does not go with --backend cpu",
            "--transport: transport 'carrier-pigeon' is not one of auto, nccl, p2p",
        };
        for (int i = 0; i < cases.length; i++) {
            Result r = run(cases[i]);
            String what = String.join(" ", cases[i]);
            assertEquals(SawCli.BAD_INPUT, r.code(), what + ": " + r.out() + r.err());
            assertEquals(1, r.err().strip().lines().count(), what + ": " + r.err());
            assertTrue(r.err().contains(expected[i]), what + ": " + r.err());
        }
    }

    @Test
    void withoutAGpuTheRingSaysWhyInOneLine() {
        Assumptions.assumeFalse(GpuBackend.detect().usable(), "a GPU is here; bench/gpu/ring-nccl.sh runs the ring on it");
        Result r = run("ring-run", "causal", "--seq", "1024", "--devices", "2", "--scheme", "zigzag", "--gpus", "1");
        assertEquals(SawCli.INTERNAL_ERROR, r.code(), r.out() + r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().startsWith("saw ring-run: ") && !r.err().contains("\tat "), r.err());
    }
}
