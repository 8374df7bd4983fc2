package saw.app.cli;

import java.util.List;
import java.util.stream.Collectors;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import saw.engine.config.BlockSize;
import saw.engine.config.ConfigException;
import saw.engine.config.MaskConfig;
import saw.engine.mask.MaskChecks;

/** The arguments that name a config: SPEC (MaskSpec) and the overrides --seq and --block (a picocli mixin). */
final class SpecArgs {
    @Parameters(index = "0", arity = "0..1", paramLabel = "SPEC", description = MaskSpec.DESCRIPTION)
    String spec;

    @Option(names = "--seq", paramLabel = "N", description = "use N query and N key tokens instead of the config's lengths "
            + "(nothing in the mask is rescaled); required for a one-line mask")
    Integer seq;

    @Option(names = "--block", paramLabel = "QxKV", description = "tile size, e.g. 128x64 (default: the config's block)")
    String block;

    /**
     * The config with the overrides applied, checked again after them.
     *
     * @throws ConfigException when the spec cannot be loaded
     * @throws BadInput when an override is invalid or the mask does not fit the new sizes
     */
    MaskConfig load() throws ConfigException {
        if (spec == null) {
            throw new BadInput("Missing required parameter: 'SPEC'");
        }
        MaskConfig config = MaskSpec.config(spec, seq);
        if (block != null) {
            try {
                config = config.withBlock(BlockSize.parse(block));
            } catch (IllegalArgumentException e) {
                throw new BadInput("--block: " + e.getMessage());
            }
        }
        if (seq != null) {  // a one-line mask is at --seq already: the same sizes, checked again
            MaskSpec.checkSeq(seq);
            config = config.withSeq(seq);
            List<MaskChecks.Problem> problems = config.problems();
            if (!problems.isEmpty()) {
                String where = spec + " with --seq " + seq + ": ";
                throw new BadInput(problems.stream().map(p -> where + p).collect(Collectors.joining("\n")));
            }
        }
        return config;
    }
}
