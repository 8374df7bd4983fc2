package saw.engine.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import saw.engine.mask.BoundMask;
import saw.engine.mask.BruteForce;
import saw.engine.mask.Dims;
import saw.engine.mask.IntArray;
import saw.engine.mask.Mask;
import saw.engine.mask.MaskChecks;
import saw.engine.mask.RandomMasks;
import saw.engine.mask.TileClass;
import saw.engine.mask.TileLayout;

class RingPlannerTest {
    private static final int[] BLOCKS = {16, 32, 64};

    @Test
    void stepPairsAndTilesMatchBruteForceOnRandomPerHeadAndPerBatchMasks() {
        long master = Long.getLong("saw.test.seed", 0x5EEDL);
        int checked = 0;
        for (int n = 0; n < 120; n++) {
            long seed = master * 1_000_003L + n;
            try {
                checked += checkOne(seed) ? 1 : 0;
            } catch (AssertionError | RuntimeException e) {
                fail("case " + n + " failed; replay with seed " + seed + ": " + e.getMessage(), e);
            }
        }
        assertTrue(checked > 60, "only " + checked + " random masks were valid");
    }

    private static boolean checkOne(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int seq = 40 + rnd.nextInt(300);
        Dims dims = new Dims(seq, seq, 1 + rnd.nextInt(2), 1 + rnd.nextInt(3));
        RandomMasks masks = new RandomMasks(rnd, dims);
        Mask mask = rnd.nextInt(3) == 0 ? new Mask.PerHead(List.of(masks.mask(1), masks.mask(1))) : masks.mask(2);
        if (!MaskChecks.check(mask, dims).isEmpty()) {
            return false;
        }
        int bq = BLOCKS[rnd.nextInt(BLOCKS.length)];
        int bkv = BLOCKS[rnd.nextInt(BLOCKS.length)];
        TileLayout layout = BoundMask.bind(mask, dims).compile(bq, bkv);
        int chunk = Math.max(bq, bkv);
        int chunks = (seq + chunk - 1) / chunk;
        if (chunks < 2) {
            return false;
        }
        int devices = 2 + rnd.nextInt(Math.min(chunks, 9) - 1);
        RingScheme scheme = RingScheme.values()[rnd.nextInt(RingScheme.values().length)];
        if (scheme == RingScheme.ZIGZAG && chunks < 2 * devices) {
            scheme = RingScheme.STRIPED;
        }
        RingPlan plan = RingPlanner.plan(layout, devices, scheme, RingModel.defaults(dims.heads()));

        long[][] pairs = new long[devices][devices];
        for (int b = 0; b < dims.batch(); b++) {
            for (int h = 0; h < dims.heads(); h++) {
                for (int i = 0; i < seq; i++) {
                    int d = plan.chunkOwner(i / chunk);
                    for (int j = 0; j < seq; j++) {
                        if (BruteForce.attends(mask, dims, b, h, i, j)) {
                            pairs[d][Math.floorMod(d - plan.chunkOwner(j / chunk), devices)]++;
                        }
                    }
                }
            }
        }
        long total = 0;
        for (int d = 0; d < devices; d++) {
            for (int s = 0; s < devices; s++) {
                assertEquals(pairs[d][s], plan.step(d, s).pairs(), scheme.label() + " N=" + devices + " device " + d + " step " + s);
                total += pairs[d][s];
            }
        }
        assertEquals(layout.mask().attendedPairs(), plan.totalPairs());
        assertEquals(total, plan.totalPairs());

        int d = rnd.nextInt(devices);
        int s = rnd.nextInt(devices);
        checkSubLayout(plan, layout, d, s);
        return true;
    }

    /** The sub-layout holds exactly the layout's tiles of the device's q-blocks against the held shard, class by class. */
    private static void checkSubLayout(RingPlan plan, TileLayout layout, int device, int step) {
        RingStep st = plan.step(device, step);
        TileLayout sub = plan.subLayout(device, step);
        Dims dims = layout.dims();
        long full = 0;
        long partial = 0;
        for (int b = 0; b < dims.batch(); b++) {
            for (int h = 0; h < dims.heads(); h++) {
                for (int qb = 0; qb < layout.numQBlocks(); qb++) {
                    for (int kb = 0; kb < layout.numKvBlocks(); kb++) {
                        boolean mine = plan.qBlockOwner(qb) == device && plan.kvBlockOwner(kb) == st.kvShard();
                        TileClass want = mine ? layout.grid(b, h).classAt(qb, kb) : TileClass.EMPTY;
                        assertEquals(want, sub.grid(b, h).classAt(qb, kb), "tile " + qb + "," + kb + " of b" + b + " h" + h);
                        full += want == TileClass.FULL ? 1 : 0;
                        partial += want == TileClass.PARTIAL ? 1 : 0;
                    }
                }
            }
        }
        assertEquals(full, st.fullTiles(), "FULL tiles");
        assertEquals(partial, st.partialTiles(), "PARTIAL tiles");
        assertEquals(st.pairs(), sub.mask().attendedPairs(), "sub-layout pairs");
    }

    @Test
    void everyTileBelongsToExactlyOneDeviceStepFromTwoToAThousandAndTwentyFourDevices() {
        Dims dims = new Dims(1024 * 16 + 5, 1024 * 16 + 5, 2, 3);
        Mask mask = new Mask.PerHead(List.of(new Mask.Causal(0),
                Mask.And.of(new Mask.Causal(0), Mask.Documents.ofLengths(3000, 7000, 4000, 2389)), new Mask.SlidingWindow(700, 0)));
        TileLayout layout = BoundMask.bind(mask, dims).compile(16, 16);
        long[] mult = layout.mask().variantMultiplicity();
        for (int devices : new int[] {2, 3, 7, 64, 1000, 1024}) {
            for (RingScheme scheme : RingScheme.values()) {
                if (scheme == RingScheme.ZIGZAG && devices * 2 > layout.numQBlocks()) {
                    assertThrows(IllegalArgumentException.class,
                            () -> RingPlanner.plan(layout, devices, scheme, RingModel.defaults(dims.heads())));
                    continue;
                }
                RingPlan plan = RingPlanner.plan(layout, devices, scheme, RingModel.defaults(dims.heads()));
                long[][] tiles = new long[devices][devices];
                long[][] pairs = new long[devices][devices];
                for (int v = 0; v < layout.variantCount(); v++) {
                    for (int qb = 0; qb < layout.numQBlocks(); qb++) {
                        int d = plan.qBlockOwner(qb);
                        for (int kb = 0; kb < layout.numKvBlocks(); kb++) {
                            if (layout.grid(v).classAt(qb, kb) != TileClass.EMPTY) {
                                int s = Math.floorMod(d - plan.kvBlockOwner(kb), devices);
                                tiles[d][s] += mult[v];
                                pairs[d][s] += mult[v] * layout.attendingInTile(v, qb, kb);
                            }
                        }
                    }
                }
                String what = scheme.label() + " N=" + devices;
                for (int d = 0; d < devices; d++) {
                    for (int s = 0; s < devices; s++) {
                        RingStep st = plan.step(d, s);
                        assertEquals(tiles[d][s], st.fullTiles() + st.partialTiles(), what);
                        assertEquals(pairs[d][s], st.pairs(), what);
                        assertEquals(Math.floorMod(d - s, devices), st.kvShard(), what);
                    }
                }
                assertEquals(layout.mask().attendedPairs(), plan.totalPairs(), what);
                long tokens = 0;
                for (int d = 0; d < devices; d++) {
                    tokens += plan.tokens(d);
                    assertTrue(plan.qBlocks(d).length > 0, what + ": device " + d + " holds nothing");
                }
                assertEquals(dims.seqQ(), tokens, what);
            }
        }
    }

    @Test
    void balancedMeetsItsTargetsOnCausalAndSixtyFourPackedDocuments() {
        int seq = 131072;
        Dims dims = new Dims(seq, seq, 1, 16);
        TileLayout causal = BoundMask.bind(new Mask.Causal(0), dims).compile(128, 128);
        TileLayout docs = BoundMask.bind(Mask.And.of(new Mask.Causal(0), packedDocuments(seq, 64, 42)), dims).compile(128, 128);
        for (int devices : new int[] {8, 64}) {
            RingModel model = RingModel.defaults(16);
            double causalImbalance = RingPlanner.plan(causal, devices, RingScheme.BALANCED, model).imbalance();
            double docsImbalance = RingPlanner.plan(docs, devices, RingScheme.BALANCED, model).imbalance();
            assertTrue(causalImbalance <= 0.02, "causal N=" + devices + ": " + causalImbalance);
            assertTrue(docsImbalance <= 0.05, "64 documents N=" + devices + ": " + docsImbalance);
            double contiguous = RingPlanner.plan(causal, devices, RingScheme.CONTIGUOUS, model).imbalance();
            assertTrue(contiguous > causalImbalance, "contiguous causal " + contiguous + " against balanced " + causalImbalance);
        }
    }

    /** {@code count} documents of seeded random lengths filling {@code seq} tokens. */
    static Mask.Documents packedDocuments(int seq, int count, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        double[] w = new double[count];
        double sum = 0;
        for (int i = 0; i < count; i++) {
            w[i] = 0.2 + rnd.nextDouble() * 1.8;
            sum += w[i];
        }
        int[] lengths = new int[count];
        int used = 0;
        for (int i = 0; i < count - 1; i++) {
            lengths[i] = Math.max(1, (int) (seq * w[i] / sum));
            used += lengths[i];
        }
        lengths[count - 1] = seq - used;
        return Mask.Documents.ofLengths(lengths);
    }

    @Test
    void badRingsAreRejectedWithASentence() {
        TileLayout layout = BoundMask.bind(new Mask.Causal(0), new Dims(1024, 1024, 1, 1)).compile(64, 64);
        RingModel model = RingModel.defaults(1);
        String one = assertThrows(IllegalArgumentException.class,
                () -> RingPlanner.plan(layout, 1, RingScheme.ZIGZAG, model)).getMessage();
        assertEquals("devices must be in 2..1024, got 1", one);
        String many = assertThrows(IllegalArgumentException.class,
                () -> RingPlanner.plan(layout, 32, RingScheme.ZIGZAG, model)).getMessage();
        assertEquals("32 devices need at least 32 chunks of 64 tokens; 1024 tokens make 16", many);
        TileLayout cross = BoundMask.bind(new Mask.Full(), new Dims(1024, 512, 1, 1)).compile(64, 64);
        assertThrows(IllegalArgumentException.class, () -> RingPlanner.plan(cross, 2, RingScheme.STRIPED, model));
        assertEquals("scheme 'ring' is not one of contiguous, zigzag, striped, balanced",
                assertThrows(IllegalArgumentException.class, () -> RingScheme.parse("ring")).getMessage());
    }

    @Test
    void zigzagGivesDeviceIThePiecesIAndTwoNMinusOneMinusI() {
        TileLayout layout = BoundMask.bind(new Mask.Causal(0), new Dims(16 * 64, 16 * 64, 1, 1)).compile(64, 64);
        RingPlan plan = RingPlanner.plan(layout, 4, RingScheme.ZIGZAG, RingModel.defaults(1));
        List<Integer> owners = new ArrayList<>();
        for (int c = 0; c < plan.chunkCount(); c++) {
            owners.add(plan.chunkOwner(c));
        }
        assertEquals(List.of(0, 0, 1, 1, 2, 2, 3, 3, 3, 3, 2, 2, 1, 1, 0, 0), owners);
        assertEquals(IntArray.of(0, 1, 14, 15), IntArray.of(plan.qBlocks(0)));
    }
}
