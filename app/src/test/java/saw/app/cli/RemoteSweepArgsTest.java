package saw.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import saw.engine.attention.DType;
import saw.engine.attention.KernelTiles;
import saw.engine.attention.Pass;
import saw.engine.bench.BenchRow;
import saw.engine.bench.ResultsFile;
import saw.engine.bench.Sweep;
import saw.engine.bench.SweepPoint;
import saw.engine.bench.SweepRunner;
import saw.engine.bench.Vary;
import saw.engine.config.Presets;
import saw.ui.remote.RemoteSweep;

/** The window's remote sweep is sent as a {@code saw bench} command line: that command runs exactly the window's points. */
class RemoteSweepArgsTest {
    @TempDir
    Path dir;

    @Test
    void theBenchCommandLineOfAWindowSweepRunsTheSamePoints() throws Exception {
        runsTheSamePoints(false);
    }

    @Test
    void aWindowSweepWithLearnedSinksSendsSinksAndItsRowsRecordThem() throws Exception {
        runsTheSamePoints(true);
    }

    private void runsTheSamePoints(boolean sinks) throws Exception {
        var config = Presets.get("sliding-window");
        Sweep sweep = new Sweep(config.name(), Sweep.tree(config), List.of(new Vary(firstNumberPointer(config), List.of(64.0, 128.0))),
                List.of(), List.of(512), List.of(new KernelTiles(64, 64), new KernelTiles(128, 64)), List.of(Pass.FWD, Pass.BWD),
                1, 2, 1, List.of(16), DType.FP16, 1);
        Path file = dir.resolve("config.json");
        new ObjectMapper().writeValue(file.toFile(), sweep.config());
        List<String> args = new ArrayList<>(RemoteSweep.benchArgs(sweep, new SweepRunner.Settings(0, 1, 1, sinks), file));
        assertEquals(sinks, args.contains("--sinks"), args.toString());
        assertEquals(List.of("--backend", "gpu", "--out", "-"), args.subList(args.size() - 4, args.size()));
        args.set(args.size() - 3, "cpu");
        args.set(args.size() - 1, dir.resolve("r.json").toString());
        CliTest.Run r = CliTest.saw(args.toArray(String[]::new));
        assertEquals(0, r.code(), r.err());
        List<SweepPoint> points = sweep.points();
        List<BenchRow> rows = ResultsFile.read(dir.resolve("r.json")).rows();
        assertEquals(points.size(), rows.size());
        for (int i = 0; i < rows.size(); i++) {
            SweepPoint p = points.get(i);
            BenchRow row = rows.get(i);
            assertEquals(p.varied(), row.varied(), "row " + i);
            assertEquals(p.tiles(), row.tiles(), "row " + i);
            assertEquals(p.pass(), row.pass(), "row " + i);
            assertEquals(p.problem(), row.problem(), "row " + i);
            assertEquals(sinks, row.sinks(), "row " + i);
            assertEquals(BenchRow.OK, row.status(), "row " + i);
        }
    }

    /** The pointer of the sliding window's left size in the preset (the first number in its mask). */
    private static String firstNumberPointer(saw.engine.config.MaskConfig config) {
        var mask = Sweep.tree(config).path("mask");
        return find(mask, "/mask");
    }

    private static String find(com.fasterxml.jackson.databind.JsonNode n, String at) {
        if (n.isNumber()) {
            return at;
        }
        for (var it = n.fields(); it.hasNext(); ) {
            var e = it.next();
            String f = find(e.getValue(), at + "/" + e.getKey());
            if (f != null) {
                return f;
            }
        }
        return null;
    }
}
