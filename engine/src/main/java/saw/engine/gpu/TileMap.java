package saw.engine.gpu;

import java.util.Arrays;

/**
 * A tiled tensor map to ask {@code cuTensorMapEncodeTiled} for: a tensor of 16-bit elements (bf16 or fp16), its
 * extents innermost first, the byte strides of the outer dimensions, and the box one bulk tensor copy moves, in the
 * 128-byte swizzle the warpgroup MMA reads (rows of 64 elements). Coordinates past an extent read zeros.
 */
record TileMap(boolean bf16, long[] dims, long[] strides, int[] box) {
    /** Elements per box row: 128 bytes, the widest row the 128-byte swizzle takes. */
    static final int BOX_COLUMNS = 64;

    TileMap {
        if (dims.length != strides.length + 1 || box.length != dims.length) {
            throw new IllegalArgumentException("a tensor map of rank " + dims.length + " needs " + (dims.length - 1)
                    + " strides and " + dims.length + " box extents");
        }
        for (int i = 0; i < box.length; i++) {
            if (box[i] < 1 || box[i] > 256) {
                throw new IllegalArgumentException("box extent " + box[i] + " of dimension " + i + " must lie in 1..256");
            }
            if (dims[i] < 1 || dims[i] > 1L << 32) {
                throw new IllegalArgumentException("extent " + dims[i] + " of dimension " + i + " must lie in 1..2^32");
            }
        }
        for (long s : strides) {
            if (s % 16 != 0 || s <= 0 || s >= 1L << 40) {
                throw new IllegalArgumentException("tensor map strides must be positive multiples of 16 bytes under 2^40, "
                        + "not " + s);
            }
        }
        dims = dims.clone();
        strides = strides.clone();
        box = box.clone();
    }

    /**
     * K, V, Q or dO as [heads][rows][headDim] (heads = batch x that tensor's heads), one box = {@code boxRows} rows
     * of one 64-column panel of a head: the kernel takes panel, row and head as coordinates, and a head's rows past
     * {@code rows} (also when a box is longer than the whole head) read zeros, as the cp.async loads' zero fill does.
     */
    static TileMap ofHeads(boolean bf16, long heads, long rows, int headDim, int boxRows) {
        if (headDim % BOX_COLUMNS != 0) {
            throw new IllegalArgumentException("head dim " + headDim + " is not a multiple of " + BOX_COLUMNS);
        }
        return new TileMap(bf16, new long[] {headDim, rows, heads}, new long[] {2L * headDim, 2L * headDim * rows},
                new int[] {BOX_COLUMNS, boxRows, 1});
    }

    @Override
    public long[] dims() {
        return dims.clone();
    }

    @Override
    public long[] strides() {
        return strides.clone();
    }

    @Override
    public int[] box() {
        return box.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TileMap m && bf16 == m.bf16 && Arrays.equals(dims, m.dims) && Arrays.equals(strides, m.strides)
                && Arrays.equals(box, m.box);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * (31 * Boolean.hashCode(bf16) + Arrays.hashCode(dims)) + Arrays.hashCode(strides)) + Arrays.hashCode(box);
    }

    @Override
    public String toString() {
        return (bf16 ? "bf16" : "fp16") + " dims " + Arrays.toString(dims) + " strides " + Arrays.toString(strides) + " box "
                + Arrays.toString(box);
    }
}
