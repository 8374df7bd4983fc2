package saw.engine.ring;

/**
 * The roofline a plan's step times come from: a device computes 4 * headDim FLOPs per attended pair at
 * {@code tflops}, and sends or receives a K/V shard at {@code linkGBs}; a step takes the longer of its compute
 * and its transfer (ring attention overlaps them).
 *
 * @param headDim D of Q, K and V
 * @param kvHeads K/V heads per batch entry (GQA shrinks the shards)
 * @param elementBytes bytes per K or V element (2 for bf16 and fp16)
 * @param tflops useful forward rate of one device
 * @param linkGBs one direction of one device's link to its ring neighbour, GB/s (10^9 bytes)
 * @param rateSource where {@code tflops} comes from, for reports
 */
public record RingModel(int headDim, int kvHeads, int elementBytes, double tflops, double linkGBs, String rateSource) {
    /** saw's warp-specialised wgmma forward on an H200, causal S = 8192 (docs/kernel-notes.md). */
    public static final double DEFAULT_TFLOPS = 559;
    /** H200 SXM NVLink 4: 900 GB/s both directions together, half of it each way (NVIDIA's figure). */
    public static final double NVLINK_GBS = 450;
    /** One 400 Gb/s NDR InfiniBand port per GPU, the usual link between nodes. */
    public static final double INFINIBAND_GBS = 50;
    public static final String DEFAULT_RATE_SOURCE = "default: saw's H200 forward, causal 8192";

    public RingModel {
        if (headDim < 1 || kvHeads < 1 || elementBytes < 1) {
            throw new IllegalArgumentException("head dim, kv heads and element bytes must be >= 1");
        }
        if (!(tflops > 0) || Double.isInfinite(tflops)) {
            throw new IllegalArgumentException("the compute rate must be a positive number of TFLOP/s, got " + tflops);
        }
        if (!(linkGBs > 0) || Double.isInfinite(linkGBs)) {
            throw new IllegalArgumentException("the link bandwidth must be a positive number of GB/s, got " + linkGBs);
        }
        rateSource = rateSource == null ? "" : rateSource;
    }

    /** D = 128, bf16, K/V heads = {@code heads}, the default rate over NVLink. */
    public static RingModel defaults(int heads) {
        return new RingModel(128, heads, 2, DEFAULT_TFLOPS, NVLINK_GBS, DEFAULT_RATE_SOURCE);
    }

    public double computeMs(long pairs) {
        return 4.0 * headDim * pairs / (tflops * 1e12) * 1e3;
    }

    public double transferMs(long bytes) {
        return bytes / (linkGBs * 1e9) * 1e3;
    }

    /** K and V of {@code tokens} tokens of every batch entry. */
    public long shardBytes(long tokens, int batch) {
        return 2L * tokens * batch * kvHeads * headDim * elementBytes;
    }
}
