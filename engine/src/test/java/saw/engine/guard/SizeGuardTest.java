package saw.engine.guard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import saw.engine.config.BlockSize;
import saw.engine.config.MaskConfig;
import saw.engine.config.Presets;
import saw.engine.format.LayoutFormat;
import saw.engine.format.LayoutFormats;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.TileLayout;

class SizeGuardTest {
    private static final Dims MAX = new Dims(Dims.MAX_SEQ, Dims.MAX_SEQ, 1, 1);

    @Test
    void aLayoutOfTerabytesIsRefusedBeforeAnythingIsBuilt() {
        // every 16x16 block but one drawn at random over 2^24 tokens: 2^20 rows of 2^20 - 1 blocks
        Mask everything = new Mask.RandomBlocks(16, 16, (1 << 20) - 1, 1);
        long start = System.nanoTime();
        Estimate e = SizeGuard.compile("every block", everything, MAX, 16, 16);
        assertTrue(System.nanoTime() - start < 5_000_000_000L, "estimating must not build the layout");
        assertFalse(e.fits());
        assertTrue(e.bytes() > 4L << 40, "at least 4 TiB of drawn blocks, got " + e.bytes());
        TooLarge refused = assertThrows(TooLarge.class, e::orThrow);
        assertEquals(e, refused.estimate());
        String m = refused.getMessage();
        assertTrue(m.startsWith("compiling every block (16777216 x 16777216, batch 1, heads 1) to 16x16 tiles needs about "), m);
        assertTrue(m.contains(" TiB of Java heap, but only ") && m.contains(" is free; use larger blocks"), m);
    }

    @Test
    void aMillionHeadsOfDistinctDocumentsAreRefused() {
        // 1024 x 1024 (batch, head) pairs, each a variant of its own, 2^20 rows each
        List<Mask> heads = new java.util.ArrayList<>();
        for (int h = 0; h < 1024; h++) {
            heads.add(new Mask.SlidingWindow(h, 0));
        }
        Dims dims = new Dims(Dims.MAX_SEQ, Dims.MAX_SEQ, 1, 1024);
        Estimate e = SizeGuard.compile("per head", new Mask.PerHead(heads), dims, 16, 16);
        assertFalse(e.fits(), e.sentence());
        assertTrue(e.bytes() > 1024L * (1 << 20) * 4, e.sentence()); // each variant's row index alone
    }

    @Test
    void presetsFitAtTheirSizeAndAtTheLongestSequence() {
        for (var p : Presets.all()) {
            Estimate own = SizeGuard.compile(p.config());
            assertTrue(own.fits(), own.sentence());
            assertTrue(own.sentence().endsWith(" is free."), own.sentence());
            MaskConfig longest = p.config().withSeq(Dims.MAX_SEQ);
            if (longest.problems().isEmpty()) {
                long bytes = SizeGuard.compileBytes(longest.mask(), longest.dims(), 128, 128);
                assertTrue(bytes < 512L << 20, p.name() + " at 2^24 tokens: " + bytes);
            }
        }
    }

    @Test
    void anExportIsMeasuredAgainstTheFreeDiskSpace(@TempDir Path dir) throws IOException {
        MaskConfig c = Presets.get("causal").withSeq(4096).withBlock(new BlockSize(64, 64));
        TileLayout layout = BoundMask.bind(c.mask(), c.dims()).compile(64, 64);
        for (LayoutFormat f : LayoutFormats.all()) {
            Estimate e = SizeGuard.export(f, layout, dir);
            assertEquals(Estimate.Resource.DISK, e.resource());
            assertEquals(f.estimateBytes(layout), e.bytes());
            assertEquals(Files.getFileStore(dir).getUsableSpace(), e.available(), (double) (64L << 20)); // others write too
            assertTrue(e.fits(), e.sentence());
            assertTrue(e.sentence().startsWith("the " + f.name() + " export of this 4096 x 4096 layout needs about "), e.sentence());
        }
    }

    @Test
    void sentencesNameTheWorkTheNeedAndTheLimit() {
        Estimate fits = new Estimate("running X", Estimate.Resource.GPU, 3L << 30, 100L << 30, "use fewer heads");
        assertEquals("running X needs about 3.0 GiB of GPU memory; 100.0 GiB is free.", fits.sentence());
        Estimate not = new Estimate("running X", Estimate.Resource.GPU, 300L << 30, 100L << 30, "use fewer heads");
        assertEquals("running X needs about 300.0 GiB of GPU memory, but only 100.0 GiB is free; use fewer heads.", not.sentence());
        Estimate onDevice = new Estimate("running X", Estimate.Resource.GPU_TOTAL, 3L << 30, 100L << 30, "use fewer heads");
        assertEquals("running X needs about 3.0 GiB of GPU memory; 100.0 GiB is the GPU's total (what other processes hold "
                + "is checked when the run starts).", onDevice.sentence());
        Estimate tooBig = new Estimate("running X", Estimate.Resource.GPU_TOTAL, 300L << 30, 100L << 30, "use fewer heads");
        assertEquals("running X needs about 300.0 GiB of GPU memory, but 100.0 GiB is the GPU's total; use fewer heads.",
                tooBig.sentence());
        assertEquals("512 B", Bytes.human(512));
        assertEquals("1.5 KiB", Bytes.human(1536));
        assertEquals("8.0 EiB", Bytes.human(Long.MAX_VALUE));
        assertEquals(Long.MAX_VALUE, Bytes.times(1L << 40, 1L << 40));
        assertEquals(Long.MAX_VALUE, Bytes.add(Long.MAX_VALUE, 1));
        assertEquals(6, Bytes.times(2, 3));
        assertThrows(IllegalArgumentException.class, () -> new Estimate("x", Estimate.Resource.HEAP, -1, 0, ""));
    }

    @Test
    void theFreeHeapIsWhatTheJvmCanStillAllocate() {
        long free = SizeGuard.heapFree();
        Runtime rt = Runtime.getRuntime();
        assertTrue(free > 0 && free <= rt.maxMemory(), "free " + free + " of " + rt.maxMemory());
        Estimate e = SizeGuard.heap("allocating everything", rt.maxMemory() + 1, "");
        assertFalse(e.fits());
        assertEquals("allocating everything needs about " + Bytes.human(rt.maxMemory() + 1) + " of Java heap, but only "
                + Bytes.human(e.available()) + " is free.", e.sentence());
    }
}
