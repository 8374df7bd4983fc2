package saw.engine.mask;

/** The sizes a mask is evaluated over: query and key lengths, batch and heads. */
public record Dims(int seqQ, int seqKv, int batch, int heads) {
    /** The longest sequence saw accepts: 2^24 tokens. */
    public static final int MAX_SEQ = 1 << 24;

    public Dims {
        if (seqQ < 1 || seqQ > MAX_SEQ || seqKv < 1 || seqKv > MAX_SEQ) {
            throw new IllegalArgumentException("sequence lengths must be in 1.." + MAX_SEQ + ", got " + seqQ + " x " + seqKv);
        }
        if (batch < 1 || heads < 1) {
            throw new IllegalArgumentException("batch and heads must be >= 1, got batch=" + batch + ", heads=" + heads);
        }
    }

    public static Dims square(int seq) {
        return new Dims(seq, seq, 1, 1);
    }
}
