package saw.engine.nsa;

/**
 * What decides an NSA kernel's cost: pairs attended, and within q-tiles of {@code tileTokens} consecutive tokens how
 * many distinct kv-blocks the tile needs and how many of its tokens share each (a kernel that loads a block once per
 * tile reads {@code meanDistinctBlocks} blocks per tile instead of {@code tileTokens * mean chosen}).
 *
 * @param selectedPairs token-key pairs attended, over batch, tokens and kv heads (multiply by the group size for query heads)
 * @param chosenBlocks block choices, over batch, tokens and kv heads
 * @param tiles q-tiles counted, over batch and kv heads
 * @param meanDistinctBlocks distinct kv-blocks per tile, averaged over tiles
 * @param maxDistinctBlocks the most distinct kv-blocks of any tile
 * @param meanSharing tokens per distinct block of a tile (chosen over distinct), averaged over tiles; 1 = no sharing
 */
public record NsaStats(long selectedPairs, long chosenBlocks, int tileTokens, long tiles, double meanDistinctBlocks,
                       int maxDistinctBlocks, double meanSharing) {
    public static NsaStats of(NsaSelection sel, int tileTokens) {
        if (tileTokens < 1) {
            throw new IllegalArgumentException("tile tokens must be >= 1, got " + tileTokens);
        }
        int nb = sel.numKvBlocks();
        int[] stamp = new int[nb];
        int[] buf = new int[sel.maxSelected()];
        int mark = 0;
        long pairs = 0;
        long chosen = 0;
        long tiles = 0;
        double distinctSum = 0;
        double sharingSum = 0;
        int maxDistinct = 0;
        for (int b = 0; b < sel.batch(); b++) {
            for (int h = 0; h < sel.kvHeads(); h++) {
                for (int t0 = 0; t0 < sel.seqLen(); t0 += tileTokens) {
                    mark++;
                    int distinct = 0;
                    long inTile = 0;
                    for (int t = t0; t < Math.min(sel.seqLen(), t0 + tileTokens); t++) {
                        int n = sel.blocks(b, t, h, buf);
                        for (int s = 0; s < n; s++) {
                            pairs += sel.keysInBlock(t, buf[s]);
                            if (stamp[buf[s]] != mark) {
                                stamp[buf[s]] = mark;
                                distinct++;
                            }
                        }
                        inTile += n;
                    }
                    chosen += inTile;
                    tiles++;
                    distinctSum += distinct;
                    sharingSum += distinct == 0 ? 0 : (double) inTile / distinct;
                    maxDistinct = Math.max(maxDistinct, distinct);
                }
            }
        }
        return new NsaStats(pairs, chosen, tileTokens, tiles, distinctSum / tiles, maxDistinct, sharingSum / tiles);
    }

    /** Useful forward FLOPs with {@code group} query heads per kv head and head dim {@code headDim}: 4 * D * pairs * G. */
    public double forwardFlops(int group, int headDim) {
        return 4.0 * headDim * selectedPairs * group;
    }
}
