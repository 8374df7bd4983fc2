package saw.engine.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import saw.engine.attention.AttentionInputs;
import saw.engine.attention.AttentionOutputs;
import saw.engine.attention.AttentionOutputs.Output;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.gpu.RingShards;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.MaskChecks;
import saw.engine.mask.RandomMasks;
import saw.engine.mask.TileLayout;

/**
 * The multi-GPU ring's data path, run on the CPU kernel: inputs gathered per device, every non-empty (device, step)
 * run on the device's local tables against the shard it holds, partial outputs merged by log-sum-exp, the backward
 * from the merged O and LSE with dQ summed per device and dK/dV summed per shard, then scattered back. The result
 * must equal the fp64 reference on the whole mask, and skipped steps must be exactly those with no tile.
 */
class RingShardsCpuTest {
    @Test
    void theRingsGatheredStepsMergeToTheWholeAttentionOnRandomMasksAndSplits() {
        long master = Long.getLong("saw.test.seed", 0xC0DEL);
        int checked = 0;
        for (int c = 0; c < 60; c++) {
            long seed = master * 1_000_003L + c;
            SplittableRandom rnd = new SplittableRandom(seed);
            int seq = 64 + rnd.nextInt(400);
            Dims dims = new Dims(seq, seq, 1 + rnd.nextInt(2), 2);
            Mask mask = new RandomMasks(rnd, dims).mask(1);
            if (!MaskChecks.check(mask, dims).isEmpty()) {
                continue;
            }
            try {
                checkOne(rnd, dims, mask);
                checked++;
            } catch (AssertionError | RuntimeException e) {
                fail("case " + c + " failed; replay with -Dsaw.test.seed=" + master + " (case seed " + seed + "): "
                        + e.getMessage(), e);
            }
        }
        assertTrue(checked > 20, "only " + checked + " valid random masks");
    }

    private static void checkOne(SplittableRandom rnd, Dims dims, Mask mask) {
        int block = rnd.nextBoolean() ? 32 : 64;
        TileLayout layout = BoundMask.bind(mask, dims).compile(block, block);
        int chunks = layout.numQBlocks();
        int n = 1 + rnd.nextInt(Math.min(5, chunks));
        int[] owner = new int[chunks];
        for (int b = 0; b < chunks; b++) {
            owner[b] = b < n ? b : rnd.nextInt(n);
        }
        int[][] blocks = new int[n][];
        for (int d = 0; d < n; d++) {
            final int dev = d;
            blocks[d] = java.util.stream.IntStream.range(0, chunks).filter(b -> owner[b] == dev).toArray();
        }
        AttentionProblem p = AttentionProblem.of(dims.batch(), dims.heads(), 1, dims.seqQ(), dims.seqKv(), 32, DType.BF16);
        RingShards shards = RingShards.of(p, layout, blocks, blocks);
        AttentionInputs whole = AttentionInputs.random(p, rnd.nextLong(), true);
        List<AttentionInputs> local = shards.gather(whole);

        List<float[]> o = new ArrayList<>();
        List<float[]> lse = new ArrayList<>();
        for (int d = 0; d < n; d++) {
            AttentionProblem lp = shards.local(d);
            float[] accO = new float[(int) AttentionInputs.qSize(lp)];
            float[] accL = new float[lp.batch() * lp.heads() * lp.seqQ()];
            Arrays.fill(accL, Float.NEGATIVE_INFINITY);
            for (int s = 0; s < n; s++) {
                int from = Math.floorMod(d - s, n);
                assertEquals(shards.lists(d, s).visitedTiles() > 0, shards.works(d, s), "device " + d + " step " + s);
                if (!shards.works(d, s)) {
                    continue;
                }
                AttentionProblem sp = shards.problem(d, from);
                BlockSparseCpu k = new BlockSparseCpu(sp, shards.lists(d, s), null);
                float[] so = new float[accO.length];
                float[] sl = new float[accL.length];
                k.forward(arr(local.get(d).q()), arr(local.get(from).k()), arr(local.get(from).v()), so, sl);
                merge(accO, accL, so, sl, p.headDim());
            }
            o.add(accO);
            lse.add(accL);
        }
        List<float[]> dq = new ArrayList<>();
        List<float[]> dk = new ArrayList<>();
        List<float[]> dv = new ArrayList<>();
        for (int d = 0; d < n; d++) {
            dq.add(new float[o.get(d).length]);
            dk.add(new float[(int) AttentionInputs.kvSize(shards.local(d))]);
            dv.add(new float[dk.get(d).length]);
        }
        for (int d = 0; d < n; d++) {
            for (int s = 0; s < n; s++) {
                if (!shards.works(d, s)) {
                    continue;
                }
                int from = Math.floorMod(d - s, n);
                BlockSparseCpu k = new BlockSparseCpu(shards.problem(d, from), shards.lists(d, s), null);
                float[] sq = new float[dq.get(d).length];
                float[] sk = new float[dk.get(from).length];
                float[] sv = new float[sk.length];
                k.backward(arr(local.get(d).q()), arr(local.get(from).k()), arr(local.get(from).v()), arr(local.get(d).dO()),
                        o.get(d), lse.get(d), sq, sk, sv, null);
                add(dq.get(d), sq);
                add(dk.get(from), sk);
                add(dv.get(from), sv);
            }
        }
        List<AttentionOutputs> parts = new ArrayList<>();
        for (int d = 0; d < n; d++) {
            parts.add(AttentionOutputs.withGradients(o.get(d), lse.get(d), dq.get(d), dk.get(d), dv.get(d)));
        }
        AttentionOutputs ring = shards.scatter(parts);
        AttentionOutputs ref = ReferenceAttention.compute(whole, BoundMask.bind(mask, dims), true);
        for (Output out : Output.values()) {
            close(out.label(), ref.get(out), ring.get(out));
        }
    }

    private static void merge(float[] accO, float[] accL, float[] so, float[] sl, int dh) {
        for (int r = 0; r < accL.length; r++) {
            double m = Math.max(accL[r], sl[r]);
            if (m == Double.NEGATIVE_INFINITY) {
                continue;
            }
            double wa = Math.exp(accL[r] - m);
            double ws = Math.exp(sl[r] - m);
            for (int x = r * dh; x < (r + 1) * dh; x++) {
                accO[x] = (float) ((accO[x] * wa + so[x] * ws) / (wa + ws));
            }
            accL[r] = (float) (m + Math.log(wa + ws));
        }
    }

    private static void add(float[] acc, float[] x) {
        for (int i = 0; i < acc.length; i++) {
            acc[i] += x[i];
        }
    }

    private static float[] arr(FloatBuffer b) {
        float[] a = new float[b.remaining()];
        b.get(a);
        return a;
    }

    private static void close(String what, FloatBuffer ref, FloatBuffer got) {
        assertEquals(ref.remaining(), got.remaining(), what + " size");
        for (int i = 0; i < ref.remaining(); i++) {
            float r = ref.get(i);
            float g = got.get(i);
            if (r == Float.NEGATIVE_INFINITY || g == Float.NEGATIVE_INFINITY) {
                assertEquals(r, g, what + "[" + i + "]");
            } else if (Math.abs(r - g) > 2e-3 * (1 + Math.abs(r))) {
                fail(what + "[" + i + "]: ring " + g + ", reference " + r);
            }
        }
    }

    @Test
    void aSplitThatHoldsABlockTwiceOrNeverIsRefused() {
        TileLayout layout = BoundMask.bind(new Mask.Causal(0), new Dims(256, 256, 1, 2)).compile(64, 64);
        AttentionProblem p = AttentionProblem.of(1, 2, 2, 256, 256, 64, DType.BF16);
        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class,
                () -> RingShards.of(p, layout, new int[][] {{0, 1}, {1, 2, 3}}, new int[][] {{0, 1}, {2, 3}}));
        assertEquals("q-block 1 of device 1 is out of range 0..3 or held twice", twice.getMessage());
        IllegalArgumentException never = assertThrows(IllegalArgumentException.class,
                () -> RingShards.of(p, layout, new int[][] {{0, 1}, {2, 3}}, new int[][] {{0}, {2, 3}}));
        assertEquals("kv-block 1 is held by no device", never.getMessage());
    }
}
