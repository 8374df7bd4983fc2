package saw.engine.guard;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.TileLists;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.MaskChecks;
import saw.engine.mask.RandomMasks;
import saw.engine.mask.TileLayout;
import saw.engine.reliability.ReliabilityLog;

/** The table estimate is at least what TileLists holds, on seeded random masks and tile sizes. */
class RunBytesTest {
    @Test
    void tableIntsCoverEveryTileListsArray() {
        long master = Long.getLong("saw.test.seed", 0x7AB1L);
        int checked = 0;
        for (int n = 0; n < 400; n++) {
            long seed = master * 1_000_003L + n;
            SplittableRandom rnd = new SplittableRandom(seed);
            Dims dims = RandomMasks.randomDims(rnd, 600);
            Mask mask = new RandomMasks(rnd, dims).mask(3);
            if (!MaskChecks.check(mask, dims).isEmpty()) {
                continue;
            }
            int kvHeads = dims.heads() % 2 == 0 && rnd.nextBoolean() ? dims.heads() / 2 : dims.heads();
            AttentionProblem p = AttentionProblem.of(dims.batch(), dims.heads(), kvHeads, dims.seqQ(), dims.seqKv(), 64, DType.BF16);
            TileLayout layout = BoundMask.bind(mask, dims).compile(32 << rnd.nextInt(3), 32 << rnd.nextInt(3));
            TileLists t = TileLists.of(p, layout);
            long ints = (long) t.variantOf().length + t.rowPtr().length + t.rowPartial().length + t.rowKv().length + t.rowMask().length
                    + t.colPtr().length + t.colPartial().length + t.colQ().length + t.colMask().length + t.bits().length
                    + t.bitsT().length + t.rowOrder().length + t.colLaunch().length + t.colParts().length
                    + t.colPartStarts().length;
            if (ints > RunBytes.tableInts(p, layout)) {
                fail("TileLists holds " + ints + " ints, estimate " + RunBytes.tableInts(p, layout) + " (replay seed " + seed + ")");
            }
            checked++;
        }
        assertTrue(checked > 200, "only " + checked + " masks were valid");
        ReliabilityLog.write("guard-tile-tables", new ReliabilityLog.Row("Size guards", 201,
                "tile-table estimate against the TileLists the kernels read: seeded random masks, tile sizes and GQA", checked,
                "the estimate was never below the tables' size", "nothing", ""));
    }
}
