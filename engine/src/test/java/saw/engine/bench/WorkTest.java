package saw.engine.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.KernelTiles;
import saw.engine.attention.Pass;
import saw.engine.mask.BoundMask;
import saw.engine.mask.BruteForce;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.RandomMasks;
import saw.engine.mask.TileClass;
import saw.engine.mask.TileLayout;

class WorkTest {
    @Test
    void flopsAndDensitiesMatchBruteForceOnRandomMasks() {
        long seed = new SplittableRandom().nextLong();
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int trial = 0; trial < 60; trial++) {
            Dims dims = RandomMasks.randomDims(rnd, 200);
            Mask mask = new RandomMasks(rnd, dims).mask(2);
            int bq = RandomMasks.randomBlock(rnd);
            int bkv = RandomMasks.randomBlock(rnd);
            String ctx = "seed " + seed + " trial " + trial + " " + dims + " " + mask + " " + bq + "x" + bkv;
            if (!saw.engine.mask.MaskChecks.check(mask, dims).isEmpty()) {
                continue;
            }
            TileLayout layout = BoundMask.bind(mask, dims).compile(bq, bkv);
            TileStats stats = TileStats.of(layout);
            long pairs = 0;
            long visited = 0;
            for (int b = 0; b < dims.batch(); b++) {
                for (int h = 0; h < dims.heads(); h++) {
                    boolean[][] dense = BruteForce.dense(mask, dims, b, h);
                    for (boolean[] row : dense) {
                        for (boolean a : row) {
                            pairs += a ? 1 : 0;
                        }
                    }
                    for (int q0 = 0; q0 < dims.seqQ(); q0 += bq) {
                        for (int k0 = 0; k0 < dims.seqKv(); k0 += bkv) {
                            TileClass c = BruteForce.tile(dense, q0, Math.min(dims.seqQ(), q0 + bq), k0, Math.min(dims.seqKv(), k0 + bkv));
                            visited += c == TileClass.EMPTY ? 0 : 1;
                        }
                    }
                }
            }
            assertEquals(pairs, stats.attendedPairs(), ctx);
            assertEquals(visited, stats.visited(), ctx);
            long allTiles = (long) dims.batch() * dims.heads() * layout.numQBlocks() * layout.numKvBlocks();
            assertEquals((double) visited / allTiles, stats.blockDensity(), 1e-12, ctx);
            assertEquals((double) pairs / ((long) dims.batch() * dims.heads() * dims.seqQ() * dims.seqKv()), stats.tokenDensity(), 1e-12, ctx);

            int d = 16 << rnd.nextInt(3);
            AttentionProblem p = AttentionProblem.of(dims.batch(), dims.heads(), 1, dims.seqQ(), dims.seqKv(), d, DType.BF16);
            Work fwd = Work.of(p, new KernelTiles(bq, bkv), Pass.FWD, stats);
            Work bwd = Work.of(p, new KernelTiles(bq, bkv), Pass.BWD, stats);
            assertEquals(4.0 * d * pairs, fwd.usefulFlops(), ctx);
            assertEquals(4.0 * d * bq * bkv * visited, fwd.computedFlops(), ctx);
            assertEquals(2.5 * fwd.usefulFlops(), bwd.usefulFlops(), ctx);
            assertEquals(2.5 * fwd.computedFlops(), bwd.computedFlops(), ctx);
        }
    }

    @Test
    void bytesFollowTheDocumentedStreamModel() {
        // B=2, H=4, Sq=Skv=256, D=64, 128x64 tiles, 10 visited tiles
        AttentionProblem p = AttentionProblem.of(2, 4, 2, 256, 256, 64, DType.BF16);
        KernelTiles t = new KernelTiles(128, 64);
        double nq = 2 * 4 * 256;
        double fwd = 2 * 2 * nq * 64 + 4 * nq + 10 * 2 * 2 * 64 * 64;
        assertEquals(fwd, Work.bytes(p, t, Pass.FWD, 10));
        double bwd = (2 * 2 * nq * 64 + 4 * nq) + 4 * 2 * nq * 64 + 10 * (2 * 2 * 128 * 64 + 8 * 128 + 4 * 128 * 64)
                + (4 + 2) * nq * 64;
        assertEquals(bwd, Work.bytes(p, t, Pass.BWD, 10));
    }

    @Test
    void throughputUnits() {
        assertEquals(1.0, Work.tflops(1e12, 1000));
        assertEquals(2.0, Work.gbPerSecond(2e9, 1000));
        assertEquals(500.0, Work.tflops(1e12, 2), 1e-9);
    }
}
