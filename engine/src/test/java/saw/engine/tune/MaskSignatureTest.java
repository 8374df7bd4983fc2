package saw.engine.tune;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.TileClass;
import saw.engine.mask.TileGrid;
import saw.engine.mask.TileLayout;

class MaskSignatureTest {
    @Test
    void causalSignatureHasHalfTheTilesEmptyAndRowsFromOneBlockToAll() {
        MaskSignature s = MaskSignature.of(BoundMask.bind(new Mask.Causal(0), new Dims(4096, 4096, 1, 1)));
        // 64 x 64 blocks: 64 diagonal partial tiles, 2016 full, 2016 empty
        assertEquals(new MaskSignature(49, 2, 49, 2, 51, 100), s);
        assertEquals("e49p2f49-r2/51/100", s.toString());
    }

    @Test
    void sameShapeDifferentSparsityGetsDifferentSignatures() {
        Dims dims = new Dims(8192, 8192, 1, 2);
        MaskSignature narrow = MaskSignature.of(BoundMask.bind(new Mask.SlidingWindow(256, 0), dims));
        MaskSignature wide = MaskSignature.of(BoundMask.bind(new Mask.SlidingWindow(2048, 0), dims));
        MaskSignature causal = MaskSignature.of(BoundMask.bind(new Mask.Causal(0), dims));
        assertNotEquals(narrow, wide);
        assertNotEquals(wide, causal);
    }

    @Test
    void sharesAndRowLengthsMatchCountingEveryTileOnRandomDocumentMasks() {
        long seed = Long.getLong("saw.test.seed", 0x516L);
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int n = 0; n < 20; n++) {
            int[] lengths = new int[1 + rnd.nextInt(6)];
            int total = 0;
            for (int i = 0; i < lengths.length; i++) {
                lengths[i] = 1 + rnd.nextInt(900);
                total += lengths[i];
            }
            BoundMask mask = BoundMask.bind(Mask.Documents.ofLengths(lengths), new Dims(total, total, 1, 1));
            TileLayout layout = mask.compile(64, 64);
            TileGrid g = layout.grid(0);
            long[] count = new long[3];
            int min = Integer.MAX_VALUE;
            int max = 0;
            long sum = 0;
            for (int qb = 0; qb < g.numQBlocks(); qb++) {
                int row = 0;
                for (int kb = 0; kb < g.numKvBlocks(); kb++) {
                    TileClass c = g.classAt(qb, kb);
                    count[c.ordinal()]++;
                    row += c == TileClass.EMPTY ? 0 : 1;
                }
                min = Math.min(min, row);
                max = Math.max(max, row);
                sum += row;
            }
            double tiles = (double) g.numQBlocks() * g.numKvBlocks();
            double nkv = g.numKvBlocks();
            MaskSignature expected = new MaskSignature((int) Math.round(100 * count[TileClass.EMPTY.ordinal()] / tiles),
                    (int) Math.round(100 * count[TileClass.PARTIAL.ordinal()] / tiles),
                    (int) Math.round(100 * count[TileClass.FULL.ordinal()] / tiles), (int) Math.round(100 * min / nkv),
                    (int) Math.round(100 * (sum / (double) g.numQBlocks()) / nkv), (int) Math.round(100 * max / nkv));
            assertEquals(expected, MaskSignature.of(mask), "seed " + seed + " case " + n);
        }
    }
}
