package saw.app.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import saw.engine.config.BlockSize;
import saw.engine.config.ConfigWriter;
import saw.engine.config.MaskConfig;
import saw.engine.config.Preset;
import saw.engine.config.Presets;
import saw.engine.config.SpecLoader;
import saw.engine.format.LayoutFormats;
import saw.engine.mask.BoundMask;
import saw.engine.mask.BruteForce;
import saw.engine.mask.Dims;
import saw.engine.mask.IntArray;
import saw.engine.mask.Mask;
import saw.engine.mask.TileClass;

class CliTest {
    /** What one run printed and returned. */
    record Run(int code, String out, String err) {
        List<String> errLines() {
            return err.lines().toList();
        }
    }

    static Run saw(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = SawCli.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Run(code, out.toString(), err.toString());
    }

    /** Exit 2 and exactly one line on stderr, which contains {@code says}, and no stack trace. */
    static void badInputInOneLine(Run r, String says) {
        assertEquals(SawCli.BAD_INPUT, r.code(), r.err());
        assertEquals(1, r.errLines().size(), r.err());
        assertTrue(r.err().contains(says), "expected \"" + says + "\" in: " + r.err());
        assertFalse(r.err().contains("Exception"), r.err());
    }

    @Test
    void envNamesTheKernelFamiliesAndRefusesASettingThatNamesNone() {
        Run r = saw("env");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("  families: compute capability 9.0 with 128x128 tiles and head dim 64 or 128: forward "),
                r.out());
        String before = System.getProperty("saw.kernel.bwd");
        try {
            System.setProperty("saw.kernel.bwd", "tma");
            Run bad = saw("env");
            assertEquals(SawCli.BAD_INPUT, bad.code(), bad.out());
            assertTrue(bad.out().contains("-Dsaw.kernel.bwd=tma is not a backward kernel family (mma or wgmma-ws)"),
                    bad.out());
            System.setProperty("saw.kernel.bwd", "wgmma-dq");
            Run folded = saw("env");
            assertEquals(SawCli.BAD_INPUT, folded.code(), "the bulk dQ is wgmma-ws now: " + folded.out());
            assertTrue(folded.out().contains("-Dsaw.kernel.bwd=wgmma-dq is not a backward kernel family (mma or wgmma-ws)"),
                    folded.out());
            System.setProperty("saw.kernel.bwd", "wgmma");
            Run retired = saw("env");
            assertEquals(SawCli.BAD_INPUT, retired.code(), "the lock-step Hopper backward is retired: " + retired.out());
            assertTrue(retired.out().contains("-Dsaw.kernel.bwd=wgmma is not a backward kernel family (mma or wgmma-ws)"),
                    retired.out());
        } finally {
            if (before == null) {
                System.clearProperty("saw.kernel.bwd");
            } else {
                System.setProperty("saw.kernel.bwd", before);
            }
        }
    }

    @Test
    void presetsListsEveryNameWithItsDescription() {
        Run r = saw("presets");
        assertEquals(SawCli.OK, r.code());
        List<String> lines = r.out().lines().toList();
        assertEquals(Presets.all().size(), lines.size());
        for (int i = 0; i < lines.size(); i++) {
            Preset p = Presets.all().get(i);
            assertTrue(lines.get(i).startsWith(p.name() + " "), lines.get(i));
            assertTrue(lines.get(i).endsWith(p.config().description()), lines.get(i));
        }
    }

    @Test
    void validateSaysOkWithTheSizes() {
        Run r = saw("validate", "preset:gemma-per-head");
        assertEquals(SawCli.OK, r.code());
        assertEquals("ok: gemma-per-head (32768 x 32768, batch 1, heads 16)\n", r.out().replace("\r\n", "\n"));
        assertEquals("", r.err());
    }

    @Test
    void validateListsEveryProblemWithItsPlace(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("bad.json");
        Files.writeString(file, """
                {
                  "schema": "saw.mask/1",
                  "name": "bad",
                  "seq_len_q": 1000,
                  "seq_len_kv": 1000,
                  "heads": 0,
                  "mask": { "and": [{ "causal": {} },
                                    { "documents": { "lengths": [600, 600] } },
                                    { "sliding_windw": { "left": 3 } }] }
                }
                """);
        Run r = saw("validate", file.toString());
        assertEquals(SawCli.BAD_INPUT, r.code());
        assertEquals("", r.out());
        assertEquals(List.of(file + ":6:12: /heads: must be an integer in 1..1024, got 0",
                file + ":9:23: /mask/and/2/sliding_windw: unknown mask \"sliding_windw\"; known masks: "
                        + "full, causal, sliding_window, chunked_causal, prefix_lm, documents, global_tokens, dilated, sinks, "
                        + "random_blocks, block_list, painted, and, or, not, per_head"), r.errLines());

        Files.writeString(file, Files.readString(file).replace("\"heads\": 0", "\"heads\": 2").replace("sliding_windw", "sliding_window"));
        Run sizes = saw("validate", file.toString());
        assertEquals(List.of(file + ":8:49: /mask/and/1/documents/lengths: document lengths sum to 1200, past the sequence length 1000"),
                sizes.errLines());
    }

    @Test
    void badInputIsOneLineAndExitTwo(@TempDir Path dir) {
        badInputInOneLine(saw("validate", dir.resolve("missing.json").toString()), "missing.json: no such file");
        badInputInOneLine(saw("validate", "preset:nope"), "unknown preset \"nope\"; known presets: causal,");
        badInputInOneLine(saw("stats"), "saw stats: Missing required parameter: 'SPEC'");
        badInputInOneLine(saw("stats", "preset:causal", "--bogus"), "saw stats: Unknown option: '--bogus'");
        badInputInOneLine(saw("stats", "preset:causal", "--block", "100x64"), "saw stats: --block: block '100x64': sizes must be powers of two in 16..512");
        badInputInOneLine(saw("stats", "preset:causal", "--block", "big"), "is not of the form QxKV");
        badInputInOneLine(saw("stats", "preset:causal", "--seq", "0"), "--seq must be in 1..16777216, got 0");
        badInputInOneLine(saw("stats", "preset:causal", "--seq", "many"), "saw stats: Invalid value for option '--seq'");
        badInputInOneLine(saw("stats", "preset:causal", "--repeat", "0"), "--repeat must be in 1..1000, got 0");
        badInputInOneLine(saw("stats", "preset:packed-documents", "--seq", "4096"),
                "saw stats: preset:packed-documents with --seq 4096: /mask/and/1/documents/lengths: document lengths sum to 32568, past the sequence length 4096");
        badInputInOneLine(saw("compile", "preset:causal"), "saw compile: Missing required option: '--format=F'");
        badInputInOneLine(saw("compile", "preset:causal", "--format", "csv"), "--format: unknown format 'csv'; known formats: flex, ejkernel, nsa, dense");
        badInputInOneLine(saw("compile", "preset:causal", "--format", "dense"), "saw compile: dense: the dense export is limited to");
        badInputInOneLine(saw("compile", "preset:causal", "--format", "flex", "-o", dir.toString()), "is a folder");
        badInputInOneLine(saw("frobnicate"), "Unmatched argument");
    }

    @Test
    void anInternalErrorIsExitOneWithoutAStackTrace() {
        StringWriter err = new StringWriter();
        CommandLine cl = SawCli.commandLine();
        cl.setErr(new PrintWriter(err, true));
        int code = CliErrors.failed(new IllegalStateException("broken invariant"), cl, null);
        assertEquals(SawCli.INTERNAL_ERROR, code);
        assertTrue(err.toString().startsWith("saw: internal error: java.lang.IllegalStateException: broken invariant"), err.toString());
        assertFalse(err.toString().contains("\tat "), err.toString());
    }

    @Test
    void statsMatchBruteForceOnPresetsAtSmallSizes() throws Exception {
        for (String preset : List.of("causal", "sliding-window", "llama4-chunked", "longformer", "bigbird", "streamingllm",
                "dilated", "gemma-per-head")) {
            checkStats(new String[] {"stats", "preset:" + preset, "--seq", "300", "--block", "64x32", "--repeat", "2"},
                    SpecLoader.load("preset:" + preset).withSeq(300).withBlock(new BlockSize(64, 32)));
        }
    }

    @Test
    void statsMatchBruteForceWithBatchesHeadsAndRaggedSizes(@TempDir Path dir) throws Exception {
        Mask documents = new Mask.Documents(List.of(new Mask.Lengths(IntArray.of(100, 57, 140)),
                new Mask.SegmentIds(IntArray.range(0, 250).sortedDistinct(), IntArray.range(0, 310))));
        Mask mask = Mask.And.of(new Mask.Causal(60), new Mask.PerHead(List.of(documents,
                Mask.Or.of(new Mask.Sinks(3), new Mask.SlidingWindow(40, 0)),
                new Mask.Not(new Mask.BlockList(32, 64, List.of(IntArray.of(0, 2), IntArray.of(), IntArray.of(4)))))));
        MaskConfig config = new MaskConfig("ragged", "", 250, 310, 2, 3, new BlockSize(32, 64), mask);
        Path file = dir.resolve("ragged.json");
        ConfigWriter.write(config, file);
        checkStats(new String[] {"stats", file.toString()}, config);
    }

    /**
     * Every command that names a config takes a one-line mask at --seq as verify does: seeded random expressions, each
     * with the mask built here from the same numbers, checked against brute force through saw stats.
     */
    @Test
    void statsOfOneLineMasksMatchBruteForce() throws Exception {
        java.util.Random rnd = new java.util.Random(20261208);
        String[] blocks = {"32x32", "64x32", "64x64", "32x64"};
        for (int trial = 0; trial < 24; trial++) {
            int s = 64 + rnd.nextInt(600);
            int left = 1 + rnd.nextInt(200);
            int right = rnd.nextInt(40);
            int[] lengths = new int[1 + rnd.nextInt(5)];
            int used = 0;
            for (int i = 0; i < lengths.length; i++) {
                lengths[i] = 1 + rnd.nextInt(Math.max(1, (s - used) / 2));
                used += lengths[i];
            }
            String docs = java.util.Arrays.stream(lengths).mapToObj(Integer::toString)
                    .collect(java.util.stream.Collectors.joining(","));
            int sinks = 1 + rnd.nextInt(6);
            int chunk = 1 + rnd.nextInt(300);
            int offset = rnd.nextInt(100) - 50;
            String expr;
            Mask mask;
            switch (trial % 6) {
                case 0 -> {
                    expr = "causal(" + offset + ")";
                    mask = new Mask.Causal(offset);
                }
                case 1 -> {
                    expr = "window(" + left + "," + right + ")";
                    mask = new Mask.SlidingWindow(left, right);
                }
                case 2 -> {
                    expr = "and(causal, docs(" + docs + "))";
                    mask = Mask.And.of(new Mask.Causal(0), Mask.Documents.ofLengths(lengths));
                }
                case 3 -> {
                    expr = "or(window(" + left + "),sinks(" + sinks + "))";
                    mask = Mask.Or.of(new Mask.SlidingWindow(left, 0), new Mask.Sinks(sinks));
                }
                case 4 -> {
                    expr = "heads(causal,not(window(" + left + ")),chunked(" + chunk + "))";
                    mask = new Mask.PerHead(List.of(new Mask.Causal(0), new Mask.Not(new Mask.SlidingWindow(left, 0)),
                            new Mask.ChunkedCausal(chunk)));
                }
                default -> {
                    expr = "and(prefix(" + chunk + "),not(docs(" + docs + ")))";
                    mask = Mask.And.of(new Mask.PrefixLm(chunk), new Mask.Not(Mask.Documents.ofLengths(lengths)));
                }
            }
            String block = blocks[rnd.nextInt(blocks.length)];
            int heads = mask instanceof Mask.PerHead mix ? mix.variants().size() : 1;
            checkStats(new String[] {"stats", expr, "--seq", Integer.toString(s), "--block", block, "--repeat", "1"},
                    new MaskConfig(expr, "", s, s, 1, heads, BlockSize.parse(block), mask));
        }
    }

    @Test
    void oneLineMasksNeedSeqAndSayWhatDoesNotParseOrFit() {
        badInputInOneLine(saw("stats", "and(causal,docs(300,500))"),
                "saw stats: --seq is required with a one-line mask (a config file or preset gives its own)");
        badInputInOneLine(saw("stats", "and(causal,dcs(3))", "--seq", "800"),
                "saw stats: mask expression 'and(causal,dcs(3))', at character 12: unknown mask 'dcs'");
        badInputInOneLine(saw("compile", "and(causal,docs(300,900))", "--seq", "800", "--format", "flex"),
                "saw compile: and(causal,docs(300,900)) at --seq 800: /mask/and/1/documents/lengths: document lengths sum to "
                        + "1200, past the sequence length 800");
        badInputInOneLine(saw("validate", "window(64)", "--seq", "0"), "saw validate: --seq must be in 1..16777216, got 0");
        badInputInOneLine(saw("dump", "causal", "--out", "x"), "--seq is required with a one-line mask");
        Run ok = saw("validate", "heads(causal,window(64))", "--seq", "1000");
        assertEquals(SawCli.OK, ok.code(), ok.err());
        assertEquals("ok: heads(causal,window(64)) (1000 x 1000, batch 1, heads 2)\n", ok.out().replace("\r\n", "\n"));
    }

    /** Runs {@code args} and checks every number against brute force over {@code expected}. */
    private static void checkStats(String[] args, MaskConfig expected) throws Exception {
        Run r = saw(args);
        assertEquals(SawCli.OK, r.code(), r.err());
        JsonNode stats = new ObjectMapper().readTree(r.out());
        Dims d = expected.dims();
        int bq = expected.block().q();
        int bkv = expected.block().kv();
        int nq = (d.seqQ() + bq - 1) / bq;
        int nkv = (d.seqKv() + bkv - 1) / bkv;
        long[] tiles = new long[3];
        long pairs = 0;
        for (int b = 0; b < d.batch(); b++) {
            for (int h = 0; h < d.heads(); h++) {
                boolean[][] dense = BruteForce.dense(expected.mask(), d, b, h);
                for (boolean[] row : dense) {
                    for (boolean x : row) {
                        pairs += x ? 1 : 0;
                    }
                }
                for (int qb = 0; qb < nq; qb++) {
                    for (int kb = 0; kb < nkv; kb++) {
                        TileClass c = BruteForce.tile(dense, qb * bq, Math.min(d.seqQ(), (qb + 1) * bq),
                                kb * bkv, Math.min(d.seqKv(), (kb + 1) * bkv));
                        tiles[c.ordinal()]++;
                    }
                }
            }
        }
        String what = String.join(" ", args) + ": " + r.out();
        assertEquals(List.of("seq_len_q", "seq_len_kv", "block_q", "block_kv", "batch", "heads", "num_q_blocks", "num_kv_blocks",
                "tiles", "attended_pairs", "token_density", "block_density", "compile_ms"), fieldNames(stats), what);
        assertEquals(d.seqQ(), stats.get("seq_len_q").asInt(), what);
        assertEquals(d.seqKv(), stats.get("seq_len_kv").asInt(), what);
        assertEquals(bq, stats.get("block_q").asInt(), what);
        assertEquals(bkv, stats.get("block_kv").asInt(), what);
        assertEquals(d.batch(), stats.get("batch").asInt(), what);
        assertEquals(d.heads(), stats.get("heads").asInt(), what);
        assertEquals(nq, stats.get("num_q_blocks").asInt(), what);
        assertEquals(nkv, stats.get("num_kv_blocks").asInt(), what);
        assertEquals(tiles[TileClass.EMPTY.ordinal()], stats.get("tiles").get("empty").asLong(), what);
        assertEquals(tiles[TileClass.PARTIAL.ordinal()], stats.get("tiles").get("partial").asLong(), what);
        assertEquals(tiles[TileClass.FULL.ordinal()], stats.get("tiles").get("full").asLong(), what);
        assertEquals(pairs, stats.get("attended_pairs").asLong(), what);
        long all = (long) d.batch() * d.heads();
        assertEquals(pairs / ((double) all * d.seqQ() * d.seqKv()), stats.get("token_density").asDouble(), 1e-12, what);
        assertEquals((tiles[1] + tiles[2]) / (double) (all * nq * nkv), stats.get("block_density").asDouble(), 1e-12, what);
        assertTrue(stats.get("compile_ms").isNumber() && stats.get("compile_ms").asDouble() >= 0, what);
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new java.util.ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    @Test
    void compileWritesTheFormatToStdoutOrAtomicallyToAFile(@TempDir Path dir) throws Exception {
        MaskConfig config = SpecLoader.load("preset:bigbird").withSeq(512);
        var layout = BoundMask.bind(config.mask(), config.dims()).compile(64, 64);
        for (var format : LayoutFormats.all()) {
            ByteArrayOutputStream direct = new ByteArrayOutputStream();
            format.write(layout, direct);

            Run stdout = saw("compile", "preset:bigbird", "--seq", "512", "--format", format.name());
            assertEquals(SawCli.OK, stdout.code(), stdout.err());
            assertEquals(direct.toString(StandardCharsets.UTF_8), stdout.out(), format.name());

            Path file = dir.resolve(format.name() + ".json");
            Files.writeString(file, "old content");
            Run toFile = saw("compile", "preset:bigbird", "--seq", "512", "--block", "64x64", "--format", format.name(), "-o", file.toString());
            assertEquals(SawCli.OK, toFile.code(), toFile.err());
            assertEquals("", toFile.out());
            assertArrayEquals(direct.toByteArray(), Files.readAllBytes(file), format.name());
        }
        try (var files = Files.list(dir)) {
            assertEquals(LayoutFormats.all().size(), files.count(), "temporary files were left behind");
        }
    }
}
