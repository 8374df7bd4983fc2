package saw.engine.tune;

import java.nio.file.Path;
import saw.engine.attention.KernelTiles;
import saw.engine.attention.Pass;

/** A separate JVM that stores {@code n} entries named after {@code writer}: one side of the two-writer test. */
public final class CacheWriterProcess {
    public static void main(String[] args) throws Exception {
        TuneCache cache = new TuneCache(Path.of(args[0]), w -> System.err.println(w));
        String writer = args[1];
        int n = Integer.parseInt(args[2]);
        for (int i = 0; i < n; i++) {
            TuneKey key = TuneCacheTest.key(writer + "-" + i, Pass.FWD);
            cache.put(key, new TuneChoice(new Candidate(new KernelTiles(128, 64), "mma"), 1 + i, 2 + i, 3 + i, "now"));
        }
    }
}
