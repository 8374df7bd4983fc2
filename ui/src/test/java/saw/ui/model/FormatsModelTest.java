package saw.ui.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import saw.engine.config.BlockSize;
import saw.engine.config.MaskConfig;
import saw.engine.mask.Mask;
import saw.engine.mask.TileClass;

class FormatsModelTest {
    @Test
    void theOutlinedExtraTilesAreTheEmptyTilesTheIntervalsCoverAndTheirCountIsTheFormats() {
        long seed = new SplittableRandom().nextLong();
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int round = 0; round < 20; round++) {
            int seq = 512 + rnd.nextInt(3000);
            Mask m = rnd.nextBoolean()
                    ? Mask.Documents.ofLengths(seq / 3, seq / 4, seq / 5)
                    : Mask.Or.of(new Mask.SlidingWindow(rnd.nextInt(200), 0), Mask.GlobalTokens.first(1 + rnd.nextInt(100)));
            MaskConfig c = new MaskConfig("t", "", seq, seq, 1, 1, new BlockSize(64, 64), m);
            LayoutModel.Compiled compiled = LayoutModel.compile(c);
            FormatsModel.Report r = FormatsModel.summarize(compiled);
            assertNotNull(r.intervals(), "seed " + seed);
            var grid = compiled.layout().grid(0);
            List<int[]> extra = FormatsModel.extraTiles(r.intervals(), 0, grid, Integer.MAX_VALUE);
            for (int[] t : extra) {
                assertEquals(TileClass.EMPTY, grid.classAt(t[0], t[1]), "seed " + seed);
                assertEquals(true, t[1] >= r.intervals().lower()[0][t[0]] && t[1] < r.intervals().upper()[0][t[0]]);
            }
            String fidelity = r.summaries().stream().filter(s -> s.format().equals("ejkernel")).findFirst().orElseThrow().fidelity();
            String expected = extra.isEmpty() ? "exact" : String.format("%,d extra tiles (fwd)", extra.size());
            assertEquals(true, fidelity.startsWith(expected) || (extra.isEmpty() && fidelity.contains(" 0 extra")),
                    "seed " + seed + ": " + fidelity + " vs " + extra.size());
        }
    }
}
