package saw.engine.tune;

import java.util.List;
import saw.engine.attention.AttentionBackend.PreparedRun;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.Pass;
import saw.engine.mask.TileLayout;

/** What a tune times on: the candidates a backend offers for a problem, its default, and a prepared run of one. */
public interface CandidateRunner {
    /** Every candidate worth timing for this problem and pass, the default among them. */
    List<Candidate> candidates(AttentionProblem p, Pass pass);

    /** What runs when nothing is tuned. */
    Candidate defaultCandidate(AttentionProblem p, Pass pass);

    /** The device and kernel build this runner times on, for the cache key. */
    String identity();

    /**
     * Prepares one candidate on inputs drawn from {@code seed}, with random learned sink logits when {@code sinks}.
     *
     * @throws IllegalArgumentException when the candidate cannot run this problem (the tune skips it and says why)
     */
    PreparedRun prepare(Candidate c, AttentionProblem p, TileLayout layout, Pass pass, long seed, boolean sinks);
}
