package saw.engine.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import saw.engine.attention.DType;
import saw.engine.attention.KernelTiles;
import saw.engine.attention.Pass;
import saw.engine.mask.Mask;

class SweepTest {
    static final String WINDOWED_DOCS = """
            { "schema": "saw.mask/1", "name": "docs + window", "seq_len_q": 512, "seq_len_kv": 512, "batch": 1, "heads": 2,
              "block": { "q": 64, "kv": 64 },
              "mask": { "and": [ { "causal": {} },
                                 { "sliding_window": { "left": 100, "right": 0 } },
                                 { "documents": { "lengths": [200, 50] } } ] } }
            """;

    static JsonNode tree(String json) throws Exception {
        return ResultsJson.MAPPER.readTree(json);
    }

    static Sweep sweep(List<Vary> vary, List<Double> densities, List<Integer> seqs) throws Exception {
        return new Sweep("docs.json", tree(WINDOWED_DOCS), vary, densities, seqs,
                List.of(new KernelTiles(64, 64), new KernelTiles(128, 64)), List.of(Pass.FWD, Pass.BWD), 2, 0, 1,
                List.of(16), DType.BF16, 11);
    }

    @Test
    void varyEditsTheConfigAtThePointerForEveryPoint() throws Exception {
        List<SweepPoint> points = sweep(List.of(Vary.parse("/mask/and/1/sliding_window/left=32,256"),
                Vary.parse("/mask/and/2/documents/lengths/0=100,200")), List.of(), List.of(256, 512)).points();
        // 2 x 2 vary values, 2 seqs, 2 tiles, 2 passes
        assertEquals(32, points.size());
        SweepPoint p = points.get(0);
        assertEquals("docs + window", p.config());
        assertEquals(List.of("/mask/and/1/sliding_window/left", "/mask/and/2/documents/lengths/0"), new ArrayList<>(p.varied().keySet()));
        assertEquals(2, p.problem().batch());
        assertEquals(2, p.problem().heads(), "heads from the config");
        assertEquals(1, p.problem().kvHeads());
        for (SweepPoint q : points) {
            Mask.And and = (Mask.And) q.mask();
            assertEquals(q.varied().get("/mask/and/1/sliding_window/left").intValue(), ((Mask.SlidingWindow) and.children().get(1)).left());
            assertEquals(q.varied().get("/mask/and/2/documents/lengths/0").intValue(),
                    ((Mask.Lengths) ((Mask.Documents) and.children().get(2)).perBatch().get(0)).lengths().get(0));
        }
        assertEquals(List.of(256, 256, 256, 256, 512, 512, 512, 512), points.subList(0, 8).stream().map(x -> x.problem().seqQ()).toList());
        assertEquals(List.of(Pass.FWD, Pass.BWD), points.subList(0, 2).stream().map(SweepPoint::pass).toList());
    }

    @Test
    void valuesTheConfigRefusesAreReportedWithThePathBeforeAnythingRuns() throws Exception {
        BadSweep tooLong = assertThrows(BadSweep.class, () -> sweep(List.of(Vary.parse("/mask/and/2/documents/lengths/1=400")),
                List.of(), List.of()).points());
        assertTrue(tooLong.getMessage().startsWith("docs.json with /mask/and/2/documents/lengths/1=400: /mask/and/2/documents"),
                tooLong.getMessage());
        BadSweep negative = assertThrows(BadSweep.class, () -> sweep(List.of(Vary.parse("/mask/and/1/sliding_window/left=-5")),
                List.of(), List.of()).points());
        assertTrue(negative.getMessage().contains("/mask/and/1/sliding_window"), negative.getMessage());
    }

    @Test
    void badPointersNameThePathAndWhatIsThere() throws Exception {
        assertEquals("--vary /mask/and/7/causal/offset: /mask/and is an array of 3 elements; '7' is not an index in it",
                message("/mask/and/7/causal/offset=1"));
        assertEquals("--vary /mask/and/0/causal/offst: /mask/and/0/causal has no field 'offst' (it has: )",
                message("/mask/and/0/causal/offst=1"));
        assertEquals("--vary /mask/or/0/causal/offset: /mask has no field 'or' (it has: and)",
                message("/mask/or/0/causal/offset=1"));
        assertEquals("--vary /name: the value there is a string, not a number; --vary sweeps numeric fields", message("/name=3"));
        assertEquals("--vary /mask/and/1/sliding_window/left: the field holds a whole number; 2.5 is not one",
                message("/mask/and/1/sliding_window/left=2.5"));
        assertEquals("--vary /mask/and: the value there is an array, not a number; --vary sweeps numeric fields",
                message("/mask/and=1"));
        assertEquals("--vary /seq_len_q/x: /seq_len_q is a number; there is nothing inside it", message("/seq_len_q/x=1"));
        assertEquals("--vary /nme: the config has no field 'nme' (it has: schema, name, seq_len_q, seq_len_kv, batch, heads, block, mask)",
                message("/nme=1"));
        IllegalArgumentException syntax = assertThrows(IllegalArgumentException.class, () -> Vary.parse("mask/x=1"));
        assertTrue(syntax.getMessage().contains("must start with '/'"), syntax.getMessage());
        IllegalArgumentException value = assertThrows(IllegalArgumentException.class, () -> Vary.parse("/mask/x=1,two"));
        assertEquals("--vary /mask/x: 'two' is not a number", value.getMessage());
    }

    private static String message(String vary) throws Exception {
        return assertThrows(BadSweep.class, () -> sweep(List.of(Vary.parse(vary)), List.of(), List.of()).points()).getMessage();
    }

    @Test
    void densitySweepTileCountsGrowWithDensity() throws Exception {
        List<SweepPoint> points = sweep(List.of(), List.of(0.05, 0.25, 0.5, 0.75, 1.0), List.of(1024)).points();
        assertEquals(5 * 2 * 2, points.size());
        List<BenchRow> rows = new ArrayList<>();
        new SweepRunner(new TileWorkBackend(-1), new SweepRunner.Settings(0, 1, 1)).run(points, (r, p) -> rows.add(r), () -> false);
        for (KernelTiles t : List.of(new KernelTiles(64, 64), new KernelTiles(128, 64))) {
            List<BenchRow> fwd = rows.stream().filter(r -> r.tiles().equals(t) && r.pass() == Pass.FWD).toList();
            assertEquals(5, fwd.size());
            for (int i = 1; i < fwd.size(); i++) {
                TileStats a = fwd.get(i - 1).stats();
                TileStats b = fwd.get(i).stats();
                assertTrue(b.full() >= a.full() && b.empty() <= a.empty() && b.partial() == 0, a + " then " + b);
                assertTrue(b.blockDensity() > a.blockDensity(), a + " then " + b);
                assertEquals(Sweep.RANDOM_BLOCKS, fwd.get(i).config());
            }
            assertEquals(1.0, fwd.get(4).stats().blockDensity());
            assertEquals(0.05, fwd.get(0).stats().blockDensity(), 0.02);
        }
    }
}
