package saw.engine.format;

import saw.engine.mask.BoundMask;
import saw.engine.mask.TileLayout;

/**
 * The batch and head sizes a format writes: 1 where the mask does not vary with that axis (readers broadcast it),
 * else the full size. A head period that is below the head count still needs every head written, because
 * readers broadcast only size 1.
 */
record Extents(int batch, int heads) {
    static Extents of(TileLayout layout) {
        BoundMask mask = layout.mask();
        return new Extents(mask.batchPeriod() == 1 ? 1 : layout.dims().batch(), mask.headPeriod() == 1 ? 1 : layout.dims().heads());
    }
}
