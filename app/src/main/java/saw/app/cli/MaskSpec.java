package saw.app.cli;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import saw.engine.attention.KernelTiles;
import saw.engine.config.BlockSize;
import saw.engine.config.ConfigException;
import saw.engine.config.MaskConfig;
import saw.engine.config.SpecLoader;
import saw.engine.guard.SizeGuard;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.MaskChecks;
import saw.engine.mask.TileLayout;

/**
 * SPEC as every command takes it: a config (a file or preset:NAME) or a one-line mask ({@link MaskExpression}) at
 * --seq tokens. {@link #config} gives the commands that name only --seq and --block a {@link MaskConfig}; the record is
 * what verify and ring-run use: the mask and shape with their --seq, --batch, --heads and --block over them.
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
        requireSeq(seq);
        return new MaskSpec(MaskExpression.parse(spec), spec, seq, seq, batch == null ? 1 : batch, heads == null ? 4 : heads,
                block == null ? defaultTile : block);
    }

    /** What the commands that name a config say SPEC is, for their help. */
    static final String DESCRIPTION = "a saw.mask/1 config file, preset:NAME (see 'saw presets'), or a one-line mask "
            + "such as and(causal,docs(3000,5000)) with --seq";

    /**
     * SPEC's config: a file or preset as written (its problems checked by the loader), or a one-line mask at {@code seq}
     * query and key tokens, batch 1, one head (one per mask of a heads(...) mix), tiles 128x128 and named by its text.
     *
     * @throws BadInput when a one-line mask comes without --seq, does not parse or does not fit the sizes
     */
    static MaskConfig config(String spec, Integer seq) throws ConfigException {
        if (isConfig(spec)) {
            return SpecLoader.load(spec);
        }
        requireSeq(seq);
        MaskConfig c;
        try {
            Mask mask = MaskExpression.parse(spec);
            int heads = mask instanceof Mask.PerHead mix ? mix.variants().size() : 1;
            String name = spec.length() <= MaskConfig.MAX_NAME_LENGTH ? spec : spec.substring(0, MaskConfig.MAX_NAME_LENGTH);
            c = new MaskConfig(name, "", seq, seq, 1, heads, new BlockSize(128, 128), mask);
        } catch (IllegalArgumentException e) {
            throw new BadInput(e.getMessage());
        }
        List<MaskChecks.Problem> problems = c.problems();
        if (!problems.isEmpty()) {
            throw new BadInput(problems.stream().map(p -> spec + " at --seq " + seq + ": " + p).collect(Collectors.joining("\n")));
        }
        return c;
    }

    private static void requireSeq(Integer seq) {
        if (seq == null) {
            throw new BadInput("--seq is required with a one-line mask (a config file or preset gives its own)");
        }
        checkSeq(seq);
    }

    static void checkSeq(int seq) {
        if (seq < 1 || seq > Dims.MAX_SEQ) {
            throw new BadInput("--seq must be in 1.." + Dims.MAX_SEQ + ", got " + seq);
        }
    }

    /** A preset, or a path to an existing file or one ending in .json; anything else is a one-line mask. */
    static boolean isConfig(String spec) {
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
