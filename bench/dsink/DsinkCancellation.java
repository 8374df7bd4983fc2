// How far bf16 storage of O alone moves dSink on bwd-frontier.sh's --sinks case
// (or(sinks(16),and(causal,not(window(300)))) --seq 1000 --seq-kv 1500 --heads 2 --head-dim 64 --dtype bf16 --sinks),
// seeds 1..N as saw verify draws them. dSink[h] = -sum over rows of exp(sink - LSE) rowsum(dO O) is formed with the
// fp64 reference's O rounded to bf16 the way the GPU stores it (the forward's output, then sink_apply's rescale) and
// nothing else wrong, and compared with the reference's dSink as saw verify does (relative L2 over the heads).
// Prints, per seed, that error, O's rounding error and the sum's cancellation (sum of |terms| / |sum|) per head.
// Run (after building the engine): java -cp engine/target/classes bench/dsink/DsinkCancellation.java 40
import java.nio.FloatBuffer;
import java.util.Arrays;
import java.util.List;
import saw.engine.attention.AttentionInputs;
import saw.engine.attention.AttentionOutputs;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.cpu.ReferenceAttention;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;

public class DsinkCancellation {
    static final int SQ = 1000;
    static final int SKV = 1500;
    static final int H = 2;
    static final int D = 64;

    /** Round to the nearest bf16, ties to even (finite values). */
    static float bf16(double x) {
        int b = Float.floatToRawIntBits((float) x);
        return Float.intBitsToFloat((b + 0x7fff + ((b >> 16) & 1)) & 0xffff0000);
    }

    public static void main(String[] args) {
        int seeds = args.length > 0 ? Integer.parseInt(args[0]) : 40;
        AttentionProblem p = AttentionProblem.of(1, H, H, SQ, SKV, D, DType.BF16);
        Mask m = new Mask.Or(List.of(new Mask.Sinks(16),
                new Mask.And(List.of(new Mask.Causal(0), new Mask.Not(new Mask.SlidingWindow(300, 0))))));
        BoundMask mask = BoundMask.bind(m, new Dims(SQ, SKV, 1, H));
        double[] errors = new double[seeds];
        int above = 0;
        for (int seed = 1; seed <= seeds; seed++) {
            float[] sinks = AttentionInputs.randomSinks(H, seed);
            AttentionInputs in = AttentionInputs.random(p, seed, true).withSinks(sinks);
            AttentionOutputs ref = ReferenceAttention.compute(in, mask, true);
            FloatBuffer o = ref.get(AttentionOutputs.Output.O);
            FloatBuffer lse = ref.get(AttentionOutputs.Output.LSE);
            FloatBuffer dsink = ref.get(AttentionOutputs.Output.DSINK);
            FloatBuffer dO = in.dO();
            double diff = 0;
            double norm = 0;
            double oDiff = 0;
            double oNorm = 0;
            StringBuilder heads = new StringBuilder();
            for (int h = 0; h < H; h++) {
                double sum = 0;
                double sumAbs = 0;
                for (int r = 0; r < SQ; r++) {
                    int row = h * SQ + r;
                    double l = lse.get(row);
                    double w = Math.exp(sinks[h] - l);
                    double factor = 1 - w;  // sink_apply's exp(LSE without the sink - LSE with it)
                    double rowSum = 0;
                    for (int x = 0; x < D; x++) {
                        double exact = o.get(row * D + x);
                        float stored = bf16(bf16(exact / factor) * (float) factor);
                        rowSum += dO.get(row * D + x) * (double) stored;
                        oDiff += (stored - exact) * (stored - exact);
                        oNorm += exact * exact;
                    }
                    sum -= w * rowSum;
                    sumAbs += Math.abs(w * rowSum);
                }
                double r = dsink.get(h);
                diff += (sum - r) * (sum - r);
                norm += r * r;
                heads.append(String.format("  h%d dSink %.4f (ref %.4f) cancellation %.1f", h, sum, r, sumAbs / Math.abs(r)));
            }
            errors[seed - 1] = Math.sqrt(diff / norm);
            above += errors[seed - 1] > DType.BF16.tolerance() ? 1 : 0;
            System.out.printf("seed %d  dSink rel %.2e  O rel %.2e%s%n", seed, errors[seed - 1], Math.sqrt(oDiff / oNorm), heads);
        }
        Arrays.sort(errors);
        System.out.printf("%d seeds: dSink rel median %.2e, p90 %.2e, max %.2e; above %.0e: %d%n", seeds, errors[seeds / 2],
                errors[(int) (seeds * 0.9)], errors[seeds - 1], DType.BF16.tolerance(), above);
    }
}
