package saw.engine.mask;

import java.util.ArrayList;
import java.util.List;

/**
 * The checks a mask needs its {@link Dims} for, each problem named by the JSON pointer of the value at fault
 * (as in a {@code saw.mask/1} config, where the mask sits at {@code /mask}).
 */
public final class MaskChecks {
    /** Nesting deeper than this is refused. */
    public static final int MAX_DEPTH = 64;

    /** A problem with a mask: where (a JSON pointer) and a sentence a user can act on. */
    public record Problem(String path, String message) {
        @Override
        public String toString() {
            return path + ": " + message;
        }
    }

    private final Dims dims;
    private final List<Problem> problems = new ArrayList<>();

    private MaskChecks(Dims dims) {
        this.dims = dims;
    }

    /** Every problem found, in document order; empty when the mask can be bound to these sizes. */
    public static List<Problem> check(Mask mask, Dims dims) {
        MaskChecks checks = new MaskChecks(dims);
        checks.walk(mask, "/mask", 1);
        return List.copyOf(checks.problems);
    }

    /** Whether {@code n} is a power of two in 16..512, the block sizes saw accepts. */
    public static boolean isValidBlock(int n) {
        return n >= 16 && n <= 512 && Integer.bitCount(n) == 1;
    }

    private void fail(String path, String message) {
        problems.add(new Problem(path, message));
    }

    private void walk(Mask m, String path, int depth) {
        if (depth > MAX_DEPTH) {
            fail(path, "masks nest deeper than " + MAX_DEPTH + " levels");
            return;
        }
        int sq = dims.seqQ();
        int skv = dims.seqKv();
        int longest = Math.max(sq, skv);
        if (m instanceof Mask.Causal c) {
            if (Math.abs((long) c.offset()) > Dims.MAX_SEQ) {
                fail(path + "/causal/offset", "offset " + c.offset() + " is beyond +-" + Dims.MAX_SEQ);
            }
        } else if (m instanceof Mask.SlidingWindow w) {
            if (w.left() > Dims.MAX_SEQ || w.right() > Dims.MAX_SEQ) {
                fail(path + "/sliding_window", "window bounds must be at most " + Dims.MAX_SEQ);
            }
        } else if (m instanceof Mask.ChunkedCausal c) {
            if (c.chunk() > Dims.MAX_SEQ) {
                fail(path + "/chunked_causal/chunk", "chunk " + c.chunk() + " is longer than " + Dims.MAX_SEQ);
            }
        } else if (m instanceof Mask.PrefixLm p) {
            if (p.prefix() > skv) {
                fail(path + "/prefix_lm/prefix", "prefix " + p.prefix() + " is longer than seq_len_kv " + skv);
            }
        } else if (m instanceof Mask.Sinks s) {
            if (s.count() > skv) {
                fail(path + "/sinks/count", "sink count " + s.count() + " is larger than seq_len_kv " + skv);
            }
        } else if (m instanceof Mask.Dilated d) {
            if (d.stride() > longest) {
                fail(path + "/dilated/stride", "stride " + d.stride() + " is longer than the sequence (" + longest + ")");
            }
        } else if (m instanceof Mask.GlobalTokens g) {
            int n = g.indices().size();
            if (n > 0 && g.indices().get(n - 1) >= longest) {
                fail(path + "/global_tokens", "global token " + g.indices().get(n - 1) + " is past the sequence (length " + longest + ")");
            }
        } else if (m instanceof Mask.Documents d) {
            checkDocuments(d, path + "/documents");
        } else if (m instanceof Mask.RandomBlocks r) {
            String p = path + "/random_blocks";
            if (checkBlocks(r.blockQ(), r.blockKv(), p + "/block")) {
                int nkv = BoundMask.ceilDiv(skv, r.blockKv());
                if (r.perRow() > nkv) {
                    fail(p + "/per_row", "per_row " + r.perRow() + " is more than the " + nkv + " kv-blocks of size " + r.blockKv());
                }
            }
        } else if (m instanceof Mask.BlockList l) {
            checkRows(l.blockQ(), l.blockKv(), l.rows(), path + "/block_list");
        } else if (m instanceof Mask.Painted p) {
            checkRows(p.blockQ(), p.blockKv(), p.rows(), path + "/painted");
        } else if (m instanceof Mask.And a) {
            walkAll(a.children(), path + "/and/", depth);
        } else if (m instanceof Mask.Or o) {
            walkAll(o.children(), path + "/or/", depth);
        } else if (m instanceof Mask.Not n) {
            walk(n.child(), path + "/not", depth + 1);
        } else if (m instanceof Mask.PerHead p) {
            if (p.variants().size() > dims.heads()) {
                fail(path + "/per_head", "per_head lists " + p.variants().size() + " masks but there are only "
                        + dims.heads() + " heads");
            }
            walkAll(p.variants(), path + "/per_head/", depth);
        }
    }

    private void walkAll(List<Mask> children, String prefix, int depth) {
        for (int c = 0; c < children.size(); c++) {
            walk(children.get(c), prefix + c, depth + 1);
        }
    }

    private void checkDocuments(Mask.Documents d, String path) {
        if (d.perBatch().size() > 1 && d.perBatch().size() != dims.batch()) {
            fail(path + "/per_batch", "per_batch lists " + d.perBatch().size() + " entries but batch is " + dims.batch());
            return;
        }
        for (int b = 0; b < d.perBatch().size(); b++) {
            String p = d.perBatch().size() > 1 ? path + "/per_batch/" + b : path;
            Mask.Segments s = d.perBatch().get(b);
            if (s instanceof Mask.Lengths l) {
                long sum = l.lengths().sum();
                int longest = Math.max(dims.seqQ(), dims.seqKv());
                if (sum > longest) {
                    fail(p + "/lengths", "document lengths sum to " + sum + ", past the sequence length " + longest);
                }
            } else if (s instanceof Mask.SegmentIds ids) {
                boolean same = ids.q().equals(ids.kv());
                if (ids.q().size() != dims.seqQ()) {
                    fail(p + (same ? "/segment_ids" : "/q_segment_ids"), "has " + ids.q().size()
                            + " ids but seq_len_q is " + dims.seqQ());
                }
                if (!same && ids.kv().size() != dims.seqKv()) {
                    fail(p + "/kv_segment_ids", "has " + ids.kv().size() + " ids but seq_len_kv is " + dims.seqKv());
                } else if (same && ids.kv().size() != dims.seqKv() && ids.q().size() == dims.seqQ()) {
                    fail(p + "/segment_ids", "segment_ids needs seq_len_q == seq_len_kv; give q_segment_ids and kv_segment_ids");
                }
            }
        }
    }

    private boolean checkBlocks(int bq, int bkv, String path) {
        boolean ok = true;
        if (!isValidBlock(bq)) {
            fail(path + "/0", "block size " + bq + " is not a power of two in 16..512");
            ok = false;
        }
        if (!isValidBlock(bkv)) {
            fail(path + "/1", "block size " + bkv + " is not a power of two in 16..512");
            ok = false;
        }
        return ok;
    }

    private void checkRows(int bq, int bkv, List<IntArray> rows, String path) {
        if (!checkBlocks(bq, bkv, path + "/block")) {
            return;
        }
        int nq = BoundMask.ceilDiv(dims.seqQ(), bq);
        int nkv = BoundMask.ceilDiv(dims.seqKv(), bkv);
        String rowsKey = path.endsWith("/painted") ? "/cells" : "/rows";
        if (rows.size() > nq) {
            fail(path + rowsKey, "lists " + rows.size() + " q-block rows but there are only " + nq + " q-blocks of size " + bq);
        }
        for (int r = 0; r < rows.size(); r++) {
            IntArray row = rows.get(r);
            if (!row.isEmpty() && row.get(row.size() - 1) >= nkv) {
                fail(path + rowsKey + "/" + r, "kv-block " + row.get(row.size() - 1) + " is past the last kv-block ("
                        + (nkv - 1) + ")");
            }
        }
    }
}
