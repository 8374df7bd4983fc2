package saw.engine.nsa;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import saw.engine.format.LayoutFormats;
import saw.engine.mask.BoundMask;
import saw.engine.mask.TileLayout;

/** Where NSA selections come from: a saw mask, .npy files, or a seeded draw. */
public final class NsaSelections {
    private NsaSelections() {}

    /**
     * The kv-blocks each token attends in a compiled mask (the nsa export), for {@code kvHeads} kv heads: kv head h
     * takes the mask of query head h * group (the mask's heads are query heads; a mask that varies inside a group
     * cannot be one NSA selection). The kernels then apply causality inside the chosen blocks.
     */
    public static NsaSelection fromMask(TileLayout layout, int kvHeads, int group) throws BadSelection {
        BoundMask mask = layout.mask();
        int seq = layout.dims().seqQ();
        if (layout.dims().seqKv() != seq) {
            throw new BadSelection("mask: NSA is self-attention; the mask's q length " + seq + " differs from its kv length "
                    + layout.dims().seqKv());
        }
        int batch = layout.dims().batch();
        int maskHeads = layout.dims().heads();
        if (maskHeads != 1 && maskHeads != kvHeads * group) {
            throw new BadSelection("mask: it has " + maskHeads + " heads; an NSA selection from it needs 1 or " + kvHeads * group);
        }
        int[][][] perVariant = new int[mask.variantCount()][][];
        int[][] lists = new int[batch * seq * kvHeads][];
        for (int b = 0; b < batch; b++) {
            for (int h = 0; h < kvHeads; h++) {
                int v = mask.variantOf(b, maskHeads == 1 ? 0 : h * group);
                for (int hi = 1; maskHeads != 1 && hi < group; hi++) {
                    if (mask.variantOf(b, h * group + hi) != v) {
                        throw new BadSelection("mask: query heads " + h * group + " and " + (h * group + hi) + " of kv head " + h
                                + " attend differently; NSA shares one selection per GQA group");
                    }
                }
                if (perVariant[v] == null) {
                    perVariant[v] = LayoutFormats.nsaBlocks(layout, v);
                }
                for (int t = 0; t < seq; t++) {
                    lists[(b * seq + t) * kvHeads + h] = perVariant[v][t];
                }
            }
        }
        return NsaSelection.ofLists(batch, seq, kvHeads, layout.blockKv(), lists, false);
    }

    /**
     * Reads block_indices [B, T, Hkv, S] and block_counts [B, T, Hkv] (int32 or int64 .npy); counts may be null (then
     * every entry up to the first -1 counts).
     */
    public static NsaSelection fromNpy(Path indices, Path counts, int blockSize, boolean causal) throws BadSelection {
        NpyInts idx = NpyInts.read(indices, "block_indices");
        if (idx.shape.length != 4) {
            throw new BadSelection("block_indices: " + indices + " has shape " + Arrays.toString(idx.shape)
                    + "; [batch, tokens, kv heads, S] expected");
        }
        int batch = idx.shape[0];
        int seq = idx.shape[1];
        int heads = idx.shape[2];
        int s = idx.shape[3];
        int[] cnt;
        if (counts != null) {
            NpyInts c = NpyInts.read(counts, "block_counts");
            if (!Arrays.equals(c.shape, new int[] {batch, seq, heads})) {
                throw new BadSelection("block_counts: " + counts + " has shape " + Arrays.toString(c.shape) + "; ["
                        + batch + ", " + seq + ", " + heads + "] expected to match block_indices");
            }
            cnt = c.data;
        } else {
            cnt = new int[batch * seq * heads];
            for (int r = 0; r < cnt.length; r++) {
                int n = 0;
                while (n < s && idx.data[r * s + n] >= 0) {
                    n++;
                }
                cnt[r] = n;
            }
        }
        return NsaSelection.of(batch, seq, heads, s, blockSize, idx.data, cnt, causal);
    }

    /**
     * Random causal top-S: every token takes its own block and then distinct earlier blocks uniformly at random, up to
     * S of them (fewer near the start, where fewer exist), listed ascending.
     */
    public static NsaSelection random(int batch, int seqLen, int kvHeads, int s, int blockSize, long seed) throws BadSelection {
        checkDraw(batch, seqLen, kvHeads, s, blockSize);
        SplittableRandom rnd = new SplittableRandom(seed);
        int[][] lists = new int[batch * seqLen * kvHeads][];
        int[] pool = new int[(seqLen + blockSize - 1) / blockSize];
        for (int r = 0; r < lists.length; r++) {
            int t = r / kvHeads % seqLen;
            int own = t / blockSize;
            int n = Math.min(s, own + 1);
            for (int i = 0; i < own; i++) {
                pool[i] = i;
            }
            int[] chosen = new int[n];
            chosen[0] = own;
            for (int i = 1; i < n; i++) { // partial Fisher-Yates over the earlier blocks
                int j = i - 1 + rnd.nextInt(own - (i - 1));
                int x = pool[j];
                pool[j] = pool[i - 1];
                pool[i - 1] = x;
                chosen[i] = x;
            }
            Arrays.sort(chosen);
            lists[r] = chosen;
        }
        return NsaSelection.ofLists(batch, seqLen, kvHeads, blockSize, lists, true);
    }

    /**
     * Top-S of block scores, as NSA's selection branch makes them: a seeded draw of per-token queries and keys of
     * {@code dim} dimensions with a slowly drifting shared component (so neighbouring tokens look alike, as in text),
     * block keys as the mean of their keys, and each token's S best-scoring blocks among those that start at or before
     * it, its own block always included; ascending.
     */
    public static NsaSelection scored(int batch, int seqLen, int kvHeads, int s, int blockSize, int dim, long seed)
            throws BadSelection {
        checkDraw(batch, seqLen, kvHeads, s, blockSize);
        if (dim < 1) {
            throw new BadSelection("score dim must be >= 1, got " + dim);
        }
        SplittableRandom rnd = new SplittableRandom(seed);
        int nb = (seqLen + blockSize - 1) / blockSize;
        int[][] lists = new int[batch * seqLen * kvHeads][];
        double[] drift = new double[dim];
        double[] q = new double[dim];
        double[] blockKeys = new double[nb * dim];
        double[] score = new double[nb];
        for (int b = 0; b < batch; b++) {
            for (int h = 0; h < kvHeads; h++) {
                Arrays.fill(blockKeys, 0);
                for (int kb = 0; kb < nb; kb++) {
                    for (int x = 0; x < dim; x++) {
                        blockKeys[kb * dim + x] = gaussian(rnd);
                    }
                }
                for (int x = 0; x < dim; x++) {
                    drift[x] = gaussian(rnd);
                }
                for (int t = 0; t < seqLen; t++) {
                    for (int x = 0; x < dim; x++) {
                        drift[x] = 0.98 * drift[x] + 0.2 * gaussian(rnd);
                        q[x] = drift[x] + 0.5 * gaussian(rnd);
                    }
                    int own = t / blockSize;
                    int n = Math.min(s, own + 1);
                    int[] chosen = new int[n];
                    chosen[0] = own;
                    int kept = 0; // chosen[1..kept] hold the best earlier blocks, best first
                    for (int kb = 0; kb < own; kb++) {
                        double z = 0;
                        for (int x = 0; x < dim; x++) {
                            z += q[x] * blockKeys[kb * dim + x];
                        }
                        score[kb] = z;
                        if (kept < n - 1 || (n > 1 && z > score[chosen[kept]])) {
                            int at = kept < n - 1 ? ++kept : kept;
                            while (at > 1 && score[chosen[at - 1]] < z) {
                                chosen[at] = chosen[at - 1];
                                at--;
                            }
                            chosen[at] = kb;
                        }
                    }
                    Arrays.sort(chosen);
                    lists[(b * seqLen + t) * kvHeads + h] = chosen;
                }
            }
        }
        return NsaSelection.ofLists(batch, seqLen, kvHeads, blockSize, lists, true);
    }

    private static void checkDraw(int batch, int seqLen, int kvHeads, int s, int blockSize) throws BadSelection {
        if (batch < 1 || seqLen < 1 || kvHeads < 1 || s < 1 || blockSize < 1) {
            throw new BadSelection("batch, tokens, kv heads, S and block size must be >= 1, got " + batch + ", " + seqLen + ", "
                    + kvHeads + ", " + s + ", " + blockSize);
        }
    }

    private static double gaussian(SplittableRandom rnd) {
        double u = 1.0 - rnd.nextDouble();
        return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rnd.nextDouble());
    }
}
