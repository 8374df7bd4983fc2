package saw.ui.model;

import java.util.BitSet;
import saw.engine.mask.BoundMask;

/** The token pairs of one tile, evaluated pair by pair: bit (i - qStart) * width + (j - kvStart) is set iff i attends j. */
public record TokenTile(TileInfo info, BitSet attends) {

    public static TokenTile of(BoundMask mask, int variant, TileInfo info) {
        int w = info.kvEnd() - info.kvStart();
        BitSet bits = new BitSet((info.qEnd() - info.qStart()) * w);
        for (int i = info.qStart(); i < info.qEnd(); i++) {
            int row = (i - info.qStart()) * w;
            for (int j = info.kvStart(); j < info.kvEnd(); j++) {
                if (mask.attends(variant, i, j)) {
                    bits.set(row + j - info.kvStart());
                }
            }
        }
        return new TokenTile(info, bits);
    }

    public int rows() {
        return info.qEnd() - info.qStart();
    }

    public int columns() {
        return info.kvEnd() - info.kvStart();
    }

    public boolean attends(int row, int column) {
        return attends.get(row * columns() + column);
    }
}
