package saw.engine.ring;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import saw.engine.mask.BoundMask;
import saw.engine.mask.IntArray;
import saw.engine.mask.Mask;
import saw.engine.mask.TileLayout;

/**
 * A mask's layout split over a ring of N devices: which chunks of tokens each device holds, and per device and step
 * the sub-layout it computes (its q-blocks against the kv-blocks of the shard it holds), the bytes it passes on and
 * the roofline times. An executor walks {@link #step(int, int)} for every device and step; {@link #subLayout} gives
 * the tiles to launch. Built by {@link RingPlanner}.
 */
public final class RingPlan {
    private final TileLayout layout;
    private final RingScheme scheme;
    private final int devices;
    private final RingModel model;
    private final int chunkTokens;
    private final int[] chunkOwner;
    private final RingStep[] steps;

    RingPlan(TileLayout layout, RingScheme scheme, int devices, RingModel model, int chunkTokens, int[] chunkOwner,
             RingStep[] steps) {
        this.layout = layout;
        this.scheme = scheme;
        this.devices = devices;
        this.model = model;
        this.chunkTokens = chunkTokens;
        this.chunkOwner = chunkOwner;
        this.steps = steps;
    }

    public TileLayout layout() {
        return layout;
    }

    public RingScheme scheme() {
        return scheme;
    }

    public int devices() {
        return devices;
    }

    public RingModel model() {
        return model;
    }

    /** Tokens per chunk: the larger tile side, so every tile lies in one chunk of q and one of kv. */
    public int chunkTokens() {
        return chunkTokens;
    }

    public int chunkCount() {
        return chunkOwner.length;
    }

    public int chunkOwner(int chunk) {
        return chunkOwner[chunk];
    }

    /** The device holding the queries of q-block {@code qBlock}. */
    public int qBlockOwner(int qBlock) {
        return chunkOwner[(int) ((long) qBlock * layout.blockQ() / chunkTokens)];
    }

    /** The device whose shard holds kv-block {@code kvBlock}. */
    public int kvBlockOwner(int kvBlock) {
        return chunkOwner[(int) ((long) kvBlock * layout.blockKv() / chunkTokens)];
    }

    /** The q-blocks device {@code device} holds, ascending. */
    public int[] qBlocks(int device) {
        return blocksOf(device, layout.numQBlocks(), true);
    }

    /** The kv-blocks of device {@code device}'s K/V shard, ascending. */
    public int[] kvBlocks(int device) {
        return blocksOf(device, layout.numKvBlocks(), false);
    }

    /** Tokens device {@code device} holds. */
    public long tokens(int device) {
        long n = 0;
        int seq = layout.dims().seqQ();
        for (int c = 0; c < chunkOwner.length; c++) {
            if (chunkOwner[c] == device) {
                n += Math.min(seq, (long) (c + 1) * chunkTokens) - (long) c * chunkTokens;
            }
        }
        return n;
    }

    public RingStep step(int device, int step) {
        return steps[device * devices + step];
    }

    /** Every (device, step), device-major. */
    public List<RingStep> steps() {
        return List.of(steps);
    }

    /**
     * The tiles device {@code device} computes at step {@code step}, as a mask the kernels compile: the original
     * mask and the block list of its q-blocks against the held shard's kv-blocks (every batch entry and head).
     */
    public Mask subLayoutMask(int device, int step) {
        int shard = step(device, step).kvShard();
        IntArray kv = IntArray.of(kvBlocks(shard));
        List<IntArray> rows = new ArrayList<>(layout.numQBlocks());
        IntArray none = IntArray.of();
        for (int qb = 0; qb < layout.numQBlocks(); qb++) {
            rows.add(qBlockOwner(qb) == device ? kv : none);
        }
        return Mask.And.of(layout.mask().mask(), new Mask.BlockList(layout.blockQ(), layout.blockKv(), rows));
    }

    /** {@link #subLayoutMask} compiled at the layout's sizes and tile. */
    public TileLayout subLayout(int device, int step) {
        return BoundMask.bind(subLayoutMask(device, step), layout.dims()).compile(layout.blockQ(), layout.blockKv());
    }

    /** Attended pairs of device {@code device} over every step. */
    public long devicePairs(int device) {
        long n = 0;
        for (int s = 0; s < devices; s++) {
            n += step(device, s).pairs();
        }
        return n;
    }

    public long totalPairs() {
        long n = 0;
        for (RingStep s : steps) {
            n += s.pairs();
        }
        return n;
    }

    /** Largest device's attended pairs over the mean, minus one: 0 is perfectly even. */
    public double imbalance() {
        long max = 0;
        for (int d = 0; d < devices; d++) {
            max = Math.max(max, devicePairs(d));
        }
        long total = totalPairs();
        return total == 0 ? 0 : max * (double) devices / total - 1;
    }

    /** The device that finishes step {@code step} last. */
    public int criticalDevice(int step) {
        int best = 0;
        for (int d = 1; d < devices; d++) {
            if (step(d, step).ms() > step(best, step).ms()) {
                best = d;
            }
        }
        return best;
    }

    /** Step {@code step} ends when its slowest device does: every device waits for the next shard. */
    public double stepMs(int step) {
        return step(criticalDevice(step), step).ms();
    }

    /** Roofline estimates of the whole ring. */
    public Prediction predicted() {
        double[][] ms = new double[devices][devices];
        for (RingStep s : steps) {
            ms[s.device()][s.step()] = s.computeMs();
        }
        return predict(ms, idealComputeMs(ms));
    }

    /**
     * The ring's wall time with measured compute times {@code computeMs[device][step]} (skipped steps 0) and the
     * model's transfers; {@code singleDeviceMs} is one device running the whole layout (the ideal is a 1/N of it).
     */
    public Prediction withMeasured(double[][] computeMs, double singleDeviceMs) {
        if (computeMs.length != devices) {
            throw new IllegalArgumentException("measured times for " + computeMs.length + " devices, the plan has " + devices);
        }
        return predict(computeMs, singleDeviceMs / devices);
    }

    private double idealComputeMs(double[][] ms) {
        double sum = 0;
        for (double[] row : ms) {
            for (double x : row) {
                sum += x;
            }
        }
        return sum / devices;
    }

    private Prediction predict(double[][] computeMs, double idealMs) {
        double wall = 0;
        double busy = 0;
        int skipped = 0;
        for (int s = 0; s < devices; s++) {
            double stepMax = 0;
            for (int d = 0; d < devices; d++) {
                RingStep st = step(d, s);
                stepMax = Math.max(stepMax, Math.max(computeMs[d][s], st.transferMs()));
                busy += computeMs[d][s];
                skipped += st.skipped() ? 1 : 0;
            }
            wall += stepMax;
        }
        double idle = wall > 0 ? 1 - busy / (devices * wall) : 0;
        return new Prediction(wall, idealMs, wall > 0 ? idealMs / wall : 1, idle, skipped);
    }

    /**
     * A ring's wall time and how it compares with a perfect split.
     *
     * @param wallMs sum over steps of the slowest device's step (compute and transfer overlapped)
     * @param idealMs all the compute spread evenly over the devices, with no transfer
     * @param efficiency idealMs / wallMs
     * @param idleFraction the share of device time spent waiting rather than computing
     * @param skippedSteps (device, step) pairs with nothing to compute
     */
    public record Prediction(double wallMs, double idealMs, double efficiency, double idleFraction, int skippedSteps) {}

    private int[] blocksOf(int device, int n, boolean q) {
        int[] out = new int[n];
        int k = 0;
        for (int b = 0; b < n; b++) {
            if ((q ? qBlockOwner(b) : kvBlockOwner(b)) == device) {
                out[k++] = b;
            }
        }
        return Arrays.copyOf(out, k);
    }
}
