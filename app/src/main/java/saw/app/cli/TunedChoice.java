package saw.app.cli;

import java.io.PrintWriter;
import java.util.Optional;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.KernelTiles;
import saw.engine.attention.Pass;
import saw.engine.gpu.GpuBackend;
import saw.engine.mask.TileLayout;
import saw.engine.tune.GpuCandidates;
import saw.engine.tune.MaskSignature;
import saw.engine.tune.TuneCache;
import saw.engine.tune.TuneChoice;
import saw.engine.tune.TuneKey;

/** The tuned choice of {@code saw tune} for a run that did not name a tile: looked up, applied and announced. */
final class TunedChoice {
    private TunedChoice() {}

    /**
     * Applies the cached winner for this pass to {@code gpu} and returns the layout recompiled at its tile, or null
     * (nothing changed) when the cache has no entry for this problem and mask.
     */
    static TileLayout apply(GpuBackend gpu, AttentionProblem p, TileLayout layout, Pass pass, boolean sinks, PrintWriter err) {
        TuneCache cache = new TuneCache(TuneCache.defaultFile(), w -> err.println("saw: warning: " + w));
        TuneKey key = TuneKey.of(gpu.identity(), pass, p, sinks, MaskSignature.of(layout.mask()));
        Optional<TuneChoice> found = cache.lookup(key);
        if (found.isEmpty()) {
            err.println("saw: no tuned choice for this problem in " + cache.file() + " (run 'saw tune'); using "
                    + layout.blockQ() + "x" + layout.blockKv());
            return null;
        }
        TuneChoice c = found.get();
        KernelTiles t = c.winner().tiles();
        GpuCandidates.apply(gpu, c.winner(), pass);
        if (pass == Pass.BWD) {
            // the forward that a backward run starts with shares the layout: use its tuned family where it has this tile
            TuneKey fwd = TuneKey.of(gpu.identity(), Pass.FWD, p, sinks, key.signature());
            cache.lookup(fwd).filter(f -> f.winner().tiles().equals(t)).ifPresent(f -> GpuCandidates.apply(gpu, f.winner(), Pass.FWD));
        }
        err.printf(java.util.Locale.ROOT, "saw: using the tuned choice %s for the %s pass (%.2fx the default when tuned, %s) from %s%n",
                c.winner(), pass.label(), c.speedupOverDefault(), c.measuredAt(), cache.file());
        return layout.blockQ() == t.blockQ() && layout.blockKv() == t.blockKv() ? layout
                : layout.mask().compile(t.blockQ(), t.blockKv());
    }
}
