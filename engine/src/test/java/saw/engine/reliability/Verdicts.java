package saw.engine.reliability;

import java.io.InputStream;
import saw.engine.config.ConfigException;
import saw.engine.config.ConfigProblem;
import saw.engine.config.ConfigReader;
import saw.engine.config.ConfigWriter;
import saw.engine.config.MaskConfig;
import saw.engine.guard.SizeGuard;
import saw.engine.mask.BoundMask;
import saw.engine.mask.TileLayout;

/**
 * What loading one untrusted document comes to, checked: either a config that writes back to itself and binds and
 * compiles (at its size when that is small, else at 4096 tokens when the mask allows it), or a ConfigException in
 * which every problem has a place and a sentence. Anything else (another exception, an error, a compile that
 * breaks the size guard's bound) is a failure, described.
 */
final class Verdicts {
    /** Configs whose compile estimate is at most this, and whose tiles classified one by one are at most ... */
    static final long SMALL_COMPILE_BYTES = 64L << 20;
    /** ... this many, are compiled at their own size. */
    static final long SMALL_COMPILE_TILES = 1L << 22;
    static final int SMALL_SEQ = 4096;

    enum Kind { REJECTED, COMPILED, COMPILED_SMALLER, LOADED_TOO_LARGE, FAILED }

    /** The outcome, and the first problem (rejected), the config's name (loaded) or what went wrong (failed). */
    record Verdict(Kind kind, String detail) {}

    private Verdicts() {}

    static Verdict judge(String source, InputStream in) {
        MaskConfig config;
        try {
            config = ConfigReader.read(source, in);
        } catch (ConfigException e) {
            String bad = badProblem(e);
            return bad != null ? new Verdict(Kind.FAILED, bad) : new Verdict(Kind.REJECTED, e.getMessage().lines().findFirst().orElse(""));
        } catch (Throwable t) { // an OutOfMemoryError or StackOverflowError too: the fuzz test reports them
            return new Verdict(Kind.FAILED, "loading threw " + t);
        }
        try {
            MaskConfig again = ConfigReader.parse("written again", ConfigWriter.toJson(config));
            if (!again.equals(config)) {
                return new Verdict(Kind.FAILED, "writing and reading the config changed it: " + config + " became " + again);
            }
            if (small(config)) {
                String broken = compileWithinBound(config);
                return broken != null ? new Verdict(Kind.FAILED, broken) : new Verdict(Kind.COMPILED, config.name());
            }
            MaskConfig small = config.withSeq(Math.min(SMALL_SEQ, Math.max(config.seqLenQ(), config.seqLenKv())));
            if (!small.problems().isEmpty() || !small(small)) {
                return new Verdict(Kind.LOADED_TOO_LARGE, config.name());
            }
            String broken = compileWithinBound(small);
            return broken != null ? new Verdict(Kind.FAILED, broken) : new Verdict(Kind.COMPILED_SMALLER, config.name());
        } catch (Throwable t) {
            return new Verdict(Kind.FAILED, "the loaded config " + config.name() + " failed after loading: " + t);
        }
    }

    private static boolean small(MaskConfig c) {
        return SizeGuard.compileBytes(c.mask(), c.dims(), c.block().q(), c.block().kv()) <= SMALL_COMPILE_BYTES
                && SizeGuard.compileTiles(c.mask(), c.dims(), c.block().q(), c.block().kv()) <= SMALL_COMPILE_TILES;
    }

    /** Compiles; null when the layout's runs fit the size guard's estimate, else what broke. */
    private static String compileWithinBound(MaskConfig c) {
        long estimate = SizeGuard.compileBytes(c.mask(), c.dims(), c.block().q(), c.block().kv());
        TileLayout layout = BoundMask.bind(c.mask(), c.dims()).compile(c.block().q(), c.block().kv());
        long gridBytes = 0;
        for (int v = 0; v < layout.variantCount(); v++) {
            gridBytes += 5L * layout.grid(v).totalRuns() + 4L * (layout.numQBlocks() + 1);
        }
        return gridBytes <= estimate ? null : "the compiled grids of " + c.name() + " hold " + gridBytes
                + " bytes, more than the size guard's estimate of " + estimate;
    }

    /** Null when every problem has a place and a plain sentence, else the first that does not. */
    static String badProblem(ConfigException e) {
        for (ConfigProblem p : e.problems()) {
            String m = p.message();
            if (m == null || m.isBlank()) {
                return "a problem without a message: " + p;
            }
            if (p.line() <= 0 && !m.startsWith("stopped after")) {
                return "a problem without a line: " + p.format(e.source());
            }
            if (!p.path().isEmpty() && !p.path().startsWith("/")) {
                return "a problem whose path is not a JSON pointer: " + p.format(e.source());
            }
            for (String internal : new String[] {"Exception", "com.fasterxml", "java.", "\tat ", "saw.engine"}) {
                if (m.contains(internal)) {
                    return "a problem whose message shows internals (" + internal + "): " + p.format(e.source());
                }
            }
        }
        return null;
    }
}
