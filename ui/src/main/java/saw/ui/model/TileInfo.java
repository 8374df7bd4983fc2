package saw.ui.model;

import java.util.Locale;
import saw.engine.mask.TileClass;
import saw.engine.mask.TileLayout;

/** One tile of one variant: its blocks, token ranges, class and how many of its pairs attend (exactly). */
public record TileInfo(int qBlock, int kvBlock, int qStart, int qEnd, int kvStart, int kvEnd, TileClass tileClass,
                       long attending) {

    public static TileInfo of(TileLayout layout, int variant, int qb, int kb) {
        return new TileInfo(qb, kb, layout.qStart(qb), layout.qEnd(qb), layout.kvStart(kb), layout.kvEnd(kb),
                layout.grid(variant).classAt(qb, kb), layout.attendingInTile(variant, qb, kb));
    }

    public long pairs() {
        return (long) (qEnd - qStart) * (kvEnd - kvStart);
    }

    public double fraction() {
        return (double) attending / pairs();
    }

    /** What the tooltip says, e.g. "q-block 3 (tokens 384-511) x kv-block 2 (256-383)\nPARTIAL, 50.4% of pairs attend". */
    public String text() {
        return String.format(Locale.ROOT, "q-block %d (tokens %d-%d) x kv-block %d (tokens %d-%d)%n%s, %s of %d pairs attend",
                qBlock, qStart, qEnd - 1, kvBlock, kvStart, kvEnd - 1, tileClass, percent(fraction()), pairs());
    }

    /** A share as a percentage that never rounds a nonzero share to 0% or a partial one to 100%. */
    public static String percent(double share) {
        if (share > 0 && share < 0.001) {
            return "<0.1%";
        }
        if (share < 1 && share > 0.999) {
            return ">99.9%";
        }
        return String.format(Locale.ROOT, "%.1f%%", share * 100);
    }
}
