package saw.bench;

import java.util.List;
import java.util.SplittableRandom;
import saw.engine.mask.IntArray;
import saw.engine.mask.Mask;

/** Masks the benchmarks share, so that two tables that name one mask measured the same one. */
final class BenchMasks {
    private BenchMasks() {}

    /** Causal within 64 packed documents of seeded random lengths (seed 64) that fill {@code seq} tokens. */
    static Mask causalDocuments(int seq) {
        int[] lengths = new int[64];
        SplittableRandom rnd = new SplittableRandom(64);
        int left = seq;
        for (int d = 0; d < 63; d++) {
            lengths[d] = seq / 128 + rnd.nextInt(seq / 64);
            left -= lengths[d];
        }
        lengths[63] = left;
        return new Mask.And(List.of(new Mask.Causal(0), new Mask.Documents(List.of(new Mask.Lengths(IntArray.of(lengths))))));
    }
}
