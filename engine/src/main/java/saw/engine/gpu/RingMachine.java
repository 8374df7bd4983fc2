package saw.engine.gpu;

import java.util.List;
import saw.engine.gpu.RingProgram.Compute;
import saw.engine.gpu.RingProgram.Exchange;

/**
 * What the ring executor asks of the machine it runs on, per ring device: a compute stream and a communication
 * stream, markers between them, a transport for exchanges and the step's kernels. The GPUs implement it with CUDA
 * streams and events ({@link RingGpus}); tests with a recorder.
 */
interface RingMachine {
    /** Device {@code d}'s communication stream waits for everything issued so far on its compute stream. */
    void commWaitsCompute(int d);

    /** Issues an exchange's transfers, each on the communication streams of its two devices, as one group. */
    void exchange(Exchange e);

    /** Marks, on {@code d}'s communication stream, that exchange {@code exchangeId} is done there. */
    void markArrival(int d, int exchangeId);

    /** Device {@code d}'s compute stream waits for the mark of exchange {@code exchangeId}. */
    void computeWaitsArrival(int d, int exchangeId);

    /** The step's attention kernel and, in the forward pass, its merge into the running output. */
    void kernel(Compute c);

    /** Backward: adds the step's dK/dV to the accumulator in slot {@code c.accSlot()}. */
    void accumulate(Compute c);

    /** Plays a program on a machine, in its order, with the waits {@link RingProgram} prescribes. */
    static void play(RingProgram program, RingMachine m) {
        for (RingProgram.Op op : program.ops()) {
            if (op instanceof Exchange e) {
                List<Integer> involved = involved(e, program.devices());
                involved.forEach(m::commWaitsCompute);
                m.exchange(e);
                for (int d : involved) {
                    m.markArrival(d, e.id());
                }
            } else {
                Compute c = (Compute) op;
                if (c.kvArrival() >= 0) {
                    m.computeWaitsArrival(c.device(), c.kvArrival());
                }
                m.kernel(c);
                if (program.backward()) {
                    if (c.accArrival() >= 0) {
                        m.computeWaitsArrival(c.device(), c.accArrival());
                    }
                    m.accumulate(c);
                }
            }
        }
    }

    private static List<Integer> involved(Exchange e, int devices) {
        List<Integer> out = new java.util.ArrayList<>();
        for (int d = 0; d < devices; d++) {
            if (e.involves(d)) {
                out.add(d);
            }
        }
        return out;
    }
}
