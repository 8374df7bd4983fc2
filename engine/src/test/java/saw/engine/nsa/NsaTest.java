package saw.engine.nsa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import saw.engine.attention.AttentionInputs;
import saw.engine.attention.AttentionOutputs;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.OutputComparison;
import saw.engine.bench.Npy;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;

class NsaTest {
    private static final int[] BLOCKS = {32, 64, 128};

    @Test
    void cpuForwardAndBackwardMatchTheFp64ReferenceOnRandomSelections() {
        long master = Long.getLong("saw.test.seed", 0x5E1EC7L);
        try (NsaCpu cpu = new NsaCpu()) {
            for (int n = 0; n < 24; n++) {
                long seed = master * 1_000_003L + n;
                try {
                    SplittableRandom rnd = new SplittableRandom(seed);
                    int block = BLOCKS[rnd.nextInt(3)];
                    int seq = 1 + rnd.nextInt(4 * block);
                    int kvHeads = 1 + rnd.nextInt(2);
                    int group = new int[] {1, 2, 4, 16}[rnd.nextInt(4)];
                    int d = rnd.nextBoolean() ? 16 : 32;
                    int s = 1 + rnd.nextInt(5);
                    int batch = 1 + rnd.nextInt(2);
                    double cap = rnd.nextInt(3) == 0 ? 5.0 : 0;
                    NsaSelection sel = rnd.nextBoolean() ? NsaSelections.random(batch, seq, kvHeads, s, block, seed)
                            : NsaSelections.scored(batch, seq, kvHeads, s, block, 8, seed);
                    AttentionProblem p = new AttentionProblem(batch, kvHeads * group, kvHeads, seq, seq, d, DType.BF16,
                            1 / Math.sqrt(d), cap);
                    AttentionInputs in = AttentionInputs.random(p, seed, true);
                    AttentionOutputs ref = NsaReference.compute(in, sel, true);
                    AttentionOutputs got = cpu.forwardBackward(in, sel);
                    for (OutputComparison.Error e : OutputComparison.compare(got, ref)) {
                        assertTrue(e.passes(1e-4), e.toString());
                        assertEquals(e.compared(), ref.get(e.output()).remaining(), "every element compared");
                    }
                } catch (AssertionError | RuntimeException | BadSelection e) {
                    fail("case " + n + " failed; replay with -Dsaw.test.seed=" + master + " (case seed " + seed + "): " + e, e);
                }
            }
        }
    }

    @Test
    void referenceOfATokenWithTwoBlocksMatchesADirectSoftmax() throws BadSelection {
        // token 5 of 8, block 4: blocks 0 and 1 chosen, keys 0..5 attended
        int[] idx = new int[8 * 2];
        int[] cnt = new int[8];
        Arrays.fill(idx, -1);
        idx[5 * 2] = 0;
        idx[5 * 2 + 1] = 1;
        cnt[5] = 2;
        NsaSelection sel = NsaSelection.of(1, 8, 1, 2, 4, idx, cnt, true);
        AttentionProblem p = AttentionProblem.of(1, 1, 1, 8, 8, 2, DType.FP16);
        float[] q = new float[16];
        float[] k = new float[16];
        float[] v = new float[16];
        q[10] = 1;
        for (int j = 0; j < 8; j++) {
            k[2 * j] = j * 0.25f;
            v[2 * j] = j;
        }
        AttentionOutputs out = NsaReference.compute(AttentionInputs.of(p, q, k, v, null), sel, false);
        double num = 0;
        double den = 0;
        for (int j = 0; j <= 5; j++) {
            double e = Math.exp(j * 0.25 / Math.sqrt(2));
            num += e * j;
            den += e;
        }
        assertEquals(num / den, out.get(AttentionOutputs.Output.O).get(10), 1e-6);
        assertEquals(0f, out.get(AttentionOutputs.Output.O).get(0), "token 0 chose nothing");
        assertEquals(Float.NEGATIVE_INFINITY, out.get(AttentionOutputs.Output.LSE).get(0));
    }

    @Test
    void randomSelectionsAreCausalDistinctAndTakeTheTokensOwnBlock() throws BadSelection {
        for (long seed = 1; seed <= 5; seed++) {
            for (NsaSelection sel : List.of(NsaSelections.random(2, 300, 2, 6, 32, seed),
                    NsaSelections.scored(2, 300, 2, 6, 32, 8, seed))) {
                int[] buf = new int[6];
                for (int b = 0; b < 2; b++) {
                    for (int t = 0; t < 300; t++) {
                        for (int h = 0; h < 2; h++) {
                            int n = sel.blocks(b, t, h, buf);
                            assertEquals(Math.min(6, t / 32 + 1), n, "seed " + seed + " token " + t);
                            assertEquals(t / 32, buf[n - 1], "own block last (ascending), seed " + seed);
                            for (int s = 1; s < n; s++) {
                                assertTrue(buf[s - 1] < buf[s], "ascending and distinct, seed " + seed);
                            }
                        }
                    }
                }
            }
        }
    }

    @Test
    void validationNamesTheOffendingPosition() {
        int[] idx = {0, -1, 0, 1, 1, 1};
        int[] cnt = {1, 2, 2};
        BadSelection dup = assertThrows(BadSelection.class, () -> NsaSelection.of(1, 3, 1, 2, 2, idx, cnt, false));
        assertEquals("block_indices[0, 2, 0, 1] = 1 repeats a block the token chose already", dup.getMessage());
        int[] future = {0, -1, 0, 1, 0, -1};
        BadSelection causal = assertThrows(BadSelection.class,
                () -> NsaSelection.of(1, 3, 1, 2, 2, future, new int[] {1, 2, 1}, true));
        assertEquals("block_indices[0, 1, 0, 1] = 1 starts after token 1 (causal selection asked for)", causal.getMessage());
        BadSelection range = assertThrows(BadSelection.class,
                () -> NsaSelection.of(1, 3, 1, 2, 2, new int[] {0, 2, 0, 0, 0, 0}, new int[] {2, 1, 1}, false));
        assertTrue(range.getMessage().startsWith("block_indices[0, 0, 0, 1] = 2 is outside -1..1"), range.getMessage());
        BadSelection count = assertThrows(BadSelection.class,
                () -> NsaSelection.of(1, 3, 1, 2, 2, future, new int[] {3, 0, 0}, false));
        assertEquals("block_counts[0, 0, 0] = 3 is outside 0..2", count.getMessage());
    }

    @Test
    void npyFilesRoundTripAndBadOnesAreNamed(@TempDir Path dir) throws Exception {
        NsaSelection sel = NsaSelections.random(1, 100, 2, 3, 32, 7);
        Path idx = dir.resolve("idx.npy");
        Path cnt = dir.resolve("cnt.npy");
        Npy.writeInt32(idx, new int[] {1, 100, 2, 3}, sel.indices());
        Npy.writeInt32(cnt, new int[] {1, 100, 2}, sel.counts());
        NsaSelection back = NsaSelections.fromNpy(idx, cnt, 32, true);
        assertArrayEquals(sel.indices(), back.indices());
        assertArrayEquals(sel.counts(), back.counts());
        NsaSelection noCounts = NsaSelections.fromNpy(idx, null, 32, true);
        assertArrayEquals(sel.counts(), noCounts.counts());
        Npy.writeInt32(cnt, new int[] {1, 100}, new int[100]);
        BadSelection shape = assertThrows(BadSelection.class, () -> NsaSelections.fromNpy(idx, cnt, 32, true));
        assertTrue(shape.getMessage().startsWith("block_counts: "), shape.getMessage());
        Files.writeString(cnt, "not numpy");
        BadSelection magic = assertThrows(BadSelection.class, () -> NsaSelections.fromNpy(idx, cnt, 32, true));
        assertTrue(magic.getMessage().contains("is not a .npy file"), magic.getMessage());
    }

    @Test
    void causalMaskSelectsEveryBlockUpToTheTokensOwn() throws BadSelection {
        BoundMask mask = BoundMask.bind(new Mask.Causal(0), Dims.square(200));
        NsaSelection sel = NsaSelections.fromMask(mask.compile(64, 64), 2, 4);
        int[] buf = new int[sel.maxSelected()];
        for (int t = 0; t < 200; t++) {
            int n = sel.blocks(0, t, 1, buf);
            assertEquals(t / 64 + 1, n);
            for (int s = 0; s < n; s++) {
                assertEquals(s, buf[s]);
            }
        }
        assertEquals(mask.attendedPairs() * 2, sel.selectedPairs(), "causal inside blocks gives the causal mask back");
    }

    @Test
    void statsMatchACountOverTheTiles() throws BadSelection {
        NsaSelection sel = NsaSelections.scored(1, 512, 1, 4, 32, 8, 11);
        NsaStats st = NsaStats.of(sel, 64);
        assertEquals(8, st.tiles());
        long pairs = 0;
        double distinctSum = 0;
        int[] buf = new int[4];
        for (int t0 = 0; t0 < 512; t0 += 64) {
            java.util.Set<Integer> seen = new java.util.HashSet<>();
            for (int t = t0; t < t0 + 64; t++) {
                int n = sel.blocks(0, t, 0, buf);
                for (int s = 0; s < n; s++) {
                    seen.add(buf[s]);
                    for (int j = buf[s] * 32; j < buf[s] * 32 + 32; j++) {
                        pairs += j <= t ? 1 : 0;
                    }
                }
            }
            distinctSum += seen.size();
        }
        assertEquals(pairs, st.selectedPairs());
        assertEquals(pairs, sel.selectedPairs());
        assertEquals(distinctSum / 8, st.meanDistinctBlocks(), 1e-12);
        assertTrue(st.meanSharing() >= 1, "each distinct block is chosen by at least one token");
    }

    @Test
    void reverseIndexListsEachChoiceOnceAscending() throws BadSelection {
        NsaSelection sel = NsaSelections.random(2, 150, 3, 3, 32, 3);
        ChosenBy rev = ChosenBy.of(sel);
        int nb = sel.numKvBlocks();
        int[] buf = new int[3];
        long choices = 0;
        for (int b = 0; b < 2; b++) {
            for (int t = 0; t < 150; t++) {
                for (int h = 0; h < 3; h++) {
                    int n = sel.blocks(b, t, h, buf);
                    choices += n;
                    for (int s = 0; s < n; s++) {
                        int e = (b * 3 + h) * nb + buf[s];
                        int[] toks = Arrays.copyOfRange(rev.tokens(), rev.ptr()[e], rev.ptr()[e + 1]);
                        assertTrue(Arrays.binarySearch(toks, t) >= 0, "token " + t + " listed under block " + buf[s]);
                    }
                }
            }
        }
        assertEquals(choices, rev.tokens().length);
    }
}
