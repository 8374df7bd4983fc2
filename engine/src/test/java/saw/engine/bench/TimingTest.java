package saw.engine.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class TimingTest {
    @Test
    void percentilesInterpolateBetweenClosestRanks() {
        Timing t = Timing.of(new double[] {5, 1, 4, 2, 3});
        assertEquals(3, t.medianMs(), 1e-12);
        assertEquals(1.4, t.p10Ms(), 1e-12);
        assertEquals(4.6, t.p90Ms(), 1e-12);
        assertEquals(5, t.reps());
        Timing even = Timing.of(new double[] {10, 40, 20, 30});
        assertEquals(25, even.medianMs(), 1e-12);
        assertEquals(13, even.p10Ms(), 1e-12);
        assertEquals(37, even.p90Ms(), 1e-12);
    }

    @Test
    void randomSamplesObeyTheDefinitionOfPercentiles() {
        long seed = new SplittableRandom().nextLong();
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int trial = 0; trial < 2000; trial++) {
            int n = 1 + rnd.nextInt(60);
            double[] x = new double[n];
            for (int i = 0; i < n; i++) {
                x[i] = rnd.nextInt(4) == 0 ? rnd.nextInt(5) : rnd.nextDouble() * 100;
            }
            double[] sorted = x.clone();
            Arrays.sort(sorted);
            Timing t = Timing.of(x);
            String ctx = "seed " + seed + " trial " + trial + " samples " + Arrays.toString(x);
            double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
            assertEquals(median, t.medianMs(), 1e-9 * (1 + Math.abs(median)), ctx);
            assertTrue(sorted[0] <= t.p10Ms() && t.p10Ms() <= t.medianMs() && t.medianMs() <= t.p90Ms()
                    && t.p90Ms() <= sorted[n - 1], ctx);
            // the fraction of samples strictly below the p-th percentile is at most p (and at least p - 1/n)
            for (double p : new double[] {10, 90}) {
                double v = Timing.percentile(sorted, p);
                long below = Arrays.stream(sorted).filter(s -> s < v).count();
                long atOrBelow = Arrays.stream(sorted).filter(s -> s <= v).count();
                assertTrue(below <= Math.ceil(p / 100 * (n - 1)) && atOrBelow >= Math.floor(p / 100 * (n - 1)) + 1, ctx + " p" + p);
            }
            double[] shuffled = x.clone();
            for (int i = n - 1; i > 0; i--) {
                int j = rnd.nextInt(i + 1);
                double tmp = shuffled[i];
                shuffled[i] = shuffled[j];
                shuffled[j] = tmp;
            }
            assertEquals(t, Timing.of(shuffled), ctx);
        }
    }

    @Test
    void badSamplesAreRefusedWithTheValue() {
        assertThrows(IllegalArgumentException.class, () -> Timing.of(new double[0]));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Timing.of(new double[] {1, Double.NaN}));
        assertTrue(e.getMessage().contains("NaN"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Timing.of(new double[] {-1}));
    }
}
