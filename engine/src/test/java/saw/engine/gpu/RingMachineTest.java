package saw.engine.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import saw.engine.gpu.RingProgram.Compute;
import saw.engine.gpu.RingProgram.Exchange;

/** The executor's calls, in order, on a fake machine (fake transport, fake kernels) that records them. */
class RingMachineTest {
    private static final class Recorder implements RingMachine {
        final List<String> events = new ArrayList<>();

        @Override
        public void commWaitsCompute(int d) {
            events.add("comm " + d + " waits compute");
        }

        @Override
        public void exchange(Exchange e) {
            StringBuilder b = new StringBuilder("exchange #" + e.id() + " " + e.payload() + " step " + e.step() + ":");
            e.transfers().forEach(t -> b.append(' ').append(t.from()).append("->").append(t.to()).append(" slot ")
                    .append(t.fromSlot()).append("->").append(t.toSlot()));
            events.add(b.toString());
        }

        @Override
        public void markArrival(int d, int exchangeId) {
            events.add("arrival " + d + " #" + exchangeId);
        }

        @Override
        public void computeWaitsArrival(int d, int exchangeId) {
            events.add("compute " + d + " waits #" + exchangeId);
        }

        @Override
        public void kernel(Compute c) {
            events.add("kernel " + c.device() + "/" + c.step() + " K/V slot " + c.kvSlot());
        }

        @Override
        public void accumulate(Compute c) {
            events.add("add " + c.device() + "/" + c.step() + " into slot " + c.accSlot());
        }
    }

    @Test
    void forwardSendsTheNextShardBeforeThisStepsKernelsAndWaitsForItAfter() {
        Recorder r = new Recorder();
        RingMachine.play(RingProgram.of(new boolean[][] {{true, true}, {true, true}}, false), r);
        assertEquals(List.of(
                "comm 0 waits compute", "comm 1 waits compute",
                "exchange #0 KV step 1: 1->0 slot 0->1 0->1 slot 0->1",
                "arrival 0 #0", "arrival 1 #0",
                "kernel 0/0 K/V slot 0", "kernel 1/0 K/V slot 0",
                "compute 0 waits #0", "kernel 0/1 K/V slot 1",
                "compute 1 waits #0", "kernel 1/1 K/V slot 1"), r.events);
    }

    @Test
    void backwardSkipsEmptyStepsOnBothSidesAndSendsFinishedGradientsHome() {
        // contiguous causal on two devices: device 0 attends only its own shard, device 1 both
        Recorder r = new Recorder();
        RingMachine.play(RingProgram.of(new boolean[][] {{true, false}, {true, true}}, true), r);
        assertEquals(List.of(
                "comm 0 waits compute", "comm 1 waits compute",
                "exchange #0 KV step 1: 0->1 slot 0->1",
                "arrival 0 #0", "arrival 1 #0",
                "kernel 0/0 K/V slot 0", "add 0/0 into slot 0",
                "kernel 1/0 K/V slot 0", "add 1/0 into slot 2",
                "comm 0 waits compute", "comm 1 waits compute",
                "exchange #3 DKV step 0: 0->1 slot 0->1",
                "arrival 0 #3", "arrival 1 #3",
                "compute 1 waits #0", "kernel 1/1 K/V slot 1",
                "compute 1 waits #3", "add 1/1 into slot 1",
                "comm 0 waits compute", "comm 1 waits compute",
                "exchange #5 DKV step 1: 1->0 slot 1->2",
                "arrival 0 #5", "arrival 1 #5"), r.events);
    }
}
