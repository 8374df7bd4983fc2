package saw.engine.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import saw.engine.gpu.RingProgram.Compute;
import saw.engine.gpu.RingProgram.Exchange;
import saw.engine.gpu.RingProgram.Payload;
import saw.engine.gpu.RingProgram.Transfer;

/**
 * Plays ring programs on a simulated machine: per device a compute stream and a communication stream, in-order,
 * with the waits {@link RingProgram} prescribes; a transfer starts when both its sender's and its receiver's streams
 * reach it (NCCL's send/recv rendezvous). The simulation tracks what every slot holds and when it is read and
 * written, so it catches a kernel reading the wrong shard, a slot overwritten while something still reads it, a
 * dK/dV contribution lost or counted twice, and communication that does not overlap compute.
 */
class RingProgramTest {
    @Test
    void everyComputeReadsItsShardAndEveryOwnerGetsAllItsContributionsOnRandomWork() {
        long master = Long.getLong("saw.test.seed", 0x5151L);
        for (int c = 0; c < 400; c++) {
            long seed = master * 1_000_003L + c;
            SplittableRandom rnd = new SplittableRandom(seed);
            int n = 1 + rnd.nextInt(9);
            double density = rnd.nextDouble();
            boolean[][] work = new boolean[n][n];
            for (int d = 0; d < n; d++) {
                for (int s = 0; s < n; s++) {
                    work[d][s] = rnd.nextDouble() < density;
                }
            }
            for (boolean backward : new boolean[] {false, true}) {
                try {
                    Machine m = new Machine(work, backward, rnd.split());
                    m.play(RingProgram.of(work, backward));
                } catch (AssertionError e) {
                    fail("case " + c + " (n=" + n + ", backward=" + backward + ") failed; replay with -Dsaw.test.seed="
                            + master + " (case seed " + seed + "): " + e.getMessage(), e);
                }
            }
        }
    }

    @Test
    void nextStepsKvTravelsWhileThisStepComputes() {
        int n = 4;
        boolean[][] all = new boolean[n][n];
        for (boolean[] row : all) {
            java.util.Arrays.fill(row, true);
        }
        for (boolean backward : new boolean[] {false, true}) {
            Machine m = new Machine(all, backward, null);
            m.computeMs = 10;
            m.accumulateMs = 1;
            m.kvMs = 3;
            m.dkvMs = 2;
            m.play(RingProgram.of(all, backward));
            for (int d = 0; d < n; d++) {
                for (int s = 1; s < n; s++) {
                    double[] kv = m.kvArrivalWindow[d][s];
                    double[] prev = m.kernelWindow[d][s - 1];
                    assertTrue(kv[0] < prev[1] && kv[1] <= prev[1], "device " + d + ": step " + s + "'s K/V moved during "
                            + java.util.Arrays.toString(kv) + ", not inside step " + (s - 1) + "'s kernel "
                            + java.util.Arrays.toString(prev));
                }
            }
            // with every transfer hidden, the ring takes N kernels (and adds) plus the first hand-over of nothing
            double perStep = m.computeMs + (backward ? m.accumulateMs : 0);
            assertEquals(n * perStep + (backward ? m.dkvMs : 0), m.makespan(), 1e-9, "backward=" + backward);
        }
    }

    @Test
    void emptyStepsLaunchNothingAndShardsStopWhereTheLastDeviceNeedsThem() {
        // contiguous causal: device d attends shards 0..d, so shard o goes no further than device N-1 and never wraps
        int n = 6;
        boolean[][] causal = new boolean[n][n];
        for (int d = 0; d < n; d++) {
            for (int s = 0; s < n; s++) {
                causal[d][s] = Math.floorMod(d - s, n) <= d;
            }
        }
        RingProgram p = RingProgram.of(causal, true);
        assertEquals(n * (n - 1) / 2, p.transfers(Payload.KV));
        long computes = p.ops().stream().filter(o -> o instanceof Compute).count();
        assertEquals(n * (n + 1) / 2, computes);
        for (RingProgram.Op op : p.ops()) {
            if (op instanceof Compute c) {
                assertTrue(causal[c.device()][c.step()], "launched an empty step " + c);
            } else if (op instanceof Exchange e) {
                for (Transfer t : e.transfers()) {
                    assertFalse(t.payload() == Payload.KV && t.from() == n - 1, "shard sent past the last device: " + t);
                }
            }
        }
        new Machine(causal, true, null).play(p);
    }

    @Test
    void oneDeviceNeedsNoTransfers() {
        RingProgram p = RingProgram.of(new boolean[][] {{true}}, true);
        assertEquals(List.of(new Compute(0, 0, 0, -1, RingProgram.HOME, -1)), p.ops());
    }

    @Test
    void aWorkTableThatIsNotSquareIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RingProgram.of(new boolean[][] {{true, true}, {true}}, false));
        assertEquals("device 1 has 1 steps; a ring of 2 devices has 2", e.getMessage());
    }

    /** The simulated machine. Times are in arbitrary units; durations random unless set. */
    private static final class Machine {
        final int n;
        final boolean backward;
        final boolean[][] work;
        final SplittableRandom rnd;
        double computeMs = -1;
        double accumulateMs = -1;
        double kvMs = -1;
        double dkvMs = -1;

        final double[] computeFree;
        final double[] commFree;
        final double[] lastComputeEnd;
        /** What each K/V slot holds (a shard id) and each accumulator slot (the (device, step) contributions). */
        final int[][] kvHolds;
        final List<List<Set<Long>>> accHolds = new ArrayList<>();
        /** Per device, slot kind (0 K/V, 1 accumulator) and slot: end of the last write, latest end of any read. */
        final double[][][] lastWriteEnd;
        final double[][][] lastReadEnd;
        final double[][][] kvArrivalWindow;
        final double[][][] kernelWindow;
        double end;

        Machine(boolean[][] work, boolean backward, SplittableRandom rnd) {
            this.n = work.length;
            this.work = work;
            this.backward = backward;
            this.rnd = rnd == null ? new SplittableRandom(1) : rnd;
            computeFree = new double[n];
            commFree = new double[n];
            lastComputeEnd = new double[n];
            kvHolds = new int[n][3];
            lastWriteEnd = new double[n][2][3];
            lastReadEnd = new double[n][2][3];
            kvArrivalWindow = new double[n][n][];
            kernelWindow = new double[n][n][];
            for (int d = 0; d < n; d++) {
                kvHolds[d] = new int[] {d, -1, -1};
                List<Set<Long>> slots = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    slots.add(i == 1 ? null : new HashSet<>());
                }
                accHolds.add(slots);
            }
        }

        private double dur(double fixed) {
            return fixed >= 0 ? fixed : 0.5 + rnd.nextDouble() * 10;
        }

        void play(RingProgram p) {
            for (RingProgram.Op op : p.ops()) {
                if (op instanceof Exchange e) {
                    exchange(e);
                } else {
                    compute((Compute) op);
                }
            }
            for (int d = 0; d < n; d++) {
                for (int s = 0; s < n; s++) {
                    assertEquals(work[d][s], kernelWindow[d][s] != null, "device " + d + " step " + s + " ran iff it has work");
                }
            }
            if (backward) {
                for (int o = 0; o < n; o++) {
                    Set<Long> expected = new HashSet<>();
                    for (int t = 0; t < n; t++) {
                        if (work[(o + t) % n][t]) {
                            expected.add(key((o + t) % n, t));
                        }
                    }
                    Set<Long> home = accHolds.get(o).get(RingProgram.HOME);
                    assertEquals(expected, home, "the dK/dV contributions that reached shard " + o + "'s owner");
                    int slot = RingProgram.HOME;
                    assertTrue(lastWriteEnd[o][1][slot] <= makespan());
                }
            }
        }

        double makespan() {
            double m = 0;
            for (int d = 0; d < n; d++) {
                m = Math.max(m, Math.max(computeFree[d], commFree[d]));
            }
            return m;
        }

        private void exchange(Exchange e) {
            double[] ready = new double[n];
            for (int d = 0; d < n; d++) {
                if (e.involves(d)) {
                    ready[d] = Math.max(commFree[d], lastComputeEnd[d]);
                }
            }
            double[] done = ready.clone();
            int kind = e.payload() == Payload.KV ? 0 : 1;
            List<Runnable> lands = new ArrayList<>();
            Set<String> seen = new HashSet<>();
            for (Transfer t : e.transfers()) {
                assertTrue(seen.add(t.to() + "/" + t.toSlot()), "two transfers into one slot in one exchange: " + t);
                double start = Math.max(ready[t.from()], ready[t.to()]);
                double stop = start + dur(e.payload() == Payload.KV ? kvMs : dkvMs);
                // the sender's slot must hold finished data, the receiver's slot must be free of readers
                assertTrue(lastWriteEnd[t.from()][kind][t.fromSlot()] <= start, "sent " + t + " before its data was there");
                assertTrue(lastReadEnd[t.to()][kind][t.toSlot()] <= start, "overwrote " + t + " while it was still read");
                lastReadEnd[t.from()][kind][t.fromSlot()] = Math.max(lastReadEnd[t.from()][kind][t.fromSlot()], stop);
                done[t.from()] = Math.max(done[t.from()], stop);
                done[t.to()] = Math.max(done[t.to()], stop);
                if (kind == 0) {
                    int shard = kvHolds[t.from()][t.fromSlot()];
                    assertTrue(shard >= 0, "sent an empty K/V slot: " + t);
                    lands.add(() -> kvHolds[t.to()][t.toSlot()] = shard);
                    kvArrivalWindow[t.to()][e.step()] = new double[] {start, stop};
                } else {
                    Set<Long> acc = accHolds.get(t.from()).get(t.fromSlot());
                    assertTrue(acc != null, "sent an accumulator that holds nothing: " + t);
                    Set<Long> copy = new HashSet<>(acc);
                    lands.add(() -> accHolds.get(t.to()).set(t.toSlot(), copy));
                }
                lastWriteEnd[t.to()][kind][t.toSlot()] = stop;
            }
            lands.forEach(Runnable::run);
            for (int d = 0; d < n; d++) {
                if (e.involves(d)) {
                    commFree[d] = done[d];
                }
            }
            arrivalOf.put(e.id(), done);
        }

        final java.util.Map<Integer, double[]> arrivalOf = new java.util.HashMap<>();

        private void compute(Compute c) {
            int d = c.device();
            int s = c.step();
            assertEquals(Math.floorMod(d - s, n), kvHolds[d][c.kvSlot()], "device " + d + " step " + s + " read the wrong shard");
            double start = computeFree[d];
            if (c.kvArrival() >= 0) {
                start = Math.max(start, arrivalOf.get(c.kvArrival())[d]);
            } else {
                assertEquals(0, s, "only step 0 may skip waiting for K/V");
            }
            assertTrue(lastWriteEnd[d][0][c.kvSlot()] <= start, "kernel started before its K/V arrived");
            double stop = start + dur(computeMs);
            kernelWindow[d][s] = new double[] {start, stop};
            lastReadEnd[d][0][c.kvSlot()] = Math.max(lastReadEnd[d][0][c.kvSlot()], stop);
            if (backward) {
                double a = stop;
                if (c.accArrival() >= 0) {
                    a = Math.max(a, arrivalOf.get(c.accArrival())[d]);
                } else {
                    assertEquals(0, s, "only step 0 may start from a fresh accumulator");
                }
                assertTrue(lastWriteEnd[d][1][c.accSlot()] <= a, "added to an accumulator before it arrived");
                assertTrue(lastReadEnd[d][1][c.accSlot()] <= a, "added to an accumulator still being sent");
                Set<Long> acc = accHolds.get(d).get(c.accSlot());
                assertTrue(acc != null, "no accumulator at device " + d + " step " + s);
                assertTrue(acc.add(key(d, s)), "contribution counted twice");
                stop = a + dur(accumulateMs);
                lastWriteEnd[d][1][c.accSlot()] = stop;
            }
            computeFree[d] = stop;
            lastComputeEnd[d] = stop;
        }

        private static long key(int d, int s) {
            return ((long) d << 32) | s;
        }
    }
}
