package saw.engine.gpu;

import static saw.engine.gpu.BackwardKernelChoiceTest.causal;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import saw.engine.attention.AttentionInputs;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.KernelTiles;
import saw.engine.attention.TileLists;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.TileLayout;

/** The warp-specialised Hopper backward at head dim 64 / 128 is persistent: at most one CTA per SM (fake driver, no GPU). */
class PersistentBackwardTest {
    private static final AttentionProblem P = AttentionProblem.of(2, 4, 2, 1000, 1000, 128, DType.BF16);
    /** 128-row kv tiles: ceil(1000 / 128) = 8 per kv head, 2 x 2 kv heads (a column walks its GQA group's heads). */
    private static final int COLUMNS = 2 * 2 * 8;
    private static final String WS = "bwd_wgmmaws_bf16_d128_q128_kv128";

    private static int backwardGrid(BackwardKernel family, int multiProcessors, String kernel) {
        TileLayout layout = causal(P, 128, 128);
        return FakeDriver.gridOf(kernel, multiProcessors, gpu -> {
            gpu.backwardKernel(family);
            gpu.forwardBackward(AttentionInputs.random(P, 5, true), layout);
        });
    }

    @Test
    void warpSpecialisedBackwardLaunchesAtMostOneCtaPerSm() {
        assertEquals(5, backwardGrid(BackwardKernel.WGMMA_WS, 5, WS));
        assertEquals(COLUMNS, backwardGrid(BackwardKernel.WGMMA_WS, 500, WS), "fewer columns than SMs: one CTA each");
    }

    @Test
    void theLaunchCountsTheWorkOrdersEntriesWhenColumnsAreSplit() {
        // every q tile attends kv tile 0 (a sink) beside a window: column 0 lists all 64 q tiles of each head, the
        // others about 3, so TileLists cuts it into parts and the launch walks parts and whole columns alike
        AttentionProblem p = AttentionProblem.of(1, 2, 2, 8192, 8192, 128, DType.BF16);
        Mask mask = Mask.Or.of(new Mask.SlidingWindow(256, 0), new Mask.Sinks(4));
        TileLayout layout = BoundMask.bind(mask, new Dims(p.seqQ(), p.seqKv(), p.batch(), p.heads())).compile(128, 128);
        TileLists lists = TileLists.of(p, layout);
        assertTrue(lists.colSplitItems() > 0, "column 0 is split");
        LaunchShape whole = KernelCatalog.backwardFor(p, new KernelTiles(128, 128), lists.numKvBlocks(),
                BackwardKernel.WGMMA_WS, 9);
        LaunchShape launch = KernelCatalog.backwardLaunch(whole, p, lists);
        assertTrue(launch.persistent(), launch.toString());
        assertEquals(lists.colLaunch().length, launch.grid(), "items: the launch entries, parts included");
        assertTrue(launch.toString().contains("items " + lists.colLaunch().length), launch.toString());
        LaunchShape mma = KernelCatalog.backwardLaunch(
                KernelCatalog.backwardFor(p, new KernelTiles(128, 128), lists.numKvBlocks(), BackwardKernel.MMA, 9), p, lists);
        assertFalse(mma.persistent(), "the mma.sync backward keeps one CTA per entry: " + mma);
        assertEquals(lists.colLaunch().length, mma.grid());
    }
}
