package saw.engine.gpu;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import jcuda.driver.CUevent;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.Pass;

/**
 * The input sets a timed run rotates over, drawn on the device, and the two CUDA events that time one launch
 * sequence on the next set. A set is {@code q k v o lse}, and for the backward also {@code dO dsum dqAcc dq dk dv}
 * (indices {@link #Q} to {@link #DV}).
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
    private final List<DeviceBuffer[]> sets = new ArrayList<>();
    private final CUevent start;
    private final CUevent end;
    private final int eventsMadeIn;
    private int next;

    /**
     * Draws {@code count} sets from {@code seed}; {@code prime} runs on each backward set once it is made (the untimed
     * forward whose O and LSE the backward reads). Waits for the launches, then makes the events.
     */
    TimedSets(CudaDevice cuda, AttentionProblem p, Pass pass, long seed, int count, Consumer<DeviceBuffer[]> prime) {
        this.cuda = cuda;
        long qn = p.qElements();
        long kvn = p.kvElements();
        long rows = p.rows();
        try {
            for (int s = 0; s < count; s++) {
                DeviceBuffer[] set = new DeviceBuffer[pass == Pass.FWD ? 5 : 11];
                sets.add(set); // before allocating, so that close() frees what a failure leaves
                set[Q] = cuda.drawn("Q", p.dtype(), qn, seed * 31 + s * 7 + 1);
                set[K] = cuda.drawn("K", p.dtype(), kvn, seed * 31 + s * 7 + 2);
                set[V] = cuda.drawn("V", p.dtype(), kvn, seed * 31 + s * 7 + 3);
                set[O] = cuda.buffer("O", 2 * qn);
                set[LSE] = cuda.buffer("LSE", 4 * rows);
                if (pass == Pass.BWD) {
                    set[DO] = cuda.drawn("dO", p.dtype(), qn, seed * 31 + s * 7 + 4);
                    set[DSUM] = cuda.buffer("Dsum", 4 * rows);
                    set[DQ_ACC] = cuda.buffer("dQ accumulator", 4 * qn);
                    set[DQ] = cuda.buffer("dQ", 2 * qn);
                    set[DK] = cuda.buffer("dK", 2 * kvn);
                    set[DV] = cuda.buffer("dV", 2 * kvn);
                    prime.accept(set);
                }
            }
            cuda.sync();
        } catch (RuntimeException e) {
            close();
            throw e;
        }
        this.eventsMadeIn = cuda.generation();
        this.start = cuda.event();
        this.end = cuda.event();
    }

    /** Milliseconds of {@code launches} on the next set in turn, between two CUDA events. */
    double time(Consumer<DeviceBuffer[]> launches) {
        cuda.makeCurrent();
        if (cuda.generation() != eventsMadeIn) {
            throw new GpuException("this prepared run's GPU memory was lost when the context was reset after a fault; "
                    + "prepare the run again");
        }
        cuda.syncEachLaunch(false);
        DeviceBuffer[] s = sets.get(next);
        next = (next + 1) % sets.size();
        cuda.record(start);
        launches.accept(s);
        cuda.record(end);
        return cuda.elapsedMs(start, end);
    }

    @Override
    public void close() {
        for (DeviceBuffer[] set : sets) {
            for (DeviceBuffer b : set) {
                if (b != null) {
                    b.close();
                }
            }
        }
        sets.clear();
        if (start != null) {
            cuda.destroy(start, eventsMadeIn);
            cuda.destroy(end, eventsMadeIn);
        }
    }
}
