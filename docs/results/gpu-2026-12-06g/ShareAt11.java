// Thirty-third session: the shared walk's sharing (choices per distinct block over 11-token tiles, the number
// NsaGpu.Forward.auto compares with 2.5) and chunk counts for every row the calls timed, from saw's own generators (seed 0,
// as `saw bench` draws them). Run: javac -cp ENGINE_JAR ShareAt11.java && java -cp ENGINE_JAR:. ShareAt11 (output in
// share-at-11.txt).
import saw.engine.nsa.*;
public class ShareAt11 {
  public static void main(String[] a) throws Exception {
    String[][] rows = {{"scored","1","32768","64","1.32"},{"random","1","32768","64","0.74"},{"scored","1","65536","64","1.23"},
      {"scored","4","16384","64","1.39"},{"scored","1","8192","64","1.48"},{"random","1","8192","64","1.09"},{"random","1","16384","64","0.87"},
      {"scored","1","16384","64","1.36"},{"scored","1","32768","32","1.10"},{"scored","1","32768","128","1.44"},{"random","1","65536","64","?"},
      {"random","4","16384","64","?"},{"random","2","65536","64","?"}};
    for (String[] r : rows) {
      int b = Integer.parseInt(r[1]), t = Integer.parseInt(r[2]), bs = Integer.parseInt(r[3]);
      NsaSelection sel = r[0].equals("random") ? NsaSelections.random(b, t, 4, 16, bs, 0) : NsaSelections.scored(b, t, 4, 16, bs, 16, 0);
      int tile = 11; long pairs = 0, union = 0, chunksTok = 0, chunksUnion = 0;
      int nb = sel.numKvBlocks(); int[] mask = new int[nb]; int[] tmaxA = new int[nb]; int[] touched = new int[tile * 16];
      for (int bb = 0; bb < b; bb++) for (int h = 0; h < 4; h++) for (int t0 = 0; t0 < t; t0 += tile) {
        int used = 0;
        for (int w = 0; w < tile && t0 + w < t; w++) { int tok = t0 + w; int c = sel.count(bb, tok, h);
          for (int s = 0; s < c; s++) { int kb = sel.block(bb, tok, h, s); if (kb < 0 || (long) kb * bs > tok) continue;
            pairs++; chunksTok += (Math.min(kb * bs + bs, tok + 1) - kb * bs + 31) / 32;
            if (mask[kb] == 0) touched[used++] = kb; mask[kb] |= 1 << w; tmaxA[kb] = tok; } }
        for (int i = 0; i < used; i++) { int kb = touched[i]; union++; chunksUnion += (Math.min(kb * bs + bs, tmaxA[kb] + 1) - kb * bs + 31) / 32; mask[kb] = 0; }
      }
      System.out.printf("%-6s B=%s T=%-6s block %-3s w11/warp %-5s sharing11 %.2f  chunk sharing11 %.2f  union chunks per token %.2f  chosen chunks per token %.2f%n",
        r[0], r[1], r[2], r[3], r[4], (double) pairs / union, (double) chunksTok / chunksUnion, chunksUnion * 1.0 / (b * 4L * t), chunksTok * 1.0 / (b * 4L * t));
    }
  }
}
