package saw.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import saw.engine.attention.KernelTiles;
import saw.engine.attention.Pass;
import saw.engine.bench.BenchRow;
import saw.engine.bench.ResultsFile;
import saw.engine.config.ConfigReader;
import saw.engine.config.MaskConfig;
import saw.engine.mask.Mask;

/** {@code saw bench}, {@code saw chart} and {@code saw dump} end to end: a small CPU sweep, its results file and charts. */
class BenchCliTest {
    @TempDir
    Path dir;

    static CliTest.Run saw(String... args) {
        return CliTest.saw(args);
    }

    @Test
    void aLayoutTooLargeForTheFlexFileNamesItsConfigInstead() throws Exception {
        // 12,288 x 12,288 tiles: the flex file would take 3.4 GB, past the 2 GB limit, while the window keeps the run small
        Path spec = dir.resolve("long.json");
        Files.writeString(spec, "{\"schema\": \"saw.mask/1\", \"name\": \"long\", \"seq_len_q\": 393216, \"seq_len_kv\": 393216,"
                + " \"batch\": 1, \"heads\": 1, \"block\": {\"q\": 32, \"kv\": 32}, \"mask\": {\"sliding_window\": {\"left\": 32, \"right\": 0}}}");
        Path results = dir.resolve("long-results.json");
        CliTest.Run run = saw("bench", spec.toString(), "--heads", "1", "--kv-heads", "1", "--head-dim", "16", "--block", "32x32",
                "--pass", "fwd", "--backend", "cpu", "--reps", "1", "--warmup", "0", "--out", results.toString(),
                "--export-flex", dir.resolve("layouts").toString());
        assertEquals(SawCli.OK, run.code(), run.err());
        assertTrue(run.err().contains("row 0 has no flex layout file (") && run.err().contains("over the 2048 MB limit")
                && run.err().contains("it names layout-0.config.json"), run.err());
        BenchRow row = ResultsFile.read(results).rows().get(0);
        assertEquals(BenchRow.OK, row.status());
        assertEquals("layouts/layout-0.config.json", row.layout().replace('\\', '/'));
        assertTrue(Files.notExists(dir.resolve("layouts/layout-0.flex.json")));
        MaskConfig config = ConfigReader.read(dir.resolve(row.layout()));
        assertEquals(new Mask.SlidingWindow(32, 0), config.mask());
        assertEquals(393216, config.seqLenKv());
        assertEquals(32, config.block().kv());
    }

    @Test
    void densitySweepWritesEveryRowAndChartsIt() throws Exception {
        Path results = dir.resolve("results.json");
        Path csv = dir.resolve("results.csv");
        CliTest.Run run = saw("bench", "preset:causal", "--seq", "512", "--density", "0.1,0.5,1", "--block", "64x64,128x64",
                "--pass", "fwd,bwd", "--batch", "1", "--heads", "2", "--kv-heads", "1", "--head-dim", "16", "--backend", "cpu",
                "--reps", "3", "--warmup", "1", "--out", results.toString(), "--csv", csv.toString(),
                "--export-flex", dir.resolve("layouts").toString());
        assertEquals(SawCli.OK, run.code(), run.err());
        assertTrue(run.err().contains("12 rows (0 failed)"), run.err());

        ResultsFile file = ResultsFile.read(results);
        assertEquals(12, file.rows().size());
        assertTrue(file.environment().command().startsWith("saw bench preset:causal"), file.environment().command());
        assertTrue(file.environment().date().matches("\\d{4}-\\d\\d-\\d\\dT.*Z"), file.environment().date());
        assertEquals(13, Files.readAllLines(csv).size());
        for (KernelTiles t : List.of(new KernelTiles(64, 64), new KernelTiles(128, 64))) {
            List<BenchRow> fwd = file.rows().stream().filter(r -> r.tiles().equals(t) && r.pass() == Pass.FWD).toList();
            assertEquals(3, fwd.size());
            for (int i = 1; i < 3; i++) {
                assertTrue(fwd.get(i).stats().full() > fwd.get(i - 1).stats().full(), "full tiles grow with density");
                assertTrue(fwd.get(i).stats().empty() < fwd.get(i - 1).stats().empty(), "empty tiles shrink with density");
            }
            for (BenchRow r : fwd) {
                assertEquals(BenchRow.OK, r.status());
                assertEquals(2 * (512 / t.blockQ()) * (512 / t.blockKv()), r.stats().empty() + r.stats().partial() + r.stats().full());
                assertTrue(Files.isRegularFile(dir.resolve(r.layout())), r.layout());
            }
        }
        String flex = Files.readString(dir.resolve(file.rows().get(0).layout()));
        assertTrue(flex.contains("\"full_kv_indices\"") && flex.contains("\"block_size\""), flex.substring(0, 200));
        MaskConfig config = ConfigReader.read(dir.resolve(file.rows().get(0).layout().replace(".flex.json", ".config.json")));
        assertEquals(new Mask.RandomBlocks(64, 64, 1, 0), config.mask(), "density 0.1 of 8 kv-blocks rounds to 1 per row");
        assertEquals(512, config.seqLenQ());

        for (String x : new String[] {"density", "block", "seq"}) {
            Path png = dir.resolve(x + ".png");
            CliTest.Run chart = saw("chart", results.toString(), "--x", x, "--out", png.toString(), "--size", "900x500");
            assertEquals(SawCli.OK, chart.code(), chart.err());
            BufferedImage image = ImageIO.read(png.toFile());
            assertEquals(900, image.getWidth());
            assertEquals(500, image.getHeight());
        }
        // a config chart compares implementations: one CPU sweep alone has nothing to compare
        CliTest.badInputInOneLine(saw("chart", results.toString(), "--x", "config", "--out", dir.resolve("config.png").toString()),
                "nothing to compare");
        CliTest.badInputInOneLine(saw("chart", results.toString(), "--head-dim", "96", "--out", dir.resolve("d96.png").toString()),
                "--head-dim 96: no row with head dim 96");
        Path svg = dir.resolve("chart.svg");
        CliTest.Run chart = saw("chart", results.toString(), results.toString(), "--log", "--out", svg.toString());
        assertEquals(SawCli.OK, chart.code(), chart.err());
        DocumentBuilderFactory xml = DocumentBuilderFactory.newInstance();
        xml.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        assertEquals("svg", xml.newDocumentBuilder().parse(svg.toFile()).getDocumentElement().getTagName());
    }

    /** A one-line mask sweeps like the config it stands for: the same rows, and --vary addresses its config's fields. */
    @Test
    void aOneLineMaskBenchesAsItsConfigDoes() throws Exception {
        Path spec = dir.resolve("window.json");
        Files.writeString(spec, "{\"schema\": \"saw.mask/1\", \"name\": \"w\", \"seq_len_q\": 384, \"seq_len_kv\": 384,"
                + " \"mask\": {\"or\": [{\"sliding_window\": {\"left\": 100, \"right\": 0}}, {\"sinks\": {\"count\": 4}}]}}");
        String[] common = {"--seq", "384,512", "--vary", "/mask/or/0/sliding_window/left=100,30", "--block", "64x32",
                "--heads", "2", "--kv-heads", "1", "--head-dim", "16", "--pass", "fwd", "--backend", "cpu", "--reps", "1",
                "--warmup", "0"};
        List<BenchRow> fromConfig = bench(spec.toString(), common, "config.json");
        List<BenchRow> fromLine = bench("or(window(100),sinks(4))", common, "line.json");
        assertEquals(4, fromLine.size());
        for (int i = 0; i < fromLine.size(); i++) {
            BenchRow a = fromConfig.get(i);
            BenchRow b = fromLine.get(i);
            String what = "row " + i + ": " + a + " / " + b;
            assertEquals(BenchRow.OK, b.status(), what);
            assertEquals(a.varied(), b.varied(), what);
            assertEquals(a.stats(), b.stats(), what);
            assertEquals(a.problem(), b.problem(), what);
        }
        for (BenchRow r : fromLine) {
            BenchRow wider = fromLine.stream().filter(o -> o.problem().seqQ() == r.problem().seqQ()
                    && o.varied().values().iterator().next() == 100).findFirst().orElseThrow();
            assertTrue(r.varied().values().iterator().next() == 100
                    || r.stats().attendedPairs() < wider.stats().attendedPairs(), "left 30 attends less than left 100: " + r);
        }
        CliTest.badInputInOneLine(saw("bench", "or(window(100),sinks(4))", "--out", dir.resolve("x.json").toString()),
                "--seq is required with a one-line mask");
    }

    private List<BenchRow> bench(String spec, String[] common, String out) throws Exception {
        List<String> args = new java.util.ArrayList<>(List.of("bench", spec));
        args.addAll(List.of(common));
        args.addAll(List.of("--out", dir.resolve(out).toString()));
        CliTest.Run run = saw(args.toArray(String[]::new));
        assertEquals(SawCli.OK, run.code(), run.err());
        return ResultsFile.read(dir.resolve(out)).rows();
    }

    @Test
    void badInputIsOneLineNamingWhatIsWrong() throws Exception {
        Path results = dir.resolve("r.json");
        CliTest.badInputInOneLine(saw("bench", "preset:sliding-window", "--seq", "512", "--vary", "/mask/sliding_window/lefty=1,2",
                "--out", results.toString()), "--vary /mask/sliding_window/lefty: /mask/sliding_window has no field 'lefty'");
        CliTest.badInputInOneLine(saw("bench", "preset:causal", "--seq", "512", "--backend", "tpu", "--out", results.toString()),
                "--backend tpu: 'tpu' is not one of gpu, cpu");
        CliTest.badInputInOneLine(saw("bench", "preset:causal", "--density", "1.5", "--out", results.toString()),
                "--density 1.5 is not in (0, 1]");
        Files.writeString(results, "{\"schema\":\"saw.bench/1\",\"backend\":\"cpu\"}\n{\"row\": 0, \"conf");
        CliTest.Run empty = saw("chart", results.toString(), "--out", dir.resolve("c.png").toString());
        assertEquals(SawCli.BAD_INPUT, empty.code());
        assertTrue(empty.err().contains("is incomplete") && empty.err().contains("nothing to chart"), empty.err());
        CliTest.badInputInOneLine(saw("chart", dir.resolve("missing.json").toString(), "--out", dir.resolve("c.png").toString()),
                "missing.json: no such file");
        CliTest.badInputInOneLine(saw("chart", results.toString(), "--out", dir.resolve("c.gif").toString()), "must end in .png or .svg");
    }

    @Test
    void dumpWritesInputsAndOutputsAsNpy() throws Exception {
        Path out = dir.resolve("dump");
        CliTest.Run run = saw("dump", "preset:causal", "--seq", "128", "--block", "64x64", "--batch", "1", "--heads", "2",
                "--kv-heads", "1", "--head-dim", "16", "--backend", "cpu", "--seed", "3", "--out", out.toString());
        assertEquals(SawCli.OK, run.code(), run.err());
        long q = 1L * 2 * 128 * 16;
        long kv = 1L * 1 * 128 * 16;
        for (Object[] f : new Object[][] {{"q", q}, {"k", kv}, {"v", kv}, {"do", q}, {"o", q}, {"lse", 2L * 128},
                {"dq", q}, {"dk", kv}, {"dv", kv}}) {
            byte[] bytes = Files.readAllBytes(out.resolve(f[0] + ".npy"));
            int header = 10 + ((bytes[8] & 0xff) | (bytes[9] & 0xff) << 8);
            assertEquals(header + 4 * (long) f[1], bytes.length, f[0] + ".npy");
        }
        assertEquals(new Mask.Causal(0), ConfigReader.read(out.resolve("config.json")).mask());
        assertTrue(Files.readString(out.resolve("layout.flex.json")).contains("\"kv_num_blocks\""));
        assertTrue(Files.readString(out.resolve("meta.json")).contains("\"kv_heads\" : 1"));
    }
}
