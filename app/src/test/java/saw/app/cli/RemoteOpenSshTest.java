package saw.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import saw.engine.bench.BenchRow;
import saw.engine.bench.ResultsFile;
import saw.remote.Pack;
import saw.remote.TestPack;

/**
 * The remote path end to end against a real OpenSSH server (started by the test; skipped, with the reason, where
 * it cannot be): first contact, the pack uploaded and checked, a CPU sweep streamed back, the pack reused.
 */
class RemoteOpenSshTest {
    @TempDir
    Path dir;
    OpenSshServer server;

    @AfterEach
    void stop() {
        RemoteOptions.setupOverride = null;
        System.clearProperty("saw.pack");
        if (server != null) {
            server.close();
        }
    }

    @Test
    void firstContactUploadStreamedSweepAndReuseAgainstOpenSsh() throws Exception {
        server = OpenSshServer.start(dir);
        Path pack = TestPack.build(dir.resolve("gpupack"));
        System.setProperty("saw.pack", pack.toString());
        Path knownHosts = dir.resolve("known_hosts");
        RemoteOptions.setupOverride = server.setup(knownHosts);

        CliTest.Run refused = CliTest.saw("env", "--remote", server.address());
        CliTest.badInputInOneLine(refused, "unknown host key: ecdsa-sha2-nistp256 " + server.fingerprint());

        CliTest.Run env = CliTest.saw("env", "--remote", server.address(), "--accept-host-key", server.fingerprint());
        assertEquals(0, env.code(), env.err());
        assertTrue(env.err().contains("uploaded the pack"), env.err());
        assertTrue(env.out().contains("gpus:"), env.out());
        assertEquals(Pack.of(pack).sha256(), Files.readString(server.cache.resolve("saw").resolve(Pack.of(pack).stamp()).resolve(".saw-pack")).strip());

        Path results = dir.resolve("r.json");
        CliTest.Run bench = CliTest.saw("bench", "preset:causal", "--seq", "256", "--block", "64x64,128x64", "--heads", "2",
                "--head-dim", "16", "--backend", "cpu", "--reps", "2", "--warmup", "1", "--out", results.toString(),
                "--remote", server.address());
        assertEquals(0, bench.code(), bench.err());
        assertTrue(bench.err().contains("reusing ~/.cache/saw/" + Pack.of(pack).stamp()), bench.err());
        ResultsFile file = ResultsFile.read(results);
        assertEquals(2, file.rows().size());
        for (BenchRow r : file.rows()) {
            assertEquals(BenchRow.OK, r.status());
            // causal 256 tokens, 2 heads: 256*257/2 attended pairs per head
            assertEquals(2L * 256 * 257 / 2, r.stats().attendedPairs());
        }
    }
}
