package saw.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import javafx.scene.control.TableView;
import javafx.stage.Stage;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.CombinedRangeXYPlot;
import org.jfree.chart.plot.Plot;
import org.jfree.chart.plot.XYPlot;
import org.jfree.data.xy.XYDataset;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.Start;
import saw.engine.bench.BenchRow;
import saw.ui.run.RunModel;

class RunAndChartTest extends WorkbenchFixture {
    @Start
    void start(Stage stage) throws Exception {
        open(stage);
    }

    /** Sets up a CPU sweep of random-block densities from the run panel. */
    private void prepareSweep(FxRobot robot, int seq, String heads, String densities, String tiles, String reps) {
        waitForCompiledCurrent();
        type(robot, "#seq-q", Integer.toString(seq));
        type(robot, "#seq-kv", Integer.toString(seq));
        waitForCompiledCurrent();
        fxRun(() -> wb.showTab("Run"));
        waitUntil("the backends are probed", () -> wb.run().backendProperty().get() != null);
        fxRun(() -> wb.run().backendProperty().set(wb.run().backends().stream()
                .filter(b -> b.name().equals("cpu")).findFirst().orElseThrow()));
        type(robot, "#run-heads", heads);
        type(robot, "#run-tiles", tiles);
        fxRun(() -> wb.run().sweptProperty().set(RunModel.Swept.DENSITY));
        type(robot, "#run-values", densities);
        type(robot, "#run-warmup", "0");
        type(robot, "#run-reps", reps);
    }

    private static List<Integer> seriesPerPlot(JFreeChart chart) {
        Plot plot = chart.getPlot();
        List<XYPlot> plots = plot instanceof CombinedRangeXYPlot c ? c.getSubplots() : List.of((XYPlot) plot);
        List<Integer> out = new ArrayList<>();
        for (XYPlot p : plots) {
            XYDataset d = p.getDataset();
            out.add(d == null ? 0 : d.getSeriesCount());
        }
        return out;
    }

    @Test
    void aSmallCpuSweepFillsTheTableAndTheChartHasOneSeriesPerTileSize(FxRobot robot) {
        prepareSweep(robot, 512, "1", "0.25, 1", "64x64, 128x64", "2");
        robot.clickOn("#run-start");
        waitUntil("the sweep finishes", () -> !wb.run().runningProperty().get() && wb.run().rows().size() == 4,
                () -> wb.run().statusProperty().get());
        TableView<?> table = robot.lookup("#run-results").queryTableView();
        assertEquals(4, fx(() -> table.getItems().size()));
        for (BenchRow row : fx(() -> List.copyOf(wb.run().rows()))) {
            assertTrue(row.ok(), row.status());
            assertEquals("cpu", row.backend());
        }
        assertTrue(fx(() -> wb.run().statusProperty().get()).startsWith("4 rows"));

        fxRun(() -> wb.showTab("Charts"));
        JFreeChart chart = fx(() -> wb.charts().chartProperty().get());
        assertTrue(chart != null, "a chart of the run");
        assertEquals(List.of(2), fx(() -> seriesPerPlot(chart)), "one series per tile size (forward only)");
        assertEquals("useful GFLOP/s", fx(() -> ((CombinedRangeXYPlot) chart.getPlot()).getRangeAxis().getLabel()),
                "a CPU run's chart reads in GFLOP/s, not in thousandths of a TFLOP/s");
        assertTrue(fx(() -> robot.lookup("#chart-viewer").query().isVisible()));
    }

    @Test
    void tickingLearnedSinksRunsTheCpuSweepWithThemAndSaysSo(FxRobot robot) {
        prepareSweep(robot, 256, "2", "0.5", "64x64", "1");
        robot.clickOn("#run-bwd");
        javafx.scene.control.CheckBox sinks = robot.lookup("#run-sinks").queryAs(javafx.scene.control.CheckBox.class);
        assertTrue(fx(() -> sinks.getTooltip().getText()).contains("one logit per head added to each row's softmax denominator"));
        robot.clickOn("#run-sinks");
        assertTrue(fx(() -> wb.run().sinksProperty().get()), "the box drives the run panel's setting");
        robot.clickOn("#run-start");
        waitUntil("the sweep finishes", () -> !wb.run().runningProperty().get() && wb.run().rows().size() == 2,
                () -> wb.run().statusProperty().get());
        assertEquals("2 rows with learned sinks.", fx(() -> wb.run().statusProperty().get()));
        for (BenchRow row : fx(() -> List.copyOf(wb.run().rows()))) {
            assertTrue(row.ok(), row.status());
            assertTrue(row.sinks(), "the row records the sinks: " + row);
            assertTrue(row.kernel().endsWith("_sinks"), "the CPU timed the sink logits: " + row.kernel());
        }
        TableView<?> table = robot.lookup("#run-results").queryTableView();
        var column = fx(() -> table.getColumns().stream().filter(c -> c.getText().equals("sinks")).findFirst().orElseThrow());
        assertEquals("learned", fx(() -> String.valueOf(column.getCellData(0))));
        assertTrue(fx(() -> wb.run().results().rows().stream().allMatch(BenchRow::sinks)), "the charts get rows with sinks");

        fxRun(() -> wb.showTab("Charts"));
        JFreeChart chart = fx(() -> wb.charts().chartProperty().get());
        assertTrue(chart != null, "a chart of the run");
        String subtitle = fx(() -> ((org.jfree.chart.title.TextTitle) chart.getSubtitle(1)).getText());
        assertTrue(subtitle.contains("learned sinks"), subtitle);
    }

    @Test
    void cancelStopsASweepAndKeepsTheFinishedRows(FxRobot robot) {
        prepareSweep(robot, 2048, "2", "0.02, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1", "64x64, 128x64", "5");
        int total = 22;
        robot.clickOn("#run-start");
        waitUntil("a first row arrives", () -> !wb.run().rows().isEmpty(), () -> wb.run().statusProperty().get());
        robot.clickOn("#run-cancel");
        waitUntil("the sweep stops", () -> !wb.run().runningProperty().get());
        int kept = fx(() -> wb.run().rows().size());
        assertTrue(kept >= 1 && kept < total, "kept " + kept + " of " + total);
        assertEquals(kept, fx(() -> robot.lookup("#run-results").queryTableView().getItems().size()));
        assertEquals("Cancelled; " + kept + " finished rows kept.", fx(() -> wb.run().statusProperty().get()));
        assertTrue(fx(() -> !robot.lookup("#run-start").query().isDisabled()), "Run is enabled again");
    }
}
