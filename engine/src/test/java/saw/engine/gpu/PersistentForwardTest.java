package saw.engine.gpu;

import static saw.engine.gpu.BackwardKernelChoiceTest.causal;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jcuda.driver.CUstream;
import org.junit.jupiter.api.Test;
import saw.engine.attention.AttentionInputs;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.KernelTiles;
import saw.engine.mask.TileLayout;

/** The warp-specialised Hopper forwards at head dim 64 / 128 are persistent: at most one CTA per SM (fake driver, no GPU). */
class PersistentForwardTest {
    private static final AttentionProblem P = AttentionProblem.of(2, 4, 2, 1000, 1000, 128, DType.BF16);
    /** 128-row q tiles: ceil(1000 / 128) = 8 per head, 2 x 4 heads. */
    private static final int ROWS = 2 * 4 * 8;

    private static int forwardGrid(ForwardKernel family, int multiProcessors, String kernel) {
        TileLayout layout = causal(P, 128, 128);
        return FakeDriver.gridOf(kernel, multiProcessors, gpu -> {
            gpu.forwardKernel(family);
            gpu.forward(AttentionInputs.random(P, 5, false), layout);
        });
    }

    @Test
    void warpSpecialisedForwardsLaunchAtMostOneCtaPerSm() {
        assertEquals(5, forwardGrid(ForwardKernel.WGMMA_PINGPONG, 5, "fwd_wgmmapp_bf16_d128_q128_kv128_spans"));
        assertEquals(7, forwardGrid(ForwardKernel.WGMMA_WS, 7, "fwd_wgmmaws_bf16_d128_q128_kv128_spans"));
        assertEquals(ROWS, forwardGrid(ForwardKernel.WGMMA_PINGPONG, 500, "fwd_wgmmapp_bf16_d128_q128_kv128_spans"),
                "fewer rows than SMs: one CTA per row");
    }

    @Test
    void theMmaSyncForwardKeepsOneCtaPerRow() {
        assertEquals(ROWS, forwardGrid(ForwardKernel.MMA, 5, "fwd_bf16_d128_q128_kv128"));
    }

    @Test
    void theShapeSaysWhatItsGridCounts() {
        LaunchShape ws = KernelCatalog.forwardWgmma(P, 8, ForwardKernel.WGMMA_PINGPONG, false);
        assertTrue(ws.persistent());
        assertEquals(ROWS, ws.grid());
        assertTrue(ws.toString().contains("items " + ROWS), ws.toString());
        LaunchShape plain = KernelCatalog.forward(P, new KernelTiles(128, 128), 8);
        assertFalse(plain.persistent());
        assertTrue(plain.toString().contains("grid " + ROWS), plain.toString());
    }

    @Test
    void theWorkQueueIsMadeOnceAndFreedWithTheDevice() {
        TileLayout layout = causal(P, 128, 128);
        FakeDriver driver = new FakeDriver(8L << 30);
        try (GpuBackend gpu = GpuBackend.open(driver, new byte[64], "fake GPU", 9)) {
            gpu.forwardKernel(ForwardKernel.WGMMA_PINGPONG);
            gpu.forward(AttentionInputs.random(P, 5, false), layout);
            assertEquals(1, driver.live.values().stream().filter(bytes -> bytes == 8).count(),
                    "two ints outlive the run: " + driver.live.values());
            gpu.forward(AttentionInputs.random(P, 6, false), layout);
            assertEquals(1, driver.live.values().stream().filter(bytes -> bytes == 8).count(), "and are made once");
        }
        assertTrue(driver.live.isEmpty(), "freed with the device: " + driver.live.values());
    }

    @Test
    void eachStreamHasItsOwnWorkQueue() {
        FakeDriver driver = new FakeDriver(8L << 30);
        LaunchShape shape = KernelCatalog.forwardWgmma(P, 8, ForwardKernel.WGMMA_PINGPONG, false);
        CUstream a = new CUstream();
        CUstream b = new CUstream();
        try (CudaDevice cuda = new CudaDevice(driver, 0, new byte[64])) {
            cuda.launchOn(a, shape);
            cuda.launchOn(a, shape);
            cuda.launchOn(b, shape);
            cuda.launch(shape);
            cuda.launch(shape);
            assertEquals(3, driver.live.values().stream().filter(bytes -> bytes == 8).count(),
                    "streams a and b and the default stream: " + driver.live.values());
        }
        assertTrue(driver.live.isEmpty(), "freed with the device: " + driver.live.values());
    }
}
