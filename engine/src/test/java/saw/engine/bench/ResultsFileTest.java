package saw.engine.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResultsFileTest {
    @TempDir
    Path dir;

    private List<BenchRow> sweep(Path file, Path csv) throws IOException {
        List<BenchRow> rows = new ArrayList<>();
        BenchEnvironment env = BenchEnvironment.here("test-double", "CPU (test double)", "saw bench test");
        try (ResultsWriter out = ResultsWriter.create(file, env); ResultsCsv table = ResultsCsv.create(csv)) {
            new SweepRunner(new TileWorkBackend(48), new SweepRunner.Settings(0, 3, 3)).run(SweepRunnerTest.points(16, 48),
                    (row, p) -> {
                        rows.add(row);
                        out.accept(row);
                        table.accept(row);
                    }, () -> false);
        }
        return rows;
    }

    @Test
    void rowsRoundTripThroughTheFile() throws Exception {
        Path file = dir.resolve("r.json");
        Path csv = dir.resolve("r.csv");
        List<BenchRow> rows = sweep(file, csv);
        ResultsFile read = ResultsFile.read(file);
        assertEquals(rows, read.rows());
        assertTrue(read.truncation().isEmpty());
        assertEquals("test-double", read.environment().backend());
        assertTrue(!read.environment().date().isEmpty() && !read.environment().jvm().isEmpty());
        assertEquals(4, read.okRows().size());
        List<String> csvLines = Files.readAllLines(csv);
        assertEquals(rows.size() + 1, csvLines.size());
        assertTrue(csvLines.get(0).startsWith("row,config,varied,density,batch,"), csvLines.get(0));
        assertTrue(csvLines.get(1).startsWith("0,causal,/mask/causal/offset=0,,1,2,1,256,256,16,bf16,"), csvLines.get(1));
    }

    @Test
    void sinksRoundTripAndRowsWrittenBeforeTheFieldReadAsWithout() throws Exception {
        Path file = dir.resolve("r.json");
        BenchEnvironment env = BenchEnvironment.here("cpu", "CPU", "saw bench test");
        List<BenchRow> rows = new ArrayList<>();
        try (ResultsWriter out = ResultsWriter.create(file, env); saw.engine.cpu.CpuBackend cpu = new saw.engine.cpu.CpuBackend()) {
            new SweepRunner(cpu, new SweepRunner.Settings(0, 1, 3, true)).run(SweepRunnerTest.points(16),
                    (row, p) -> {
                        rows.add(row);
                        out.accept(row);
                    }, () -> false);
        }
        assertEquals(rows, ResultsFile.read(file).rows());
        assertTrue(ResultsFile.read(file).rows().stream().allMatch(BenchRow::sinks));
        String text = Files.readString(file, StandardCharsets.UTF_8);
        assertTrue(text.contains(",\"sinks\":true,"), text);
        ResultsFile older = ResultsFile.parse("old.json", text.replace("\"sinks\":true,", ""));
        assertTrue(older.rows().stream().noneMatch(BenchRow::sinks));
        BadResultsFile wrong = assertThrows(BadResultsFile.class,
                () -> ResultsFile.parse("w.json", text.replace("\"sinks\":true,", "\"sinks\":\"yes\",")));
        assertEquals("w.json line 2: field 'sinks' must be true or false, got \"yes\"", wrong.getMessage());
    }

    @Test
    void aFileCutAnywhereKeepsEveryCompleteRow() throws Exception {
        Path file = dir.resolve("r.json");
        sweep(file, dir.resolve("r.csv"));
        String text = Files.readString(file, StandardCharsets.UTF_8);
        int headerEnd = text.indexOf('\n') + 1;
        long seed = new SplittableRandom().nextLong();
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int trial = 0; trial < 300; trial++) {
            int cut = trial < 3 ? new int[] {headerEnd, text.length(), text.length() - 1}[trial] : headerEnd + rnd.nextInt(text.length() - headerEnd + 1);
            String prefix = text.substring(0, cut);
            ResultsFile f = ResultsFile.parse("cut.json", prefix);
            // a row line counts when all of its text (with or without its newline) is before the cut
            int complete = 0;
            boolean insideLine = false;
            for (int start = headerEnd; start < text.length(); ) {
                int end = text.indexOf('\n', start);
                if (end <= cut) {
                    complete++;
                } else if (cut > start) {
                    insideLine = true;
                }
                start = end + 1;
            }
            String ctx = "seed " + seed + " cut at " + cut;
            assertEquals(complete, f.rows().size(), ctx);
            assertEquals(insideLine, f.truncation().isPresent(), ctx);
            for (int i = 0; i < f.rows().size(); i++) {
                assertEquals(i, f.rows().get(i).index(), ctx);
            }
        }
    }

    @Test
    void badFilesAreRefusedWithFileAndLine() throws Exception {
        Path file = dir.resolve("r.json");
        sweep(file, dir.resolve("r.csv"));
        List<String> lines = Files.readAllLines(file);
        lines.set(2, lines.get(2).substring(0, 30));
        BadResultsFile midCut = assertThrows(BadResultsFile.class, () -> ResultsFile.parse("x.json", String.join("\n", lines)));
        assertTrue(midCut.getMessage().startsWith("x.json line 3: not a JSON object"), midCut.getMessage());

        BadResultsFile empty = assertThrows(BadResultsFile.class, () -> ResultsFile.parse("e.json", ""));
        assertTrue(empty.getMessage().contains("empty file"), empty.getMessage());
        BadResultsFile newer = assertThrows(BadResultsFile.class,
                () -> ResultsFile.parse("n.json", "{\"schema\":\"saw.bench/2\",\"backend\":\"gpu\"}\n"));
        assertEquals("n.json line 1: made by a newer saw (saw.bench/2); this saw reads saw.bench/1", newer.getMessage());
        String header = Files.readAllLines(file).get(0);
        String row = Files.readAllLines(file).get(1).replace("\"seq_q\":256,", "\"seq_q\":\"long\",");
        BadResultsFile wrongType = assertThrows(BadResultsFile.class, () -> ResultsFile.parse("w.json", header + "\n" + row + "\n"));
        assertEquals("w.json line 2: field 'seq_q' must be a 32-bit whole number, got \"long\"", wrongType.getMessage());
        BadResultsFile missing = assertThrows(BadResultsFile.class, () -> ResultsFile.read(dir.resolve("nope.json")));
        assertTrue(missing.getMessage().endsWith("nope.json: no such file"), missing.getMessage());
    }

    @Test
    void everyKindOfFieldIsCheckedAndAWrongOneNamedWithFileAndLine() throws Exception {
        Path file = dir.resolve("r.json");
        sweep(file, dir.resolve("r.csv"));
        String header = Files.readAllLines(file).get(0);
        String row = Files.readAllLines(file).get(1);
        String[][] cases = {
            {"\"config\":\"[^\"]*\"", "\"config\":5", "field 'config' must be a string, got 5"},
            {"\"median_ms\":[^,]*", "\"median_ms\":\"fast\"", "field 'median_ms' must be a number, got \"fast\""},
            {"\"tiles_empty\":[^,]*", "\"tiles_empty\":1.5", "field 'tiles_empty' must be a whole number, got 1.5"},
            {"\"backend\":\"[^\"]*\",", "", "field 'backend' is missing"},
            {"\"status\":\"[^\"]*\"", "\"status\":null", "field 'status' is missing"},
        };
        for (String[] c : cases) {
            String wrong = row.replaceFirst(c[0], c[1]);
            assertTrue(!wrong.equals(row), c[0] + " is not in " + row);
            BadResultsFile e = assertThrows(BadResultsFile.class, () -> ResultsFile.parse("k.json", header + "\n" + wrong + "\n"));
            assertEquals("k.json line 2: " + c[2], e.getMessage());
        }
        String absent = row.replaceFirst("\"kernel\":\"[^\"]*\"", "\"kernel\":null").replaceFirst(",\"warmup\":[^,}]*", "");
        BenchRow read = ResultsFile.parse("a.json", header + "\n" + absent + "\n").rows().get(0);
        assertEquals("", read.kernel());
        assertEquals(0, read.warmup());
    }
}
