package saw.app.cli;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import saw.engine.attention.KernelTiles;
import saw.engine.config.ConfigException;
import saw.engine.config.MaskConfig;
import saw.engine.config.SpecLoader;
import saw.engine.guard.SizeGuard;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.TileLayout;

/**
 * A SPEC that names a config (a file or preset:NAME) for the commands that also take a one-line mask (verify,
 * ring-run): the config's mask and shape with the command's --seq, --batch, --heads and --block over them.
 */
record MaskSpec(Mask mask, String name, int seqQ, int seqKv, int batch, int heads, String tile) {

    /**
     * The mask and shape SPEC gives: a config's, with the given overrides over them, or a one-line mask at --seq
     * tokens (query and key) with the given batch, heads and tile, else batch 1, 4 heads and {@code defaultTile}.
     *
     * @throws BadInput when a one-line mask comes without --seq
     * @throws IllegalArgumentException when the one-line mask does not parse
     */
    static MaskSpec of(String spec, Integer seq, Integer batch, Integer heads, String block, String defaultTile)
            throws ConfigException {
        if (isConfig(spec)) {
            return ofConfig(spec, seq, batch, heads, block);
        }
        if (seq == null) {
            throw new BadInput("--seq is required with a one-line mask (a config file or preset gives its own)");
        }
        return new MaskSpec(MaskExpression.parse(spec), spec, seq, seq, batch == null ? 1 : batch, heads == null ? 4 : heads,
                block == null ? defaultTile : block);
    }

    /** A preset, or a path to an existing file or one ending in .json; anything else is a one-line mask. */
    private static boolean isConfig(String spec) {
        if (spec.startsWith(SpecLoader.PRESET_PREFIX) || spec.endsWith(".json")) {
            return true;
        }
        try {
            return Files.isRegularFile(Path.of(spec));
        } catch (InvalidPathException e) {
            return false;
        }
    }

    /** The config {@code spec} names; a given --seq sets both lengths, the other overrides their own value. */
    private static MaskSpec ofConfig(String spec, Integer seq, Integer batch, Integer heads, String block) throws ConfigException {
        MaskConfig c = SpecLoader.load(spec);
        return new MaskSpec(c.mask(), c.name(), seq == null ? c.seqLenQ() : seq, seq == null ? c.seqLenKv() : seq,
                batch == null ? c.batch() : batch, heads == null ? c.heads() : heads,
                block == null ? c.block().q() + "x" + c.block().kv() : block);
    }

    /** {@code mask} at {@code dims} compiled into tiles, after the size guards refuse a layout too large to build. */
    static TileLayout compile(String spec, Mask mask, Dims dims, KernelTiles tiles) {
        SizeGuard.compile(spec, mask, dims, tiles.blockQ(), tiles.blockKv()).orThrow();
        SizeGuard.compileTime(spec, mask, dims, tiles.blockQ(), tiles.blockKv()).orThrow();
        return BoundMask.bind(mask, dims).compile(tiles.blockQ(), tiles.blockKv());
    }
}
