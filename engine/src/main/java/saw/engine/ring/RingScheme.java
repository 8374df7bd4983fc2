package saw.engine.ring;

import java.util.Locale;

/**
 * How ring attention splits one sequence over N devices, in chunks of whole tiles. Each device holds the Q, K and
 * V of its chunks; K/V shards travel the ring, so device d computes its queries against shard (d - s) mod N at
 * step s whatever the scheme.
 */
public enum RingScheme {
    /** Device d holds the d-th of N equal runs of chunks (causal work falls 2x unevenly). */
    CONTIGUOUS,
    /** 2N runs of chunks; device i holds runs i and 2N-1-i (evens out causal, not packed documents). */
    ZIGZAG,
    /** Chunk j belongs to device j mod N. */
    STRIPED,
    /** saw's own: chunks assigned to minimise the largest device's exact attended pairs, equal chunk counts. */
    BALANCED;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static RingScheme parse(String s) {
        for (RingScheme r : values()) {
            if (r.label().equalsIgnoreCase(s)) {
                return r;
            }
        }
        throw new IllegalArgumentException("scheme '" + s + "' is not one of contiguous, zigzag, striped, balanced");
    }
}
