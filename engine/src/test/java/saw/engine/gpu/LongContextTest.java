package saw.engine.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import saw.engine.attention.AttentionBackend;
import saw.engine.attention.AttentionInputs;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.Pass;
import saw.engine.attention.SampledCheck;
import saw.engine.guard.SizeGuard;
import saw.engine.guard.TooLarge;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.TileLayout;

/**
 * Problems whose tensors pass 2^31 elements, on the fake driver: what is allocated, launched and copied back, with
 * 64-bit sizes and offsets. (bench/gpu/long-context.sh runs the same sizes on an H200.)
 */
class LongContextTest {
    /** Q of B=1, H=32, D=128 at this length holds 2^31 + 2^19 elements: just past what one Java array holds. */
    private static final int SEQ = (1 << 19) + 128;
    private static final AttentionProblem P = AttentionProblem.of(1, 32, 8, SEQ, SEQ, 128, DType.BF16);

    private static TileLayout window() {
        Mask m = Mask.And.of(new Mask.Causal(0), new Mask.SlidingWindow(4096, 0));
        return BoundMask.bind(m, new Dims(SEQ, SEQ, 1, 32)).compile(128, 128);
    }

    @Test
    void elementCountsPastTwoToThe31AreExact() {
        assertEquals((1L << 31) + (1L << 19), P.qElements());
        assertEquals(((1L << 31) + (1L << 19)) / 4, P.kvElements());
        assertEquals(32L * SEQ, P.rows());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> AttentionInputs.qSize(P));
        assertTrue(e.getMessage().contains("2148007936 elements"), e.getMessage());
        assertEquals(GpuBackend.rowOffset(P, false, 0, 31, SEQ - 1), P.qElements() - 128);
    }

    @Test
    void aTimedRunPastTwoToThe31ElementsDrawsItsInputsOnTheDeviceAndCopiesNothing() {
        FakeDriver driver = new FakeDriver(200L << 30);
        try (GpuBackend gpu = GpuBackend.open(driver, new byte[64], "fake GPU");
             AttentionBackend.PreparedRun run = gpu.prepare(P, window(), Pass.BWD, 1)) {
            run.runTimedMs();
            long q = 2 * P.qElements();
            assertTrue(driver.live.values().stream().anyMatch(b -> b == q), "Q of " + q + " bytes was allocated whole");
            assertTrue(driver.live.values().stream().anyMatch(b -> b == 2 * q), "the fp32 dQ accumulator of " + 2 * q + " bytes");
            assertTrue(driver.copies.stream().noneMatch(FakeDriver.Copy::toHost), "nothing comes back from a timed run");
            long hostToDevice = driver.copies.stream().mapToLong(FakeDriver.Copy::bytes).sum();
            assertTrue(hostToDevice < P.qElements() / 64, "only the tile tables go up: " + hostToDevice + " bytes");
            assertTrue(driver.launched.contains("fill_normal_bf16"));
        }
    }

    @Test
    void theSinkColumnOfALongBackwardIsWalkedInPartsAndAddedByItsOwnKernel() {
        TileLayout sinks = BoundMask.bind(Mask.And.of(new Mask.Causal(0), Mask.Or.of(new Mask.SlidingWindow(4096, 0),
                new Mask.Sinks(4))), new Dims(SEQ, SEQ, 1, 32)).compile(128, 128);
        FakeDriver driver = new FakeDriver(200L << 30);
        try (GpuBackend gpu = GpuBackend.open(driver, new byte[64], "fake GPU");
             AttentionBackend.PreparedRun run = gpu.prepare(P, sinks, Pass.BWD, 1)) {
            run.runTimedMs();
            GpuBackend.TableCost tables = gpu.lastTables();
            // kv-tile 0 of each of the 8 kv heads: 4,097 q-tiles x 4 heads, against 33 x 4 for the others
            assertEquals(8, tables.splitColumns(), tables.toString());
            assertTrue(tables.columnParts() >= 8 * 7, tables.toString());
            assertTrue(tables.toString().contains("the backward walks 8 long columns in "), tables.toString());
            assertTrue(driver.launched.contains("bwd_parts_bf16"));
        }
        FakeDriver plain = new FakeDriver(200L << 30);
        try (GpuBackend gpu = GpuBackend.open(plain, new byte[64], "fake GPU");
             AttentionBackend.PreparedRun run = gpu.prepare(P, window(), Pass.BWD, 1)) {
            run.runTimedMs();
            assertEquals(0, gpu.lastTables().splitColumns());
            assertFalse(plain.launched.contains("bwd_parts_bf16"), "no column of a window stands out");
        }
    }

    @Test
    void aSampledCheckCopiesBackOnlyItsRowsAtSixtyFourBitOffsets() {
        FakeDriver driver = new FakeDriver(200L << 30);
        try (GpuBackend gpu = GpuBackend.open(driver, new byte[64], "fake GPU")) {
            TileLayout layout = window();
            SampledCheck.Result r = gpu.checkSampled(P, layout, true, 5, 2);
            long guarded = SizeGuard.gpuRun(P, layout, Pass.BWD, 0, Long.MAX_VALUE).bytes();
            assertTrue(driver.peak <= guarded && driver.peak > 0.99 * guarded,
                    "the guard's " + guarded + " bytes against the " + driver.peak + " bytes allocated at the peak");
            assertEquals(32 * 2, r.queryRows().size());
            assertTrue(r.queryRows().contains(new SampledCheck.Row(0, 31, SEQ - 1)));
            long lastRowOfO = 2 * (P.qElements() - 128);
            assertTrue(lastRowOfO > 1L << 32);
            assertTrue(driver.copies.stream().anyMatch(c -> c.toHost() && c.deviceOffset() == lastRowOfO && c.bytes() == 256),
                    "the last row of O was read at byte " + lastRowOfO);
            long back = driver.copies.stream().filter(FakeDriver.Copy::toHost).mapToLong(FakeDriver.Copy::bytes).sum();
            assertTrue(back < (1L << 31), "copied back " + back + " bytes, far less than the tensors");
            assertTrue(driver.copies.stream().filter(FakeDriver.Copy::toHost)
                    .allMatch(c -> c.bytes() <= DeviceBuffer.COPY_CHUNK));
            assertEquals(0, driver.used(), "every buffer is freed");
            GpuBackend.TableCost tables = gpu.lastTables();
            assertEquals(1, tables.lists(), "the 32 identical heads share one tile list");
            assertEquals(32, tables.heads());
            assertTrue(tables.deviceBytes() > 0 && tables.deviceBytes() < P.qElements() / 100, tables.toString());
        }
    }

    @Test
    void readsLargerThanAChunkGoInChunksWithTheirOffsets() {
        FakeDriver driver = new FakeDriver(64L << 30);
        try (CudaDevice cuda = new CudaDevice(driver, 0, new byte[64]);
             DeviceBuffer b = cuda.buffer("O", 6L << 30)) {
            long first = (5L << 30) / 2;  // element 2.5 Gi: byte 5 GiB
            int n = (int) (DeviceBuffer.COPY_CHUNK * 2 + 100) / 2;
            b.readShorts("O", first, n);
            List<FakeDriver.Copy> c = driver.copies;
            assertEquals(3, c.size());
            assertEquals(List.of(5L << 30, (5L << 30) + DeviceBuffer.COPY_CHUNK, (5L << 30) + 2 * DeviceBuffer.COPY_CHUNK),
                    c.stream().map(FakeDriver.Copy::deviceOffset).toList());
            assertEquals(2L * n, c.stream().mapToLong(FakeDriver.Copy::bytes).sum());
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> b.readShorts("O", 3L << 30, 2));
            assertTrue(e.getMessage().contains("outside the 6442450944-byte buffer"), e.getMessage());
        }
    }

    @Test
    void theGuardRefusesBeforeAllocatingWithWhatItNeedsAndWhatIsFree() {
        FakeDriver driver = new FakeDriver(20L << 30);
        try (GpuBackend gpu = GpuBackend.open(driver, new byte[64], "fake GPU")) {
            TooLarge e = assertThrows(TooLarge.class, () -> gpu.checkSampled(P, window(), true, 5, 2));
            assertTrue(e.getMessage().startsWith("the GPU bwd pass on B=1 H=32 Hkv=8 Sq=524416"), e.getMessage());
            assertTrue(e.getMessage().contains("needs about") && e.getMessage().contains("but only 20.0 GiB is free"), e.getMessage());
            assertEquals(0, driver.peak, "nothing was allocated");
        }
    }

    @Test
    void layoutsWithMoreTilesThanThirtyTwoBitIndicesReachAreRefusedInOneSentence() {
        int seq = 1 << 22;
        AttentionProblem p = AttentionProblem.of(1, 1, 1, seq, seq, 128, DType.BF16);
        TileLayout full = BoundMask.bind(new Mask.Full(), new Dims(seq, seq, 1, 1)).compile(64, 32);
        assertEquals(1L << 33, GpuBackend.listedTiles(full));
        FakeDriver driver = new FakeDriver(200L << 30);
        try (GpuBackend gpu = GpuBackend.open(driver, new byte[64], "fake GPU")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> gpu.prepare(p, full, Pass.FWD, 1));
            assertEquals("the tile lists of this layout hold 8589934592 tiles, past the 2147483647 that the kernels' 32-bit "
                    + "tile indices reach; use larger tiles or shorter sequences", e.getMessage());
            assertEquals(0, driver.peak);
        }
    }
}
