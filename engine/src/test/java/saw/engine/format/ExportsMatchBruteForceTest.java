package saw.engine.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import saw.engine.mask.BoundMask;
import saw.engine.mask.BruteForce;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.MaskChecks;
import saw.engine.mask.RandomMasks;
import saw.engine.mask.TileClass;
import saw.engine.mask.TileLayout;

/**
 * Every export of seeded random masks, parsed back and compared field by field with arrays re-derived from the
 * brute-force token mask. {@code -Dsaw.test.seed=N} changes the master seed; {@code -Dsaw.test.replay=SEED}
 * runs one failing spec alone.
 */
class ExportsMatchBruteForceTest {
    private static final int SPECS = 400;
    private static final int MAX_SEQ = 150;
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void everyExportOfRandomMasksMatchesBruteForce() {
        Long replay = Long.getLong("saw.test.replay");
        long master = Long.getLong("saw.test.seed", 0xF0A7L);
        int checked = 0;
        for (int n = 0; n < (replay == null ? SPECS : 1); n++) {
            long seed = replay != null ? replay : master * 1_000_003L + n;
            try {
                checked += checkOne(seed) ? 1 : 0;
            } catch (AssertionError | RuntimeException | IOException e) {
                fail("spec " + n + " failed; replay with -Dsaw.test.replay=" + seed + ": " + e.getMessage(), e);
            }
        }
        assertTrue(replay != null || checked > SPECS / 2, "too few valid random specs: " + checked);
    }

    /** Returns false when the random mask is invalid for its sizes (nothing to check). */
    static boolean checkOne(long seed) throws IOException {
        SplittableRandom rnd = new SplittableRandom(seed);
        Dims dims = RandomMasks.randomDims(rnd, MAX_SEQ);
        Mask mask = new RandomMasks(rnd, dims).mask(3);
        if (!MaskChecks.check(mask, dims).isEmpty()) {
            return false;
        }
        BoundMask bound = BoundMask.bind(mask, dims);
        TileLayout layout = bound.compile(RandomMasks.randomBlock(rnd), RandomMasks.randomBlock(rnd));
        Reference ref = new Reference(mask, dims, layout.blockQ(), layout.blockKv());
        String where = " (" + dims + ", blocks " + layout.blockQ() + "x" + layout.blockKv() + ", mask " + mask + ")";
        int expectB = bound.batchPeriod() == 1 ? 1 : dims.batch();
        int expectH = bound.headPeriod() == 1 ? 1 : dims.heads();
        try {
            checkFlex(export("flex", layout, ref), ref, expectB, expectH);
            checkEjKernel(export("ejkernel", layout, ref), ref);
            checkNsa(export("nsa", layout, ref), ref, expectB, expectH);
            checkDense(export("dense", layout, ref), ref, expectB, expectH);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + where, e);
        }
        return true;
    }

    /** Writes one format, checks the size estimate and the shared header, and parses it back. */
    private static JsonNode export(String name, TileLayout layout, Reference ref) throws IOException {
        LayoutFormat format = LayoutFormats.byName(name);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        format.write(layout, out);
        assertTrue(out.size() <= format.estimateBytes(layout), name + " wrote " + out.size() + " bytes, estimate " + format.estimateBytes(layout));
        JsonNode root = JSON.readTree(out.toByteArray());
        assertEquals("saw." + name + "/1", root.get("saw").get("format").asText(), name + " header");
        assertArrayEquals(new int[] {ref.blockQ, ref.blockKv}, ints(root.get("block_size")), name + " block_size");
        assertArrayEquals(new int[] {ref.dims.seqQ(), ref.dims.seqKv()}, ints(root.get("seq_lengths")), name + " seq_lengths");
        return root;
    }

    private static void checkFlex(JsonNode root, Reference ref, int expectB, int expectH) {
        for (String stem : new String[] {"kv", "full_kv", "q", "full_q"}) {
            TileClass c = stem.startsWith("full") ? TileClass.FULL : TileClass.PARTIAL;
            boolean rows = stem.endsWith("kv");
            JsonNode num = root.get(stem + "_num_blocks");
            JsonNode indices = root.get(stem + "_indices");
            assertShape(num, stem + "_num_blocks", expectB, expectH, rows ? ref.nq : ref.nkv);
            assertShape(indices, stem + "_indices", expectB, expectH, rows ? ref.nq : ref.nkv, rows ? ref.nkv : ref.nq);
            for (int b = 0; b < ref.dims.batch(); b++) {
                for (int h = 0; h < ref.dims.heads(); h++) {
                    JsonNode n = num.get(expectB == 1 ? 0 : b).get(expectH == 1 ? 0 : h);
                    JsonNode ix = indices.get(expectB == 1 ? 0 : b).get(expectH == 1 ? 0 : h);
                    int lines = rows ? ref.nq : ref.nkv;
                    int length = rows ? ref.nkv : ref.nq;
                    for (int line = 0; line < lines; line++) {
                        boolean[] listed = new boolean[length];
                        int count = 0;
                        for (int x = 0; x < length; x++) {
                            TileClass t = rows ? ref.tiles[b][h][line][x] : ref.tiles[b][h][x][line];
                            listed[x] = t == c;
                            count += listed[x] ? 1 : 0;
                        }
                        String at = stem + " b=" + b + " h=" + h + " line " + line;
                        assertEquals(count, n.get(line).asInt(), at + " count");
                        assertArrayEquals(listedThenRest(listed), ints(ix.get(line)), at + " indices");
                    }
                }
            }
        }
    }

    /** FlexAttention's order: listed indices ascending, then the others ascending. */
    private static int[] listedThenRest(boolean[] listed) {
        int[] out = new int[listed.length];
        int pos = 0;
        for (int pass = 0; pass < 2; pass++) {
            for (int x = 0; x < listed.length; x++) {
                if (listed[x] == (pass == 0)) {
                    out[pos++] = x;
                }
            }
        }
        return out;
    }

    private static void checkEjKernel(JsonNode root, Reference ref) {
        long[] waste = new long[4];
        boolean reproduces = true;
        for (int direction = 0; direction < 2; direction++) {
            String prefix = direction == 0 ? "" : "dkdv_";
            int lines = direction == 0 ? ref.nq : ref.nkv;
            int length = direction == 0 ? ref.nkv : ref.nq;
            JsonNode[] bounds = new JsonNode[4];
            String[] names = {"lower_bounds", "upper_bounds", "lower_full_bounds", "upper_full_bounds"};
            for (int k = 0; k < 4; k++) {
                bounds[k] = root.get(prefix + names[k]);
                assertShape(bounds[k], prefix + names[k], ref.dims.batch(), 1, lines);
            }
            for (int b = 0; b < ref.dims.batch(); b++) {
                for (int line = 0; line < lines; line++) {
                    TileClass[][] byHead = new TileClass[ref.dims.heads()][length];
                    for (int h = 0; h < ref.dims.heads(); h++) {
                        for (int x = 0; x < length; x++) {
                            byHead[h][x] = direction == 0 ? ref.tiles[b][h][line][x] : ref.tiles[b][h][x][line];
                        }
                    }
                    int[] expected = expectedIntervals(byHead, length);
                    String at = prefix + "bounds b=" + b + " line " + line;
                    for (int k = 0; k < 4; k++) {
                        assertEquals(expected[k], bounds[k].get(b).get(0).get(line).asInt(), at + " " + names[k]);
                    }
                    for (TileClass[] classes : byHead) {
                        for (int x = 0; x < length; x++) {
                            boolean inside = expected[0] <= x && x < expected[1];
                            boolean insideFull = expected[2] <= x && x < expected[3];
                            waste[direction] += inside && classes[x] == TileClass.EMPTY ? 1 : 0;
                            waste[2 + direction] += !insideFull && classes[x] == TileClass.FULL ? 1 : 0;
                            reproduces &= inside == (classes[x] != TileClass.EMPTY) && insideFull == (classes[x] == TileClass.FULL);
                        }
                    }
                }
            }
        }
        assertEquals(waste[0], root.get("extra_tiles").asLong(), "extra_tiles");
        assertEquals(waste[1], root.get("dkdv_extra_tiles").asLong(), "dkdv_extra_tiles");
        assertEquals(waste[2], root.get("masked_full_tiles").asLong(), "masked_full_tiles");
        assertEquals(waste[3], root.get("dkdv_masked_full_tiles").asLong(), "dkdv_masked_full_tiles");
        assertEquals(reproduces, root.get("exact").asBoolean(), "exact");
    }

    /** docs/formats.md's rule, applied to one line's classes for every head: {lower, upper, lower_full, upper_full}. */
    private static int[] expectedIntervals(TileClass[][] byHead, int length) {
        int first = -1;
        int last = -1;
        int bestStart = 0;
        int bestLength = 0;
        int runStart = -1;
        for (int x = 0; x <= length; x++) {
            boolean any = false;
            boolean allFull = x < length;
            for (TileClass[] classes : byHead) {
                if (x < length) {
                    any |= classes[x] != TileClass.EMPTY;
                    allFull &= classes[x] == TileClass.FULL;
                }
            }
            if (any) {
                first = first < 0 ? x : first;
                last = x;
            }
            if (allFull && runStart < 0) {
                runStart = x;
            } else if (!allFull && runStart >= 0) {
                if (x - runStart > bestLength) {
                    bestStart = runStart;
                    bestLength = x - runStart;
                }
                runStart = -1;
            }
        }
        if (first < 0) {
            return new int[4];
        }
        return bestLength == 0 ? new int[] {first, last + 1, first, first} : new int[] {first, last + 1, bestStart, bestStart + bestLength};
    }

    private static void checkNsa(JsonNode root, Reference ref, int expectB, int expectH) {
        List<int[]> selections = new ArrayList<>();
        int widest = 0;
        for (int b = 0; b < ref.dims.batch(); b++) {
            for (int h = 0; h < ref.dims.heads(); h++) {
                for (int i = 0; i < ref.dims.seqQ(); i++) {
                    int[] blocks = new int[ref.nkv];
                    int n = 0;
                    for (int kb = 0; kb < ref.nkv; kb++) {
                        boolean any = false;
                        for (int j = kb * ref.blockKv; j < Math.min(ref.dims.seqKv(), (kb + 1) * ref.blockKv); j++) {
                            any |= ref.dense[b][h][i][j];
                        }
                        if (any) {
                            blocks[n++] = kb;
                        }
                    }
                    selections.add(java.util.Arrays.copyOf(blocks, n));
                    widest = Math.max(widest, n);
                }
            }
        }
        JsonNode indices = root.get("block_indices");
        JsonNode counts = root.get("block_counts");
        assertShape(indices, "block_indices", expectB, ref.dims.seqQ(), expectH, widest);
        assertShape(counts, "block_counts", expectB, ref.dims.seqQ(), expectH);
        int s = 0;
        for (int b = 0; b < ref.dims.batch(); b++) {
            for (int h = 0; h < ref.dims.heads(); h++) {
                for (int i = 0; i < ref.dims.seqQ(); i++) {
                    int[] expected = java.util.Arrays.copyOf(selections.get(s++), widest);
                    int n = selections.get(s - 1).length;
                    java.util.Arrays.fill(expected, n, widest, -1);
                    String at = "nsa b=" + b + " h=" + h + " token " + i;
                    int bb = expectB == 1 ? 0 : b;
                    int hh = expectH == 1 ? 0 : h;
                    assertArrayEquals(expected, ints(indices.get(bb).get(i).get(hh)), at + " block_indices");
                    assertEquals(n, counts.get(bb).get(i).get(hh).asInt(), at + " block_counts");
                }
            }
        }
    }

    private static void checkDense(JsonNode root, Reference ref, int expectB, int expectH) {
        JsonNode mask = root.get("mask");
        assertShape(mask, "mask", expectB, expectH, ref.dims.seqQ());
        for (int b = 0; b < ref.dims.batch(); b++) {
            for (int h = 0; h < ref.dims.heads(); h++) {
                for (int i = 0; i < ref.dims.seqQ(); i++) {
                    StringBuilder row = new StringBuilder();
                    for (boolean a : ref.dense[b][h][i]) {
                        row.append(a ? '1' : '0');
                    }
                    assertEquals(row.toString(), mask.get(expectB == 1 ? 0 : b).get(expectH == 1 ? 0 : h).get(i).asText(),
                            "dense b=" + b + " h=" + h + " row " + i);
                }
            }
        }
    }

    /** Checks the sizes of a nested array along its first elements (every element is checked where it is read). */
    private static void assertShape(JsonNode node, String name, int... shape) {
        JsonNode n = node;
        for (int k = 0; k < shape.length; k++) {
            assertTrue(n != null && n.isArray(), name + " is not a " + shape.length + "-deep array");
            assertEquals(shape[k], n.size(), name + " size of dimension " + k);
            n = n.size() > 0 ? n.get(0) : null;
            if (n == null) {
                return;
            }
        }
        assertTrue(!n.isArray(), name + " is deeper than " + shape.length);
    }

    private static int[] ints(JsonNode array) {
        int[] out = new int[array.size()];
        for (int x = 0; x < out.length; x++) {
            assertTrue(array.get(x).isInt(), "not an int: " + array.get(x));
            out[x] = array.get(x).asInt();
        }
        return out;
    }

    /** The brute-force token mask of every batch entry and head, and its tiles. */
    private static final class Reference {
        final Dims dims;
        final int blockQ;
        final int blockKv;
        final int nq;
        final int nkv;
        final boolean[][][][] dense;
        final TileClass[][][][] tiles;

        Reference(Mask mask, Dims dims, int blockQ, int blockKv) {
            this.dims = dims;
            this.blockQ = blockQ;
            this.blockKv = blockKv;
            nq = (dims.seqQ() + blockQ - 1) / blockQ;
            nkv = (dims.seqKv() + blockKv - 1) / blockKv;
            dense = new boolean[dims.batch()][dims.heads()][][];
            tiles = new TileClass[dims.batch()][dims.heads()][nq][nkv];
            for (int b = 0; b < dims.batch(); b++) {
                for (int h = 0; h < dims.heads(); h++) {
                    dense[b][h] = BruteForce.dense(mask, dims, b, h);
                    for (int qb = 0; qb < nq; qb++) {
                        for (int kb = 0; kb < nkv; kb++) {
                            tiles[b][h][qb][kb] = BruteForce.tile(dense[b][h], qb * blockQ, Math.min(dims.seqQ(), (qb + 1) * blockQ),
                                    kb * blockKv, Math.min(dims.seqKv(), (kb + 1) * blockKv));
                        }
                    }
                }
            }
        }
    }
}
