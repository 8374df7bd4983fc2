import saw.engine.nsa.*;
public class ShareCount {
    public static void main(String[] a) throws Exception {
        int T = Integer.parseInt(a[0]);
        NsaSelection sel = a.length > 1 && a[1].equals("scored") ? NsaSelections.scored(1, T, 4, 16, 64, 128, 7) : NsaSelections.random(1, T, 4, 16, 64, 7);
        for (int n : new int[]{1, 4, 8, 16, 32, 64, 128, 256}) {
            NsaStats st = NsaStats.of(sel, n);
            System.out.printf("T=%d %s tile %3d tokens: distinct %.1f, sharing %.2f, chosen/tile %.1f%n", T, a.length > 1 ? a[1] : "random", n, st.meanDistinctBlocks(), st.meanSharing(), (double) st.chosenBlocks() / st.tiles());
        }
    }
}
