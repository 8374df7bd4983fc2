package saw.engine.guard;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import saw.engine.config.MaskConfig;
import saw.engine.config.Preset;
import saw.engine.config.Presets;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.MaskChecks;
import saw.engine.mask.RandomMasks;
import saw.engine.mask.TileClass;
import saw.engine.mask.TileGrid;
import saw.engine.mask.TileLayout;
import saw.engine.reliability.ReliabilityLog;

/** The compile estimate is an upper bound: every row of every compiled variant has at most the bounded runs. */
class LayoutBoundTest {
    private static final int MASKS = 3000;

    @Test
    void everyRowOfRandomMasksHasAtMostTheBoundedRunsAndPartialTiles() {
        long master = Long.getLong("saw.test.seed", 0xB0DL);
        int checked = 0;
        double loosest = 0;
        for (int n = 0; n < MASKS; n++) {
            long seed = master * 1_000_003L + n;
            SplittableRandom rnd = new SplittableRandom(seed);
            Dims dims = RandomMasks.randomDims(rnd, rnd.nextInt(4) == 0 ? 3000 : 400);
            Mask mask = new RandomMasks(rnd, dims).mask(3);
            if (!MaskChecks.check(mask, dims).isEmpty()) {
                continue;
            }
            // compile blocks need not be powers of two: the bound must hold for any
            int bq = rnd.nextInt(3) == 0 ? 1 + rnd.nextInt(100) : RandomMasks.randomBlock(rnd);
            int bkv = rnd.nextInt(3) == 0 ? 1 + rnd.nextInt(100) : RandomMasks.randomBlock(rnd);
            try {
                loosest = Math.max(loosest, check(mask, dims, bq, bkv));
                checked++;
            } catch (AssertionError | RuntimeException e) {
                fail("mask " + n + " failed; replay with -Dsaw.test.seed=" + master + " (seed " + seed + "): " + e.getMessage(), e);
            }
        }
        assertTrue(checked > MASKS / 2, "only " + checked + " masks were valid");
        System.out.printf(Locale.ROOT, "layout bound: %d masks, loosest bound %.1f x the runs compiled%n", checked, loosest);
    }

    /** Checks every row and returns how loose the total was (bound / actual runs). */
    private static double check(Mask mask, Dims dims, int bq, int bkv) {
        LayoutBound bound = new LayoutBound(dims, bq, bkv);
        TileLayout layout = BoundMask.bind(mask, dims).compile(bq, bkv);
        long boundRuns = 0;
        long actualRuns = 0;
        for (int v = 0; v < layout.variantCount(); v++) {
            Mask variant = layout.mask().variantMask(v);
            TileGrid grid = layout.grid(v);
            int nq = grid.numQBlocks();
            LayoutBound.Row anyRow = bound.row(variant, LayoutBound.ANY_ROW);
            for (int r = 0; r < nq; r++) {
                int partial = grid.kvBlocks(r, TileClass.PARTIAL).length;
                for (LayoutBound.Row b : r == nq - 1 ? List.of(bound.row(variant, r)) : List.of(bound.row(variant, r), anyRow)) {
                    if (grid.runCount(r) > b.runs() || partial > b.partial()) {
                        throw new AssertionError("row " + r + " of " + nq + " (" + bq + "x" + bkv + ", " + dims + ") has "
                                + grid.runCount(r) + " runs and " + partial + " partial tiles, over the bound " + b + " of " + variant);
                    }
                }
            }
            boundRuns += bound.runs(variant);
            actualRuns += grid.totalRuns();
        }
        long estimate = LayoutBound.compileBytes(mask, dims, bq, bkv);
        long grids = 0;
        for (int v = 0; v < layout.variantCount(); v++) {
            grids += 5L * layout.grid(v).totalRuns() + 4L * (layout.numQBlocks() + 1);
        }
        if (grids > estimate) {
            throw new AssertionError("grids hold " + grids + " bytes, over the estimate " + estimate);
        }
        return (double) boundRuns / actualRuns;
    }

    /** The presets at 2^20 tokens (where the mask allows): the estimate stays close to what compiling stores. */
    @Test
    void presetEstimatesAreCloseToTheCompiledSize() {
        StringBuilder measured = new StringBuilder();
        int checked = 0;
        double loosest = 0;
        for (Preset p : Presets.all()) {
            for (MaskConfig c : List.of(p.config(), p.config().withSeq(1 << 20))) {
                if (!c.problems().isEmpty()) {
                    continue;
                }
                long estimate = SizeGuard.compileBytes(c.mask(), c.dims(), c.block().q(), c.block().kv());
                TileLayout layout = BoundMask.bind(c.mask(), c.dims()).compile(c.block().q(), c.block().kv());
                long grids = 0;
                for (int v = 0; v < layout.variantCount(); v++) {
                    grids += 5L * layout.grid(v).totalRuns() + 4L * (layout.numQBlocks() + 1);
                }
                double ratio = (double) estimate / grids;
                assertTrue(grids <= estimate, p.name() + ": " + grids + " bytes compiled, estimate " + estimate);
                // loose by a small factor at most, so that the guard never refuses a preset that fits easily
                assertTrue(ratio < 25, p.name() + " at " + c.seqLenQ() + ": estimate " + estimate + " is " + ratio + " x " + grids);
                loosest = Math.max(loosest, ratio);
                checked++;
            }
        }
        measured.append(String.format(Locale.ROOT, "estimate at most %.2f x the compiled grids", loosest));
        ReliabilityLog.write("guard-layout-bound", new ReliabilityLog.Row("Size guards", 200,
                "compile estimate (upper bound, no compiling) against compiled layouts: " + MASKS + " seeded random masks, every row, "
                        + "plus the presets at their size and at 2^20 tokens",
                MASKS + checked, "never below what compiling stored, in any row", "nothing", measured.toString()));
    }
}
