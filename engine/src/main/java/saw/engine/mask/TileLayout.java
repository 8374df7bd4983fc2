package saw.engine.mask;

/**
 * A mask compiled to tiles of {@code blockQ} x {@code blockKv} tokens: one {@link TileGrid} per distinct variant.
 * The grid has ceil(Sq/blockQ) x ceil(Skv/blockKv) tiles; ragged last tiles hold only real tokens.
 */
public final class TileLayout {
    private final BoundMask mask;
    private final int blockQ;
    private final int blockKv;
    private final TileGrid[] grids;

    private TileLayout(BoundMask mask, int blockQ, int blockKv, TileGrid[] grids) {
        this.mask = mask;
        this.blockQ = blockQ;
        this.blockKv = blockKv;
        this.grids = grids;
    }

    static TileLayout compile(BoundMask mask, int blockQ, int blockKv) {
        if (blockQ < 1 || blockKv < 1) {
            throw new IllegalArgumentException("block sizes must be >= 1, got " + blockQ + "x" + blockKv);
        }
        Dims dims = mask.dims();
        int nq = BoundMask.ceilDiv(dims.seqQ(), blockQ);
        int nkv = BoundMask.ceilDiv(dims.seqKv(), blockKv);
        TileGrid[] grids = new TileGrid[mask.variantCount()];
        for (int v = 0; v < grids.length; v++) {
            grids[v] = new RowCompiler(mask.node(v), dims, blockQ, blockKv, nq, nkv).compile();
        }
        return new TileLayout(mask, blockQ, blockKv, grids);
    }

    public BoundMask mask() {
        return mask;
    }

    public Dims dims() {
        return mask.dims();
    }

    public int blockQ() {
        return blockQ;
    }

    public int blockKv() {
        return blockKv;
    }

    public int numQBlocks() {
        return grids[0].numQBlocks();
    }

    public int numKvBlocks() {
        return grids[0].numKvBlocks();
    }

    public int variantCount() {
        return grids.length;
    }

    public TileGrid grid(int variant) {
        return grids[variant];
    }

    /** The grid that batch entry {@code b}, head {@code h} uses. */
    public TileGrid grid(int b, int h) {
        return grids[mask.variantOf(b, h)];
    }

    /** Token range [start, end) of q-block {@code qBlock}. */
    public int qStart(int qBlock) {
        return qBlock * blockQ;
    }

    public int qEnd(int qBlock) {
        return Math.min(dims().seqQ(), (qBlock + 1) * blockQ);
    }

    public int kvStart(int kvBlock) {
        return kvBlock * blockKv;
    }

    public int kvEnd(int kvBlock) {
        return Math.min(dims().seqKv(), (kvBlock + 1) * blockKv);
    }

    /** Tiles of a class summed over every batch entry and head. */
    public long count(TileClass c) {
        long[] mult = mask.variantMultiplicity();
        long total = 0;
        for (int v = 0; v < grids.length; v++) {
            total += mult[v] * grids[v].count(c);
        }
        return total;
    }

    /** Attending pairs in one tile of one variant, exactly. */
    public long attendingInTile(int variant, int qBlock, int kvBlock) {
        return mask.countAttending(variant, qStart(qBlock), qEnd(qBlock), kvStart(kvBlock), kvEnd(kvBlock));
    }

    /** Builds one grid row by row, halving kv-block ranges until each part is decided. */
    private static final class RowCompiler {
        private final Node node;
        private final Dims dims;
        private final int blockQ;
        private final int blockKv;
        private final int nq;
        private final int nkv;
        private final TileGrid.Builder out;

        RowCompiler(Node node, Dims dims, int blockQ, int blockKv, int nq, int nkv) {
            this.node = node;
            this.dims = dims;
            this.blockQ = blockQ;
            this.blockKv = blockKv;
            this.nq = nq;
            this.nkv = nkv;
            this.out = new TileGrid.Builder(nq, nkv);
        }

        TileGrid compile() {
            for (int r = 0; r < nq; r++) {
                int q0 = r * blockQ;
                int q1 = Math.min(dims.seqQ(), q0 + blockQ);
                out.startRow(r);
                runs(node.restrict(q0, q1, 0, dims.seqKv()), q0, q1, 0, nkv);
            }
            return out.build();
        }

        private void runs(Node n, int q0, int q1, int kbLo, int kbHi) {
            int k0 = kbLo * blockKv;
            int k1 = Math.min(dims.seqKv(), kbHi * blockKv);
            Node r = n.restrict(q0, q1, k0, k1);
            if (r == Node.Const.EMPTY_NODE) {
                out.add(kbLo, Node.EMPTY);
            } else if (r == Node.Const.FULL_NODE) {
                out.add(kbLo, Node.FULL);
            } else if (kbHi - kbLo == 1) {
                out.add(kbLo, r.tight() ? Node.PARTIAL : Nodes.classify(r, q0, q1, k0, k1));
            } else {
                int mid = (kbLo + kbHi) >>> 1;
                runs(r, q0, q1, kbLo, mid);
                runs(r, q0, q1, mid, kbHi);
            }
        }
    }
}
