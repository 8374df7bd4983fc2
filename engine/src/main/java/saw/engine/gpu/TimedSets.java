package saw.engine.gpu;

import java.util.function.Consumer;
import jcuda.driver.CUevent;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.Pass;

/**
 * A timed run's inputs, drawn on the device, the scratch it fills before each timed launch sequence, and the two CUDA
 * events that time the sequence. The inputs are {@code q k v o lse}, and for the backward also
 * {@code dO dsum dqAcc dq dk dv} (indices {@link #Q} to {@link #DV}).
 */
final class TimedSets implements AutoCloseable {
    static final int Q = 0;
    static final int K = 1;
    static final int V = 2;
    static final int O = 3;
    static final int LSE = 4;
    static final int DO = 5;
    static final int DSUM = 6;
    static final int DQ_ACC = 7;
    static final int DQ = 8;
    static final int DK = 9;
    static final int DV = 10;

    private final CudaDevice cuda;
    private final DeviceBuffer[] set;
    private final DeviceBuffer flush;
    private final CUevent start;
    private final CUevent end;
    private final int eventsMadeIn;

    /**
     * Draws the inputs from {@code seed} and allocates {@code flushBytes} of scratch where the GPU still has that much
     * free (none for 0, or without the room: the run then goes without the fill rather than fail); {@code prime} runs
     * on a backward's inputs once they are made (the untimed forward whose O and LSE the backward reads). Waits for the
     * launches, then makes the events.
     */
    TimedSets(CudaDevice cuda, AttentionProblem p, Pass pass, long seed, long flushBytes,
            Consumer<DeviceBuffer[]> prime) {
        this.cuda = cuda;
        long qn = p.qElements();
        long kvn = p.kvElements();
        long rows = p.rows();
        this.set = new DeviceBuffer[pass == Pass.FWD ? 5 : 11];
        DeviceBuffer scratch = null;
        try {
            set[Q] = cuda.drawn("Q", p.dtype(), qn, seed * 31 + 1);
            set[K] = cuda.drawn("K", p.dtype(), kvn, seed * 31 + 2);
            set[V] = cuda.drawn("V", p.dtype(), kvn, seed * 31 + 3);
            set[O] = cuda.buffer("O", 2 * qn);
            set[LSE] = cuda.buffer("LSE", 4 * rows);
            if (pass == Pass.BWD) {
                set[DO] = cuda.drawn("dO", p.dtype(), qn, seed * 31 + 4);
                set[DSUM] = cuda.buffer("Dsum", 4 * rows);
                set[DQ_ACC] = cuda.buffer("dQ accumulator", 4 * qn);
                set[DQ] = cuda.buffer("dQ", 2 * qn);
                set[DK] = cuda.buffer("dK", 2 * kvn);
                set[DV] = cuda.buffer("dV", 2 * kvn);
                prime.accept(set);
            }
            scratch = flushBytes > 0 && cuda.freeBytes() >= flushBytes ? cuda.buffer("the L2 flush scratch", flushBytes)
                    : null;
            cuda.sync();
        } catch (RuntimeException e) {
            closeAll(set, scratch);
            throw e;
        }
        this.flush = scratch;
        this.eventsMadeIn = cuda.generation();
        this.start = cuda.event();
        this.end = cuda.event();
    }

    /**
     * Milliseconds of {@code launches} between two CUDA events, the flush scratch filled first: the fill empties the L2
     * cache and keeps the GPU busy while the host queues the launches, so the events see the GPU's work alone.
     */
    double time(Consumer<DeviceBuffer[]> launches) {
        cuda.makeCurrent();
        if (cuda.generation() != eventsMadeIn) {
            throw new GpuException("this prepared run's GPU memory was lost when the context was reset after a fault; "
                    + "prepare the run again");
        }
        cuda.syncEachLaunch(false);
        if (flush != null) {
            flush.fill32("the L2 flush scratch", 0);
        }
        cuda.record(start);
        launches.accept(set);
        cuda.record(end);
        return cuda.elapsedMs(start, end);
    }

    @Override
    public void close() {
        closeAll(set, flush);
        if (start != null) {
            cuda.destroy(start, eventsMadeIn);
            cuda.destroy(end, eventsMadeIn);
        }
    }

    private static void closeAll(DeviceBuffer[] set, DeviceBuffer flush) {
        for (DeviceBuffer b : set) {
            if (b != null) {
                b.close();
            }
        }
        if (flush != null) {
            flush.close();
        }
    }
}
