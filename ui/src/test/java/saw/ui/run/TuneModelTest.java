package saw.ui.run;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import saw.engine.attention.AttentionProblem;
import saw.engine.attention.DType;
import saw.engine.attention.KernelTiles;
import saw.engine.attention.Pass;
import saw.engine.mask.BoundMask;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.tune.Candidate;
import saw.engine.tune.MaskSignature;
import saw.engine.tune.TuneChoice;
import saw.engine.tune.TuneKey;

class TuneModelTest {
    @Test
    void recommendedTileNamesTheCachedWinnerOfThisMaskOnly() {
        AttentionProblem p = AttentionProblem.of(1, 16, 16, 8192, 8192, 128, DType.BF16);
        BoundMask causal = BoundMask.bind(new Mask.Causal(0), new Dims(8192, 8192, 1, 16));
        BoundMask window = BoundMask.bind(new Mask.SlidingWindow(256, 0), new Dims(8192, 8192, 1, 16));
        Map<String, TuneChoice> entries = new LinkedHashMap<>();
        entries.put(TuneKey.of("NVIDIA H200|cc9.0|driver 13000|kernels ab", Pass.FWD, p, false, MaskSignature.of(causal)).asString(),
                new TuneChoice(new Candidate(new KernelTiles(128, 128), "wgmma-pp"), 1.0, 1.1, 1.25, "t"));
        assertEquals("fwd 128x128 wgmma-pp (1.25x the default, NVIDIA H200)", TuneModel.recommended(entries, p, causal, false));
        assertEquals("not tuned for this mask and shape", TuneModel.recommended(entries, p, window, false));
    }

    @Test
    void withLearnedSinksTheRecommendationIsTheSinksEntry() {
        AttentionProblem p = AttentionProblem.of(1, 16, 16, 8192, 8192, 128, DType.BF16);
        BoundMask causal = BoundMask.bind(new Mask.Causal(0), new Dims(8192, 8192, 1, 16));
        String device = "NVIDIA H200|cc9.0|driver 13000|kernels ab";
        Map<String, TuneChoice> entries = new LinkedHashMap<>();
        entries.put(TuneKey.of(device, Pass.FWD, p, false, MaskSignature.of(causal)).asString(),
                new TuneChoice(new Candidate(new KernelTiles(128, 128), "wgmma-pp"), 1.0, 1.1, 1.25, "t"));
        assertEquals("not tuned for this mask and shape with learned sinks", TuneModel.recommended(entries, p, causal, true));
        entries.put(TuneKey.of(device, Pass.FWD, p, true, MaskSignature.of(causal)).asString(),
                new TuneChoice(new Candidate(new KernelTiles(128, 64), "mma"), 1.0, 1.1, 1.10, "t"));
        assertEquals("fwd 128x64 mma (1.10x the default, NVIDIA H200)", TuneModel.recommended(entries, p, causal, true));
        assertEquals("fwd 128x128 wgmma-pp (1.25x the default, NVIDIA H200)", TuneModel.recommended(entries, p, causal, false));
    }
}
