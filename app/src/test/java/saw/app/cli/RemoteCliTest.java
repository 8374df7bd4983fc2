package saw.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import saw.engine.bench.BenchRow;
import saw.engine.bench.ResultsFile;
import saw.remote.HostKeyPrompt;
import saw.remote.Pack;
import saw.remote.TestPack;
import saw.remote.TestSshServer;
import saw.remote.RemoteCommand;
import saw.remote.RemoteRun;
import saw.remote.RemoteSaw;
import saw.remote.Target;

/**
 * {@code --remote} end to end against an SSH server in this JVM (Apache MINA SSHD on 127.0.0.1, throwaway host and
 * user keys): first contact and host-key acceptance, pack upload and reuse, a CPU sweep streamed back, Ctrl-C,
 * a dropped connection and --resume, and the one-line messages for a wrong key, an unknown host, no saw there and
 * a full disk there.
 */
class RemoteCliTest {
    @TempDir
    static Path shared;
    static Path pack;

    @TempDir
    Path dir;
    TestSshServer server;
    Path knownHosts;

    @BeforeAll
    static void buildPack() throws Exception {
        pack = TestPack.build(shared.resolve("gpupack"));
    }

    @BeforeEach
    void startServer() throws Exception {
        server = TestSshServer.start(dir);
        knownHosts = dir.resolve("known_hosts");
        RemoteOptions.setupOverride = server.setup(knownHosts, server.userKey);
        System.setProperty("saw.pack", pack.toString());
    }

    @AfterEach
    void stopServer() throws Exception {
        RemoteOptions.setupOverride = null;
        System.clearProperty("saw.pack");
        server.close();
    }

    @AfterAll
    static void clear() {
        System.clearProperty("saw.pack");
    }

    private CliTest.Run saw(String... args) {
        return CliTest.saw(args);
    }

    /** Accepts the server's key once (as a user would after reading its fingerprint). */
    private void trust() throws Exception {
        CliTest.Run r = saw("env", "--remote", server.address(), "--accept-host-key", server.fingerprint());
        assertEquals(0, r.code(), r.err());
    }

    private static String lastLine(String text) {
        List<String> lines = text.lines().toList();
        return lines.get(lines.size() - 1);
    }

    @Test
    void firstContactShowsTheFingerprintAndConnectsOnlyOnceItIsAccepted() throws Exception {
        String fp = server.fingerprint();
        CliTest.Run refused = saw("env", "--remote", server.address());
        CliTest.badInputInOneLine(refused, "unknown host key");
        assertTrue(refused.err().contains(fp), "the fingerprint is shown: " + refused.err());
        assertFalse(Files.exists(knownHosts), "nothing is added to known_hosts without acceptance");

        CliTest.Run wrongFp = saw("env", "--remote", server.address(), "--accept-host-key", "SHA256:AAAAnotTheKey");
        CliTest.badInputInOneLine(wrongFp, "unknown host key");
        assertFalse(Files.exists(knownHosts));

        CliTest.Run accepted = saw("env", "--remote", server.address(), "--accept-host-key", fp);
        assertEquals(0, accepted.code(), accepted.err());
        assertTrue(Files.readString(knownHosts).startsWith("[127.0.0.1]:" + server.port() + " ecdsa-sha2-nistp256 "), Files.readString(knownHosts));
        assertTrue(accepted.out().contains("gpus:"), accepted.out());
        assertTrue(accepted.out().contains("java:"), accepted.out());

        CliTest.Run again = saw("env", "--remote", server.address());
        assertEquals(0, again.code(), "known now, no question asked: " + again.err());
        assertEquals(1, Files.readAllLines(knownHosts).size());
    }

    @Test
    void thePackIsUploadedOnceCheckedAndReused() throws Exception {
        String sha = Pack.of(pack).sha256();
        CliTest.Run first = saw("env", "--remote", server.address(), "--accept-host-key", server.fingerprint());
        assertEquals(0, first.code(), first.err());
        assertTrue(first.err().contains("uploaded the pack"), first.err());
        Path installed = server.cache().resolve(Pack.of(pack).stamp());
        assertEquals(sha, Files.readString(installed.resolve(".saw-pack")).strip());
        assertTrue(Files.isExecutable(installed.resolve("saw")));
        assertEquals(Files.readString(pack.resolve("saw")), Files.readString(installed.resolve("saw")));
        long mtime = Files.getLastModifiedTime(installed.resolve(".saw-pack")).toMillis();

        CliTest.Run second = saw("env", "--remote", server.address());
        assertEquals(0, second.code(), second.err());
        assertTrue(second.err().contains("reusing ~/.cache/saw/" + Pack.of(pack).stamp()), second.err());
        assertEquals(mtime, Files.getLastModifiedTime(installed.resolve(".saw-pack")).toMillis(), "not uploaded again");
        try (var runs = Files.list(server.cache().resolve("runs"))) {
            assertEquals(0, runs.count(), "run folders are removed after each run");
        }
    }

    @Test
    void aRemoteCpuSweepStreamsItsRowsIntoTheLocalResultsFile() throws Exception {
        trust();
        Path config = dir.resolve("my mask.json");
        Files.writeString(config, "{\"schema\":\"saw.mask/1\",\"name\":\"uploaded\",\"seq_len_q\":256,\"seq_len_kv\":256,"
                + "\"heads\":2,\"block\":{\"q\":64,\"kv\":64},\"mask\":{\"causal\":{}}}");
        Path remoteResults = dir.resolve("remote.json");
        Path csv = dir.resolve("remote.csv");
        List<String> sweep = List.of("--block", "64x64,128x64", "--pass", "fwd,bwd", "--head-dim", "16", "--backend", "cpu",
                "--reps", "2", "--warmup", "1");
        CliTest.Run r = saw(concat(List.of("bench", config.toString()), sweep, List.of("--out", remoteResults.toString(), "--csv", csv.toString(),
                "--remote", server.address())));
        assertEquals(0, r.code(), r.err());
        assertTrue(r.err().contains("4 rows (0 failed) written to " + remoteResults), r.err());
        Path localResults = dir.resolve("local.json");
        CliTest.Run local = saw(concat(List.of("bench", config.toString()), sweep, List.of("--out", localResults.toString())));
        assertEquals(0, local.code(), local.err());

        ResultsFile remote = ResultsFile.read(remoteResults);
        ResultsFile here = ResultsFile.read(localResults);
        assertEquals(4, remote.rows().size());
        assertEquals(5, Files.readAllLines(csv).size());
        for (int i = 0; i < 4; i++) {
            BenchRow a = remote.rows().get(i);
            BenchRow b = here.rows().get(i);
            assertEquals(i, a.index());
            assertEquals(BenchRow.OK, a.status());
            assertEquals("uploaded", a.config());
            assertEquals(b.stats(), a.stats(), "row " + i + ": the remote compiled the same layout");
            assertEquals(b.tiles(), a.tiles());
            assertEquals(b.pass(), a.pass());
            assertEquals(b.work(), a.work());
        }
        assertTrue(remote.environment().command().contains("--out -"), remote.environment().command());
        assertFalse(Files.readString(remoteResults).contains(server.userKey.toString()), "no key path in the results");
    }

    @Test
    void cancellingStopsTheRunThereAndKeepsTheRowsReceived() throws Exception {
        trust();
        List<String> rows = java.util.Collections.synchronizedList(new ArrayList<>());
        try (RemoteSaw saw = RemoteSaw.connect(Target.parse(server.address(), ""), RemoteOptions.setupOverride, HostKeyPrompt.REFUSE, null)) {
            saw.install(Optional.of(Pack.of(pack)));
            // at 1024 tokens the nine points after the first take about 11 s on a 2-core machine, so a cancel that is
            // slow to arrive on a loaded machine still lands mid-sweep (at 512 tokens they took 3 s, and CI once saw all 10)
            RemoteRun run = saw.start(RemoteCommand.of(List.of("bench", "preset:causal", "--seq", "1024", "--density",
                    "0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1", "--block", "64x64", "--heads", "2", "--head-dim", "32", "--backend", "cpu",
                    "--reps", "30", "--warmup", "1", "--out", "-"), java.util.Set.of("--out")), new RemoteRun.Output() {
                        @Override
                        public void out(String line) {
                            rows.add(line);
                        }

                        @Override
                        public void err(String line) {}
                    });
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (rows.size() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(rows.size() >= 2, "the header and a first row arrived");
            long pid = run.pid();
            assertTrue(pid > 0);
            run.cancel();
            RemoteRun.Finished f = run.waitFor();
            assertTrue(f.cancelled());
            assertTrue(rows.size() < 11, "stopped before the end: " + rows.size() + " lines");
            Optional<ProcessHandle> p = ProcessHandle.of(pid);
            assertTrue(p.isEmpty() || !p.get().isAlive() || p.get().onExit().get(5, java.util.concurrent.TimeUnit.SECONDS) != null,
                    "the remote saw process " + pid + " is gone");
        }
    }

    @Test
    void aDroppedConnectionKeepsEveryRowAndResumeFinishesTheSweep() throws Exception {
        trust();
        Path results = dir.resolve("r.json");
        List<String> args = List.of("bench", "preset:causal", "--seq", "512", "--density", "0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1",
                "--block", "64x64", "--heads", "2", "--head-dim", "32", "--backend", "cpu", "--reps", "30", "--warmup", "1",
                "--out", results.toString(), "--remote", server.address());
        CompletableFuture<CliTest.Run> first = CompletableFuture.supplyAsync(() -> saw(args.toArray(String[]::new)));
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (rowsIn(results) < 2 && System.nanoTime() < deadline && !first.isDone()) {
            Thread.sleep(10);
        }
        server.dropConnections();
        CliTest.Run dropped = first.get();
        int kept = ResultsFile.read(results).rows().size();
        assertEquals(RemoteOptions.DROPPED, dropped.code(), dropped.err());
        assertTrue(kept >= 2 && kept < 10, "dropped mid-sweep: " + kept + " rows");
        assertTrue(lastLine(dropped.err()).contains("dropped after " + kept + " of 10 rows")
                && lastLine(dropped.err()).contains("--resume"), dropped.err());

        List<String> resumeArgs = new ArrayList<>(args);
        resumeArgs.add("--resume");
        CliTest.Run resumed = saw(resumeArgs.toArray(String[]::new));
        assertEquals(0, resumed.code(), resumed.err());
        assertTrue(resumed.err().contains((10 - kept) + " points (from row " + kept + ")"), resumed.err());
        ResultsFile all = ResultsFile.read(results);
        assertEquals(10, all.rows().size());
        for (int i = 0; i < 10; i++) {
            assertEquals(i, all.rows().get(i).index());
            assertEquals(BenchRow.OK, all.rows().get(i).status());
            assertEquals((i + 1) / 10.0, all.rows().get(i).density(), 1e-12, "row " + i + " is the sweep's point " + i);
        }
        assertTrue(all.truncation().isEmpty());
    }

    private static int rowsIn(Path file) {
        try {
            return Files.isRegularFile(file) ? Math.max(0, Files.readAllLines(file).size() - 1) : 0;
        } catch (java.io.IOException e) {
            return 0;
        }
    }

    @Test
    void aHostAliasOfTheSshConfigGivesHostPortUserAndKey() throws Exception {
        trust();
        Path config = dir.resolve("ssh_config");
        Files.writeString(config, "Host lab-gpu\n  HostName 127.0.0.1\n  Port " + server.port() + "\n  User "
                + System.getProperty("user.name") + "\n  IdentityFile " + server.userKey + "\n");
        // no key of its own: the alias's IdentityFile is the only one offered
        RemoteOptions.setupOverride = new saw.remote.SshSetup(config, knownHosts, List.of(), Optional.empty());
        CliTest.Run r = saw("env", "--remote", "lab-gpu");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("gpus:"), r.out());
    }

    @Test
    void aWrongKeyIsOneLine() throws Exception {
        trust();
        Path other = dir.resolve("id_other");
        TestSshServer.writeUserKey(other);
        RemoteOptions.setupOverride = server.setup(knownHosts, other);
        CliTest.badInputInOneLine(saw("env", "--remote", server.address()), "the server refused the key (tried " + other + ")");
    }

    @Test
    void anUnreachableHostIsOneLine() throws Exception {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            port = s.getLocalPort();
        }
        CliTest.badInputInOneLine(saw("env", "--remote", "nobody@127.0.0.1:" + port), "cannot connect");
        CliTest.badInputInOneLine(saw("env", "--remote", "bad host!"), "--remote: 'bad host!' is not user@host[:port]");
    }

    @Test
    void noSawThereAndNoPackHereIsOneLine() throws Exception {
        trust();
        System.setProperty("saw.pack", "");
        // the pack uploaded by trust() is removed: the remote has no saw left
        try (var s = Files.walk(server.cache())) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        CliTest.badInputInOneLine(saw("env", "--remote", server.address()), "has no saw pack under ~/.cache/saw and there is no pack here to upload");
    }

    @Test
    void aFullDiskThereIsOneLineAndLeavesNoHalfPack() throws Exception {
        Pack p = Pack.of(pack);
        Path staging = Files.createDirectories(server.cache().resolve("upload-" + p.sha256().substring(0, 16)));
        // the upload's file is the full device: every write fails with ENOSPC, as on a full disk
        Files.createSymbolicLink(staging.resolve("pack.tar.gz"), Path.of("/dev/full"));
        CliTest.Run r = saw("env", "--remote", server.address(), "--accept-host-key", server.fingerprint());
        assertEquals(SawCli.BAD_INPUT, r.code(), r.err());
        assertTrue(lastLine(r.err()).contains("the disk is full there, uploading the") && lastLine(r.err()).contains("No space left on device"), r.err());
        assertFalse(r.err().contains("Exception"), r.err());
        assertFalse(Files.exists(server.cache().resolve(p.stamp())), "no half-installed pack");
        assertFalse(Files.exists(staging), "the upload's leftovers are removed");
    }

    @SafeVarargs
    private static String[] concat(List<String>... parts) {
        List<String> all = new ArrayList<>();
        for (List<String> p : parts) {
            all.addAll(p);
        }
        return all.toArray(String[]::new);
    }

}
