package saw.engine.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;
import saw.engine.mask.IntArray;
import saw.engine.mask.Mask;

class ConfigReaderTest {
    /** A valid config around {@code mask}, which starts on line 9, column 11. */
    static String withMask(String mask) {
        return """
                {
                  "schema": "saw.mask/1",
                  "name": "t",
                  "seq_len_q": 1000,
                  "seq_len_kv": 1200,
                  "batch": 2,
                  "heads": 4,
                  "block": { "q": 64, "kv": 64 },
                  "mask": %s
                }
                """.formatted(mask);
    }

    /** The valid config with line {@code line} (1-based) replaced. */
    static String withLine(int line, String text) {
        List<String> lines = new ArrayList<>(withMask("{ \"causal\": {} }").lines().toList());
        lines.set(line - 1, text);
        return String.join("\n", lines);
    }

    static Stream<Arguments> rejections() {
        return Stream.of(
                // rule, config, path, line, column (0 = not checked), what the message says
                Arguments.of("unknown top-level key", withLine(7, "  \"heads\": 4, \"colour\": 1,"), "/colour", 7, 15, "unknown key \"colour\"; a config takes schema, name"),
                Arguments.of("duplicate key", withLine(7, "  \"heads\": 4, \"heads\": 8,"), "/heads", 7, 15, "duplicate key \"heads\""),
                Arguments.of("missing required key", withLine(5, ""), "", 1, 1, "missing required key \"seq_len_kv\""),
                Arguments.of("wrong type", withLine(4, "  \"seq_len_q\": \"1000\","), "/seq_len_q", 4, 16, "must be an integer in 1..16777216, got a string"),
                Arguments.of("fraction", withLine(4, "  \"seq_len_q\": 1000.5,"), "/seq_len_q", 4, 16, "got 1000.5 (not an integer)"),
                Arguments.of("sequence over 2^24", withLine(5, "  \"seq_len_kv\": 16777217,"), "/seq_len_kv", 5, 17, "must be an integer in 1..16777216, got 16777217"),
                Arguments.of("zero batch", withLine(6, "  \"batch\": 0,"), "/batch", 6, 12, "must be an integer in 1..1024, got 0"),
                Arguments.of("negative heads", withLine(7, "  \"heads\": -3,"), "/heads", 7, 12, "got -3"),
                Arguments.of("huge integer", withLine(7, "  \"heads\": 123456789012345678901234567890,"), "/heads", 7, 12, "got 123456789012345678901234567890"),
                Arguments.of("block not a power of two", withLine(8, "  \"block\": { \"q\": 100, \"kv\": 64 },"), "/block/q", 8, 19, "block size 100 is not a power of two in 16..512"),
                Arguments.of("block too large", withLine(8, "  \"block\": { \"q\": 64, \"kv\": 1024 },"), "/block/kv", 8, 0, "block size 1024 is not a power of two in 16..512"),
                Arguments.of("block too small", withLine(8, "  \"block\": { \"q\": 8, \"kv\": 64 },"), "/block/q", 8, 0, "block size 8 is not"),
                Arguments.of("block missing kv", withLine(8, "  \"block\": { \"q\": 64 },"), "/block", 8, 12, "block needs \"kv\""),
                Arguments.of("wrong schema", withLine(2, "  \"schema\": \"saw.mask/0\","), "/schema", 2, 13, "schema must be \"saw.mask/1\", got \"saw.mask/0\""),
                Arguments.of("blank name", withLine(3, "  \"name\": \"  \","), "/name", 3, 11, "must not be blank"),
                Arguments.of("name not a string", withLine(3, "  \"name\": [\"t\"],"), "/name", 3, 11, "must be a string, got an array"),
                Arguments.of("null value", withLine(6, "  \"batch\": null,"), "/batch", 6, 12, "got null"),
                Arguments.of("not an object", "[1, 2]", "", 1, 1, "a saw.mask/1 config is a JSON object, got an array"),
                Arguments.of("empty file", "  ", "", 1, 1, "the file is empty"),
                Arguments.of("content after the object", withMask("{ \"causal\": {} }") + "{}", "", 11, 1, "unexpected content after the config object"),
                Arguments.of("truncated", withMask("{ \"causal\": {} }").substring(0, 80), "/seq_len_kv", 5, 17, "not valid JSON: Unexpected end-of-input"),
                Arguments.of("syntax error", withLine(6, "  \"batch\": 2,,"), "/batch", 6, 14, "not valid JSON"),
                Arguments.of("NaN", withLine(6, "  \"batch\": NaN,"), "/batch", 6, 0, "'NaN' is not a JSON number"),
                Arguments.of("Infinity", withLine(6, "  \"batch\": -Infinity,"), "/batch", 6, 0, "not a JSON number"),
                Arguments.of("unknown mask", withMask("{ \"causall\": {} }"), "/mask/causall", 9, 13, "unknown mask \"causall\"; known masks: full, causal"),
                Arguments.of("mask with two keys", withMask("{ \"causal\": {}, \"sinks\": { \"count\": 4 } }"), "/mask/sinks", 9, 27, "a mask object has exactly one key"),
                Arguments.of("mask without a key", withMask("{}"), "/mask", 9, 11, "a mask is an object with one key"),
                Arguments.of("mask not an object", withMask("\"causal\""), "/mask", 9, 11, "a mask is an object with one key naming it"),
                Arguments.of("parameters not an object", withMask("{ \"causal\": 0 }"), "/mask/causal", 9, 23, "causal takes an object such as {\"offset\": ...}, got 0"),
                Arguments.of("unknown parameter", withMask("{ \"causal\": { \"ofset\": 1 } }"), "/mask/causal/ofset", 9, 25, "unknown key \"ofset\"; causal takes offset"),
                Arguments.of("full takes no parameters", withMask("{ \"full\": { \"x\": 1 } }"), "/mask/full/x", 9, 0, "full takes no keys"),
                Arguments.of("causal offset out of range", withMask("{ \"causal\": { \"offset\": 16777217 } }"), "/mask/causal/offset", 9, 35, "-16777216..16777216"),
                Arguments.of("window without bounds", withMask("{ \"sliding_window\": {} }"), "/mask/sliding_window", 9, 31, "sliding_window needs \"left\", \"right\" or both"),
                Arguments.of("window bound below -1", withMask("{ \"sliding_window\": { \"left\": -2 } }"), "/mask/sliding_window/left", 9, 0, "must be an integer in -1..16777216, got -2"),
                Arguments.of("chunk of 0", withMask("{ \"chunked_causal\": { \"chunk\": 0 } }"), "/mask/chunked_causal/chunk", 9, 0, "got 0"),
                Arguments.of("chunk missing", withMask("{ \"chunked_causal\": {} }"), "/mask/chunked_causal", 9, 0, "chunked_causal needs \"chunk\""),
                Arguments.of("prefix longer than the keys", withMask("{ \"prefix_lm\": { \"prefix\": 1201 } }"), "/mask/prefix_lm/prefix", 9, 38, "prefix 1201 is longer than seq_len_kv 1200"),
                Arguments.of("document lengths past the sequence", withMask("{ \"and\": [{ \"causal\": {} },\n    { \"documents\": { \"lengths\": [700, 600] } }] }"),
                        "/mask/and/1/documents/lengths", 10, 33, "document lengths sum to 1300, past the sequence length 1200"),
                Arguments.of("negative document length", withMask("{ \"documents\": { \"lengths\": [700, -6] } }"), "/mask/documents/lengths/1", 9, 0, "must be an integer in 0..16777216, got -6"),
                Arguments.of("more document lengths than tokens", withMask("{ \"documents\": { \"lengths\": " + Arrays.toString(new int[1201]) + " } }"),
                        "/mask/documents/lengths", 9, 39, "has more than 1200 entries, more than the longest sequence has tokens"),
                Arguments.of("lengths not an array", withMask("{ \"documents\": { \"lengths\": 700 } }"), "/mask/documents/lengths", 9, 0, "must be an array of integers, got 700"),
                Arguments.of("segment ids of the wrong length", withMask("{ \"documents\": { \"q_segment_ids\": [0, 0], \"kv_segment_ids\": [0, 1] } }"),
                        "/mask/documents/q_segment_ids", 9, 0, "has 2 ids but seq_len_q is 1000"),
                Arguments.of("segment id below -1", withMask("{ \"documents\": { \"segment_ids\": [0, -2] } }"), "/mask/documents/segment_ids/1", 9, 0, "got -2"),
                Arguments.of("q ids without kv ids", withMask("{ \"documents\": { \"q_segment_ids\": [0] } }"), "/mask/documents", 9, 0, "q_segment_ids needs kv_segment_ids"),
                Arguments.of("two forms of documents", withMask("{ \"documents\": { \"lengths\": [1], \"segment_ids\": [0] } }"), "/mask/documents", 9, 0, "more than one way to give documents (lengths, segment_ids)"),
                Arguments.of("no documents", withMask("{ \"documents\": {} }"), "/mask/documents", 9, 0, "give one of: \"lengths\""),
                Arguments.of("per_batch of the wrong size", withMask("{ \"documents\": { \"per_batch\": [{ \"lengths\": [1] }, { \"lengths\": [1] }, { \"lengths\": [1] }] } }"),
                        "/mask/documents/per_batch", 9, 0, "per_batch lists 3 entries but batch is 2"),
                Arguments.of("per_batch with lengths", withMask("{ \"documents\": { \"per_batch\": [{ \"lengths\": [1] }], \"lengths\": [1] } }"), "/mask/documents", 9, 0, "per_batch goes alone"),
                Arguments.of("per_batch entry problem", withMask("{ \"documents\": { \"per_batch\": [{ \"lengths\": [1] },\n    { \"lenghts\": [1] }] } }"),
                        "/mask/documents/per_batch/1/lenghts", 10, 7, "unknown key \"lenghts\"; a per_batch entry takes lengths"),
                Arguments.of("global token past the sequence", withMask("{ \"global_tokens\": { \"indices\": [3, 1200] } }"), "/mask/global_tokens", 9, 30, "global token 1200 is past the sequence (length 1200)"),
                Arguments.of("global tokens both ways", withMask("{ \"global_tokens\": { \"indices\": [3], \"count\": 2 } }"), "/mask/global_tokens", 9, 0, "either \"indices\""),
                Arguments.of("stride longer than the sequence", withMask("{ \"dilated\": { \"stride\": 5000 } }"), "/mask/dilated/stride", 9, 0, "stride 5000 is longer than the sequence (1200)"),
                Arguments.of("more sinks than keys", withMask("{ \"sinks\": { \"count\": 1300 } }"), "/mask/sinks/count", 9, 0, "sink count 1300 is larger than seq_len_kv 1200"),
                Arguments.of("random block size", withMask("{ \"random_blocks\": { \"block\": [64, 100], \"per_row\": 1, \"seed\": 1 } }"), "/mask/random_blocks/block/1", 9, 0, "block size 100 is not a power of two"),
                Arguments.of("random block pair of one", withMask("{ \"random_blocks\": { \"block\": [64], \"per_row\": 1, \"seed\": 1 } }"), "/mask/random_blocks/block", 9, 0, "block takes [q, kv], two block sizes, got 1 values"),
                Arguments.of("random blocks per_row past the row", withMask("{ \"random_blocks\": { \"block\": [64, 64], \"per_row\": 20, \"seed\": 1 } }"),
                        "/mask/random_blocks/per_row", 9, 0, "per_row 20 is more than the 19 kv-blocks of size 64"),
                Arguments.of("random blocks without seed", withMask("{ \"random_blocks\": { \"block\": [64, 64], \"per_row\": 2 } }"), "/mask/random_blocks", 9, 0, "random_blocks needs \"seed\""),
                Arguments.of("seed of 65 bits", withMask("{ \"random_blocks\": { \"block\": [64, 64], \"per_row\": 2, \"seed\": 18446744073709551616 } }"),
                        "/mask/random_blocks/seed", 9, 0, "seed must be an integer of 64 bits"),
                Arguments.of("block list past the last kv-block", withMask("{ \"block_list\": { \"block\": [64, 64], \"rows\": [\n    [0, 1],\n    [2, 19]] } }"),
                        "/mask/block_list/rows/1", 11, 5, "kv-block 19 is past the last kv-block (18)"),
                Arguments.of("block list with too many rows", withMask("{ \"block_list\": { \"block\": [512, 64], \"rows\": [[0], [0], [0]] } }"),
                        "/mask/block_list/rows", 9, 0, "lists 3 q-block rows but there are only 2 q-blocks of size 512"),
                Arguments.of("block list row not an array", withMask("{ \"block_list\": { \"block\": [64, 64], \"rows\": [3] } }"), "/mask/block_list/rows/0", 9, 0, "must be an array of integers, got 3"),
                Arguments.of("painted cells that do not parse", withMask("{ \"painted\": { \"block\": [64, 64], \"cells\": [\"0-3,7\", \"1;2\"] } }"),
                        "/mask/painted/cells/1", 9, 0, "\"1;2\" is not a kv-block index or a range a-b"),
                Arguments.of("painted range backwards", withMask("{ \"painted\": { \"block\": [64, 64], \"cells\": [\"5-2\"] } }"), "/mask/painted/cells/0", 9, 0, "range \"5-2\" runs backwards"),
                Arguments.of("painted past the last kv-block", withMask("{ \"painted\": { \"block\": [64, 64], \"cells\": [\"\", \"18-19\"] } }"), "/mask/painted/cells/1", 9, 0, "kv-block 19 is past the last kv-block (18)"),
                Arguments.of("empty and", withMask("{ \"and\": [] }"), "/mask/and", 9, 20, "and needs at least one mask"),
                Arguments.of("or of an object", withMask("{ \"or\": { \"causal\": {} } }"), "/mask/or", 9, 0, "or takes an array of masks, got an object"),
                Arguments.of("nested problem", withMask("{ \"or\": [{ \"not\": { \"causal\": { \"offset\": \"0\" } } }] }"), "/mask/or/0/not/causal/offset", 9, 0, "got a string"),
                Arguments.of("per_head longer than heads", withMask("{ \"per_head\": [{ \"full\": {} }, { \"full\": {} }, { \"full\": {} }, { \"full\": {} }, { \"full\": {} }] }"),
                        "/mask/per_head", 9, 0, "per_head lists 5 masks but there are only 4 heads"),
                Arguments.of("masks nested 65 deep", withMask("{ \"not\": ".repeat(64) + "{ \"full\": {} }" + " }".repeat(64)),
                        "/mask" + "/not".repeat(64), 9, 0, "masks nest deeper than 64 levels"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rejections")
    void eachRuleRejectsWithPathLineAndSentence(String rule, String json, String path, int line, int column, String says) {
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigReader.parse("t.json", json));
        ConfigProblem first = e.problems().get(0);
        assertEquals(path, first.path(), e.getMessage());
        assertEquals(line, first.line(), e.getMessage());
        if (column > 0) {
            assertEquals(column, first.column(), e.getMessage());
        }
        assertTrue(first.message().contains(says), "expected \"" + says + "\" in: " + e.getMessage());
        String located = line > 0 ? "t.json:" + line + ":" + first.column() + ": " : "t.json: ";
        assertTrue(e.getMessage().startsWith(located + (path.isEmpty() ? "" : path + ": ")), e.getMessage());
    }

    @Test
    void theValidTemplateIsValid() throws ConfigException {
        MaskConfig c = ConfigReader.parse("t.json", withMask("{ \"causal\": {} }"));
        assertEquals(new MaskConfig("t", "", 1000, 1200, 2, 4, new BlockSize(64, 64), new Mask.Causal(0)), c);
    }

    @Test
    void newerSchemaGetsExactlyOneSentence() {
        String json = "{ \"schema\": \"saw.mask/2\", \"name\": \"x\", \"future_key\": { \"anything\": [1, 2] } }";
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigReader.parse("new.json", json));
        assertEquals("new.json:1:13: /schema: made by a newer saw (saw.mask/2); this saw reads saw.mask/1", e.getMessage());
    }

    @Test
    void defaultsFillOptionalKeys() throws ConfigException {
        MaskConfig c = ConfigReader.parse("d.json", "{ \"schema\": \"saw.mask/1\", \"name\": \"d\", \"seq_len_q\": 100, \"seq_len_kv\": 100,"
                + " \"mask\": { \"and\": [{ \"causal\": {} }, { \"sliding_window\": { \"left\": 8 } }, { \"global_tokens\": { \"count\": 2 } }] } }");
        assertEquals(new MaskConfig("d", "", 100, 100, 1, 1, new BlockSize(128, 128),
                Mask.And.of(new Mask.Causal(0), new Mask.SlidingWindow(8, -1), Mask.GlobalTokens.first(2))), c);
        MaskConfig right = ConfigReader.parse("r.json", "{ \"schema\": \"saw.mask/1\", \"name\": \"r\", \"seq_len_q\": 100, \"seq_len_kv\": 100,"
                + " \"mask\": { \"sliding_window\": { \"right\": 0 } } }");
        assertEquals(new Mask.SlidingWindow(-1, 0), right.mask());
    }

    @Test
    void everyProblemIsReportedInDocumentOrder() {
        String json = withLine(4, "  \"seq_len_q\": 0,").replace("\"batch\": 2", "\"batch\": \"2\"")
                .replace("\"heads\": 4", "\"heads\": 4, \"x\": 1");
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigReader.parse("t.json", json));
        assertEquals(List.of("/seq_len_q", "/batch", "/x"), e.problems().stream().map(ConfigProblem::path).toList());
        assertEquals(List.of(4, 6, 7), e.problems().stream().map(ConfigProblem::line).toList());
        assertEquals(3, e.getMessage().lines().count());
    }

    @Test
    void readingStopsAfterFiftyProblems() {
        StringBuilder json = new StringBuilder("{ \"schema\": \"saw.mask/1\"");
        for (int i = 0; i < 500; i++) {
            json.append(", \"k").append(i).append("\": ").append(i);
        }
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigReader.parse("t.json", json + " }"));
        assertEquals(ConfigReader.MAX_PROBLEMS + 1, e.problems().size());
        assertEquals("stopped after 50 problems", e.problems().get(ConfigReader.MAX_PROBLEMS).message());
    }

    @Test
    void segmentIdsReadAsEqualQAndKv() throws ConfigException {
        String json = withMask("{ \"documents\": { \"segment_ids\": " + Arrays.toString(IntArray.range(0, 1000).toArray()) + " } }")
                .replace("\"seq_len_kv\": 1200", "\"seq_len_kv\": 1000");
        Mask.Documents d = (Mask.Documents) ConfigReader.parse("t.json", json).mask();
        Mask.SegmentIds ids = (Mask.SegmentIds) d.perBatch().get(0);
        assertEquals(ids.q(), ids.kv());
        assertEquals(1000, ids.q().size());
    }

    @Test
    void seedsCoverAllSixtyFourBits() throws ConfigException {
        for (String seed : new String[] {"0", "-9223372036854775808", "18446744073709551615", "9223372036854775808"}) {
            MaskConfig c = ConfigReader.parse("s.json", withMask("{ \"random_blocks\": { \"block\": [64, 64], \"per_row\": 2, \"seed\": " + seed + " } }"));
            long read = ((Mask.RandomBlocks) c.mask()).seed();
            assertEquals(new BigInteger(seed).longValue(), read, seed);
            assertEquals(c, ConfigReader.parse("s.json", ConfigWriter.toJson(c)));
        }
    }
}
