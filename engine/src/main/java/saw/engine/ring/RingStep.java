package saw.engine.ring;

/**
 * What one device does at one ring step: its queries against the K/V shard it holds, then it passes that shard on.
 * Counts are summed over every batch entry and head.
 *
 * @param kvShard the device whose chunks' K/V this device holds now: (device - step) mod N
 * @param sendTo the device it sends the held shard to after computing (-1 at the last step: nothing to pass)
 * @param recvFrom the device it receives the next shard from (-1 at the last step)
 * @param pairs attended (q, kv) pairs of the sub-layout
 * @param fullTiles FULL tiles of the sub-layout
 * @param partialTiles PARTIAL tiles of the sub-layout
 * @param sendBytes K/V bytes sent this step
 * @param recvBytes K/V bytes received this step
 * @param computeMs roofline compute time
 * @param transferMs roofline time of the larger of the send and the receive
 */
public record RingStep(int device, int step, int kvShard, int sendTo, int recvFrom, long pairs, long fullTiles,
                       long partialTiles, long sendBytes, long recvBytes, double computeMs, double transferMs) {
    /** No tile to compute: a block-sparse ring skips the launch (the shard still travels on). */
    public boolean skipped() {
        return fullTiles + partialTiles == 0;
    }

    /** Compute and transfer overlap: the step lasts the longer. */
    public double ms() {
        return Math.max(computeMs, transferMs);
    }
}
