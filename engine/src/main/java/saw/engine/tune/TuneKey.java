package saw.engine.tune;

import saw.engine.attention.AttentionProblem;
import saw.engine.attention.Pass;

/**
 * What a tuned choice is valid for: the GPU (name, compute capability, driver, kernel build id, in one string from
 * {@code GpuBackend.identity()}), the pass, dtype, head dim, GQA ratio, softcap on or off, sinks on or off, a bucketed
 * shape (sequence lengths and batch x heads rounded up to powers of two) and the mask's signature.
 */
public record TuneKey(String device, Pass pass, String dtype, int headDim, int gqa, boolean softcap, boolean sinks,
                      int seqQBucket, int seqKvBucket, int rowsBucket, MaskSignature signature) {
    public TuneKey {
        if (device == null || device.isBlank() || pass == null || dtype == null || signature == null) {
            throw new IllegalArgumentException("a tune key needs a device, pass, dtype and signature");
        }
    }

    public static TuneKey of(String device, Pass pass, AttentionProblem p, boolean sinks, MaskSignature signature) {
        return new TuneKey(device, pass, p.dtype().label(), p.headDim(), p.heads() / p.kvHeads(), p.softcap() > 0, sinks,
                bucket(p.seqQ()), bucket(p.seqKv()), bucket(p.batch() * p.heads()), signature);
    }

    /** The next power of two at or above n. */
    static int bucket(int n) {
        return n <= 1 ? 1 : Integer.highestOneBit(n - 1) << 1;
    }

    /** The key as it is stored in the cache file: every field, '|'-separated. */
    public String asString() {
        return device + "|" + withoutDevice();
    }

    /** Every field but the device, so a view can find choices tuned on any GPU before it opens one. */
    public String withoutDevice() {
        return pass.label() + "|" + dtype + "|d" + headDim + "|gqa" + gqa + "|softcap " + (softcap ? "on" : "off")
                + "|sinks " + (sinks ? "on" : "off") + "|sq" + seqQBucket + "|skv" + seqKvBucket + "|bh" + rowsBucket + "|" + signature;
    }
}
