package saw.ui.nsa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.TileLayout;
import saw.engine.nsa.BadSelection;
import saw.engine.nsa.NsaSelection;
import saw.engine.nsa.NsaSelections;

class TileSelectionTest {
    @Test
    void rowsAreTokensColumnsTheirDistinctBlocksAndSharingCountsTokens() throws BadSelection {
        NsaSelection sel = NsaSelections.random(1, 400, 2, 4, 32, 9);
        TileSelection t = TileSelection.of(sel, 0, 1, 128, 192);
        int[] buf = new int[4];
        long choices = 0;
        for (int tok = 128; tok < 192; tok++) {
            int n = sel.blocks(0, tok, 1, buf);
            choices += n;
            int found = 0;
            for (int c = 0; c < t.blocks().length; c++) {
                if (t.chose(tok - 128, c)) {
                    found++;
                    boolean listed = false;
                    for (int s = 0; s < n; s++) {
                        listed |= buf[s] == t.blocks()[c];
                    }
                    assertTrue(listed, "token " + tok + " column " + c);
                }
            }
            assertEquals(n, found, "token " + tok);
        }
        int sum = 0;
        for (int s : t.sharedBy()) {
            sum += s;
        }
        assertEquals(choices, sum);
        assertEquals((double) choices / t.blocks().length, t.sharing(), 1e-12);
        // tokens 128..159 all take their own block 4 (and later tokens may choose it too)
        int own4 = java.util.Arrays.binarySearch(t.blocks(), 4);
        assertTrue(t.sharedBy()[own4] >= 32, "block 4 shared by " + t.sharedBy()[own4]);
    }

    @Test
    void theMaskSourceGivesTheMasksBlocksAndLargeOnesAreRefused() {
        TileLayout causal = BoundMask.bind(new Mask.Causal(0), Dims.square(300)).compile(64, 64);
        NsaModel.Result r = NsaModel.make(causal, NsaModel.Source.MASK, 16, 1, 0);
        assertNull(r.failure());
        assertNotNull(r.stats());
        TileSelection t = TileSelection.of(r.selection(), 0, 0, 256, 300);
        assertArrayEquals(new int[] {0, 1, 2, 3, 4}, t.blocks());
        assertEquals(causal.dims().seqQ() * (long) (causal.dims().seqQ() + 1) / 2, r.stats().selectedPairs());
        TileLayout big = BoundMask.bind(new Mask.Causal(0), Dims.square(1 << 22)).compile(128, 128);
        NsaModel.Result refused = NsaModel.make(big, NsaModel.Source.RANDOM, 64, 1, 0);
        assertTrue(refused.failure().startsWith("too large to show here"), refused.failure());
    }
}
