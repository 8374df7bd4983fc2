package saw.ui.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.TileClass;
import saw.engine.mask.TileLayout;
import saw.engine.ring.RingModel;
import saw.engine.ring.RingPlan;
import saw.engine.ring.RingPlanner;
import saw.engine.ring.RingScheme;

class RingRasterTest {
    @Test
    void everyNonEmptyTileIsBrightAtExactlyOneStepInItsQueryOwnersColour() {
        TileLayout layout = BoundMask.bind(Mask.And.of(new Mask.Causal(0), Mask.Documents.ofLengths(900, 1500, 1696)),
                new Dims(4096, 4096, 1, 1)).compile(128, 64);
        for (RingScheme scheme : RingScheme.values()) {
            RingPlan plan = RingPlanner.plan(layout, 4, scheme, RingModel.defaults(1));
            int w = layout.numKvBlocks();
            int h = layout.numQBlocks();
            int[] brightCount = new int[w * h];
            for (int s = 0; s < 4; s++) {
                int[] px = RingRaster.argb(plan, 0, s, w, h);
                for (int qb = 0; qb < h; qb++) {
                    int owner = plan.qBlockOwner(qb);
                    for (int kb = 0; kb < w; kb++) {
                        int got = px[qb * w + kb];
                        if (layout.grid(0).classAt(qb, kb) == TileClass.EMPTY) {
                            assertEquals(RingRaster.EMPTY, got);
                        } else if (got == RingRaster.deviceColour(owner, true)) {
                            brightCount[qb * w + kb]++;
                        } else {
                            assertEquals(RingRaster.deviceColour(owner, false), got, scheme + " tile " + qb + "," + kb);
                        }
                    }
                }
            }
            for (int qb = 0; qb < h; qb++) {
                for (int kb = 0; kb < w; kb++) {
                    boolean empty = layout.grid(0).classAt(qb, kb) == TileClass.EMPTY;
                    assertEquals(empty ? 0 : 1, brightCount[qb * w + kb], scheme + " tile " + qb + "," + kb);
                }
            }
        }
    }
}
