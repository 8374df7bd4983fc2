package saw.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import javafx.scene.control.ChoiceBox;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.Start;
import saw.engine.mask.TileLayout;
import saw.engine.nsa.NsaSelection;
import saw.engine.nsa.NsaSelections;
import saw.engine.nsa.NsaStats;
import saw.ui.nsa.NsaModel;

/**
 * The NSA tab makes the chosen selection of the current mask, and the inspector's NSA section states its counts:
 * each equal to a count of the same selection made here, the shared walk's sharing by brute force.
 */
class NsaViewTest extends WorkbenchFixture {
    @Start
    void start(Stage stage) throws Exception {
        open(stage);
    }

    @Test
    void theInspectorStatesTheScoredSelectionsPairsSharingAndTheForwardItLeadsTo(FxRobot robot) throws Exception {
        waitForCompiledCurrent();
        fxRun(() -> wb.showTab("NSA"));
        waitUntil("the NSA view is shown", () -> robot.lookup("#nsa-source").tryQuery().isPresent());
        waitUntil("the mask's selection is made", () -> text(robot, "#nsa-caption").startsWith("tokens 0-"),
                () -> text(robot, "#nsa-caption"));
        robot.clickOn("#nsa-source");
        robot.clickOn(NsaModel.Source.SCORED.toString());
        ChoiceBox<?> source = robot.lookup("#nsa-source").query();
        assertEquals(NsaModel.Source.SCORED, fx(source::getValue));

        TileLayout lay = fx(() -> wb.layout().compiled().layout());
        // the window's defaults: S = 16, seed 1, every head of the mask its own kv head
        NsaSelection sel = NsaSelections.scored(lay.dims().batch(), lay.dims().seqQ(), lay.dims().heads(), 16,
                lay.blockKv(), 16, 1);
        NsaStats stats = NsaStats.of(sel, lay.blockQ());
        String pairs = String.format(Locale.ROOT, "%,d", stats.selectedPairs());
        waitUntil("the scored selection's pairs are shown", () -> text(robot, "#nsa-pairs").equals(pairs),
                () -> text(robot, "#nsa-pairs") + " against " + pairs);
        assertEquals(String.format(Locale.ROOT, "%.2f", stats.meanSharing()), text(robot, "#nsa-sharing"));

        double walk = walkSharing(sel, 11);
        String shown = text(robot, "#nsa-walk-sharing");
        // the walk crosses the warp order near 1.2 at D = 128; at D = 64 near 1.12 with blocks of 64 or more (64-key
        // chunks) and near 2.2 with blocks of 32 (32-key chunks)
        double least128 = 1.2;
        double least64 = lay.blockKv() >= 64 ? 1.12 : 2.2;
        String expected = String.format(Locale.ROOT, "%.2f tokens per block over 11-token tiles, so on Hopper with "
                + "9-16 heads per kv head the forward runs %s at head dim 128 and %s at head dim 64 (the walk from "
                + "%.2f and %.2f on)", walk, walk >= least128 ? "the shared walk" : "the warp order",
                walk >= least64 ? "the shared walk" : "the warp order", least128, least64);
        assertEquals(expected, shown);
        assertTrue(walk > 1, "neighbouring tokens of a scored selection share blocks: " + walk);
    }

    /** Choices whose block starts at or before the token, per distinct (plane, tile of {@code tile} tokens, block). */
    private static double walkSharing(NsaSelection sel, int tile) {
        long pairs = 0;
        long distinct = 0;
        for (int b = 0; b < sel.batch(); b++) {
            for (int h = 0; h < sel.kvHeads(); h++) {
                for (int t0 = 0; t0 < sel.seqLen(); t0 += tile) {
                    Set<Integer> blocks = new HashSet<>();
                    for (int t = t0; t < Math.min(sel.seqLen(), t0 + tile); t++) {
                        for (int s = 0; s < sel.count(b, t, h); s++) {
                            int kb = sel.block(b, t, h, s);
                            if (kb >= 0 && (long) kb * sel.blockSize() <= t) {
                                pairs++;
                                blocks.add(kb);
                            }
                        }
                    }
                    distinct += blocks.size();
                }
            }
        }
        return (double) pairs / distinct;
    }
}
