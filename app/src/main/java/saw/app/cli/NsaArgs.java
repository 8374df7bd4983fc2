package saw.app.cli;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import picocli.CommandLine.Option;
import saw.engine.mask.TileLayout;
import saw.engine.nsa.BadSelection;
import saw.engine.nsa.NsaSelection;
import saw.engine.nsa.NsaSelections;

/** The options that name an NSA selection for verify, bench and dump (a picocli mixin); see docs/nsa.md. */
final class NsaArgs {
    @Option(names = "--nsa", paramLabel = "SOURCE", description = "run NSA selected attention on this selection: random "
            + "(random causal top-S per token, own block included), scored (top-S of block scores from a seeded Q/K draw), "
            + "mask (the blocks SPEC's mask attends) or a block_indices .npy file [B, T, Hkv, S]")
    String source;

    @Option(names = "--nsa-counts", paramLabel = "FILE", description = "block_counts .npy [B, T, Hkv] for a block_indices "
            + "file (default: the entries before the first -1)")
    String counts;

    @Option(names = "--nsa-s", paramLabel = "S", defaultValue = "16", description = "blocks per token for random and scored "
            + "(default: ${DEFAULT-VALUE})")
    int s;

    @Option(names = "--nsa-block", paramLabel = "N", defaultValue = "64", description = "kv-block size in tokens for random, "
            + "scored and .npy selections (default: ${DEFAULT-VALUE}; mask takes the kv size of --block)")
    int block;

    @Option(names = "--nsa-causal", description = "reject a .npy selection with a block that starts after its token")
    boolean causal;

    boolean given() {
        return source != null;
    }

    boolean fromMask() {
        return "mask".equals(source);
    }

    boolean fromFile() {
        return given() && !fromMask() && !"random".equals(source) && !"scored".equals(source);
    }

    /**
     * The selection for batch x seq tokens x kvHeads (a file gives its own and must agree with those that were set).
     *
     * @param layout the compiled mask, for {@code --nsa mask}; else unused
     * @throws BadInput naming the option and what is wrong
     */
    NsaSelection selection(int batch, int seq, int kvHeads, int group, long seed, TileLayout layout) {
        try {
            switch (source) {
                case "random":
                    return NsaSelections.random(batch, seq, kvHeads, s, block, seed);
                case "scored":
                    return NsaSelections.scored(batch, seq, kvHeads, s, block, 16, seed);
                case "mask":
                    return NsaSelections.fromMask(layout, kvHeads, group);
                default:
                    return NsaSelections.fromNpy(path("--nsa", source), counts == null ? null : path("--nsa-counts", counts),
                            block, causal);
            }
        } catch (BadSelection e) {
            throw new BadInput("--nsa " + source + ": " + e.getMessage());
        }
    }

    private static Path path(String option, String value) {
        try {
            return Path.of(value);
        } catch (InvalidPathException e) {
            throw new BadInput(option + ": '" + value + "' is not a usable path (" + e.getMessage() + ")");
        }
    }
}
