package saw.engine.guard;

import saw.engine.attention.AttentionProblem;
import saw.engine.attention.Pass;
import saw.engine.attention.TileLists;
import saw.engine.mask.TileClass;
import saw.engine.mask.TileGrid;
import saw.engine.mask.TileLayout;

/**
 * Upper bounds on the memory that running attention takes, following what the backends allocate: the tensors of a
 * pass (saw.engine.gpu.GpuBackend's device buffers, CpuBackend's fp32 arrays), the kernels' tile tables
 * (saw.engine.attention.TileLists, on the device and while they are built on the heap) and the fp64 reference
 * that {@code saw verify} compares with. Each is tested against what the code really allocates.
 */
final class RunBytes {
    /** Room per device buffer for the driver rounding an allocation up to its page size. */
    static final long DEVICE_PAGE = 2L << 20;
    private static final int FWD_BUFFERS = 5;
    private static final int BWD_BUFFERS = 11;
    private static final int TABLE_BUFFERS = 16;

    private RunBytes() {}

    static long qElements(AttentionProblem p) {
        return (long) p.batch() * p.heads() * p.seqQ() * p.headDim();
    }

    static long kvElements(AttentionProblem p) {
        return (long) p.batch() * p.kvHeads() * p.seqKv() * p.headDim();
    }

    static long rows(AttentionProblem p) {
        return (long) p.batch() * p.heads() * p.seqQ();
    }

    /**
     * One set of device tensors in 16-bit elements: Q, K, V, O and the fp32 LSE; the backward pass adds dO, the fp32
     * row sums Dsum, the fp32 dQ accumulator, dQ, dK and dV. With page rounding for each buffer.
     */
    static long deviceTensors(AttentionProblem p, Pass pass) {
        long q = qElements(p);
        long kv = kvElements(p);
        long rows = rows(p);
        long fwd = 2 * q + 4 * kv + 2 * q + 4 * rows;
        if (pass == Pass.FWD) {
            return fwd + FWD_BUFFERS * DEVICE_PAGE;
        }
        return fwd + 2 * q + 4 * rows + 4 * q + 2 * q + 4 * kv + BWD_BUFFERS * DEVICE_PAGE;
    }

    /** The ints of the kernels' tile tables (TileLists) for this problem and layout. */
    static long tableInts(AttentionProblem p, TileLayout layout) {
        long variants = layout.variantCount();
        long nq = layout.numQBlocks();
        long nkv = layout.numKvBlocks();
        long listed = 0;
        long partial = 0;
        for (int v = 0; v < variants; v++) {
            TileGrid g = layout.grid(v);
            long nonEmpty = g.count(TileClass.PARTIAL) + g.count(TileClass.FULL);
            listed += nonEmpty;
            // FULL tiles that stick out past a sequence end are listed as PARTIAL: the last row and column
            partial += Math.min(nonEmpty, g.count(TileClass.PARTIAL) + nq + nkv);
        }
        long wordsPerTile = (long) layout.blockQ() * layout.blockKv() / 32;
        long bh = (long) p.batch() * p.heads();
        // the backward's launch entries, and its parts (at most MAX_COLUMN_PARTS) with their starts
        return bh + (2 * variants * nq + 1) + (2 * variants * nkv + 1) + 4 * listed + 2 * wordsPerTile * partial
                + bh * nq + (long) p.batch() * p.kvHeads() * nkv + 5L * TileLists.MAX_COLUMN_PARTS + 1;
    }

    /** The tile tables on the device. */
    static long deviceTables(AttentionProblem p, TileLayout layout) {
        long partSlots = 8L * TileLists.MAX_COLUMN_PARTS * layout.blockKv() * p.headDim();  // fp32 dK and dV per part
        return Bytes.add(Bytes.add(Bytes.times(4, tableInts(p, layout)), partSlots), TABLE_BUFFERS * DEVICE_PAGE);
    }

    /**
     * The heap TileLists takes while it is built: the tables, per-column counters and per-row scratch, the words of
     * one batch of PARTIAL tiles being computed, its map of distinct bit tiles (at most one per PARTIAL tile), and
     * the sort keys of its work orders. It works from the grids' runs, so nothing grows with nq x nkv.
     */
    static long tileListsHeap(AttentionProblem p, TileLayout layout) {
        long wordsPerTile = (long) layout.blockQ() * layout.blockKv() / 32;
        long variants = layout.variantCount();
        long partial = 0;
        for (int v = 0; v < layout.variantCount(); v++) {
            partial += layout.grid(v).count(TileClass.PARTIAL) + layout.numQBlocks() + layout.numKvBlocks();
        }
        long scratch = 4 * (3 * variants * layout.numKvBlocks() + layout.numKvBlocks() + variants * layout.numQBlocks() + 1
                + partial) + 4 * Math.min(Bytes.times(partial, wordsPerTile), (1L << 22) + wordsPerTile);
        long orders = 12 * Math.max((long) p.batch() * p.heads() * layout.numQBlocks(), (long) p.batch() * p.kvHeads() * layout.numKvBlocks());
        return Bytes.add(Bytes.add(scratch, Bytes.times(4, tableInts(p, layout))),
                Bytes.add(Bytes.times(partial, 12 * wordsPerTile + 96), orders));
    }

    /** Host fp32 arrays of one pass: inputs drawn, their working copies, and the outputs. */
    static long hostTensors(AttentionProblem p, Pass pass) {
        long q = qElements(p);
        long kv = kvElements(p);
        long inputs = 4 * (q + 2 * kv + (pass == Pass.BWD ? q : 0));
        long outputs = 4 * (q + rows(p) + (pass == Pass.BWD ? q + 2 * kv : 0));
        return 2 * inputs + outputs;
    }

    /**
     * The fp64 reference (ReferenceAttention) on top of the inputs it is given: its fp32 copies of them and its
     * outputs, one kv head's K and V (and dK, dV sums) in fp64, and per worker thread partial sums and row scratch.
     */
    static long reference(AttentionProblem p, boolean backward, int threads) {
        Pass pass = backward ? Pass.BWD : Pass.FWD;
        long perKvHead = (long) p.seqKv() * p.headDim() * 8;
        long groups = (backward ? 4 : 2) * perKvHead;
        long workers = (long) threads * ((backward ? 2 * perKvHead : 0) + 32L * p.seqKv() + 64L * p.headDim());
        return Bytes.add(hostTensors(p, pass), groups + workers);
    }
}
