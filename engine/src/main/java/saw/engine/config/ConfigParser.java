package saw.engine.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import saw.engine.mask.Dims;
import saw.engine.mask.IntArray;
import saw.engine.mask.Mask;
import saw.engine.mask.MaskChecks;

/**
 * One pass over one config's tokens: the saw.mask/1 structure on top of {@link StrictJsonReader}. Problems that need
 * the whole config (the checks of {@link MaskChecks}) are found after reading and pointed at the places recorded.
 */
final class ConfigParser extends StrictJsonReader {
    static final BlockSize DEFAULT_BLOCK = new BlockSize(128, 128);
    private static final List<String> TOP_KEYS =
            List.of("schema", "name", "description", "seq_len_q", "seq_len_kv", "batch", "heads", "block", "mask");
    private static final List<String> REQUIRED_TOP_KEYS = List.of("schema", "name", "seq_len_q", "seq_len_kv", "mask");
    static final List<String> MASK_KINDS = List.of("full", "causal", "sliding_window", "chunked_causal", "prefix_lm",
            "documents", "global_tokens", "dilated", "sinks", "random_blocks", "block_list", "painted",
            "and", "or", "not", "per_head");
    private static final List<String> SEGMENT_KEYS = List.of("lengths", "segment_ids", "q_segment_ids", "kv_segment_ids");
    private static final List<String> DOCUMENT_KEYS =
            List.of("lengths", "segment_ids", "q_segment_ids", "kv_segment_ids", "per_batch");
    private static final Pattern SCHEMA = Pattern.compile("saw\\.mask/([0-9]{1,9})");
    private static final int MAX_LISTED_MASKS = 4096;
    private static final int MAX_BLOCKS = CellRanges.MAX_INDEX + 1;
    private static final int MAX_SEQ = Dims.MAX_SEQ;
    private static final BigInteger TWO_TO_64 = BigInteger.ONE.shiftLeft(64);

    /** Pointers MaskChecks may use for values written under another key (equal q/kv ids read as segment_ids). */
    private final Map<String, String> aliases = new HashMap<>();
    private ConfigProblem newerSchema;
    private MaskConfig config;

    private String name;
    private String description = "";
    private Integer seqLenQ;
    private Integer seqLenKv;
    private int batch = 1;
    private int heads = 1;
    private BlockSize block = DEFAULT_BLOCK;
    private Mask mask;

    ConfigParser(JsonParser p) {
        super(p);
    }

    List<ConfigProblem> problemsToReport() {
        return newerSchema != null ? List.of(newerSchema) : problems;
    }

    MaskConfig config() {
        return config;
    }

    void parse() {
        long rootPlace = pack(1, 1);
        try {
            JsonToken t = p.nextToken();
            if (t == null) {
                problem("", rootPlace, "the file is empty; a saw.mask/1 config is a JSON object");
                return;
            }
            rootPlace = here();
            if (t != JsonToken.START_OBJECT) {
                problem("", rootPlace, "a saw.mask/1 config is a JSON object, got " + describe(t));
                return;
            }
            places.put("", rootPlace);
            Set<String> seen = readFields("", "a config", TOP_KEYS, this::readTopField);
            if (p.nextToken() != null) {
                problem("", here(), "unexpected content after the config object");
            }
            for (String key : REQUIRED_TOP_KEYS) {
                if (!seen.contains(key)) {
                    problem("", rootPlace, "missing required key \"" + key + "\"");
                }
            }
        } catch (Stop stop) {
            return;
        } catch (StreamConstraintsException e) {
            parserProblem(limitMessage(e.getOriginalMessage()), e.getLocation());
            return;
        } catch (JsonProcessingException e) {
            parserProblem(cleanMessage(e.getOriginalMessage()), e.getLocation());
            return;
        } catch (IOException e) {
            problems.add(new ConfigProblem("", 0, 0, "cannot read: " + e.getMessage()));
            return;
        }
        if (problems.isEmpty()) {
            build(rootPlace);
        }
    }

    private void build(long rootPlace) {
        try {
            config = new MaskConfig(name, description, seqLenQ, seqLenKv, batch, heads, block, mask);
        } catch (IllegalArgumentException e) {
            problems.add(problemAt("", rootPlace, e.getMessage()));
            return;
        }
        for (MaskChecks.Problem found : config.problems()) {
            String path = aliases.getOrDefault(found.path(), found.path());
            problems.add(problemAt(path, placeOf(path), found.message()));
            if (problems.size() >= ConfigReader.MAX_PROBLEMS) {
                break;
            }
        }
        if (!problems.isEmpty()) {
            config = null;
        }
    }

    private void readTopField(String key, String path) throws IOException {
        switch (key) {
            case "schema": {
                String s = readString(path, 100);
                if (s != null) {
                    checkSchema(s, path);
                }
                break;
            }
            case "name":
                name = readText(path, MaskConfig.MAX_NAME_LENGTH, false);
                if (name != null && name.isBlank()) {
                    problem(path, here(), "must not be blank");
                }
                break;
            case "description": {
                String d = readText(path, MaskConfig.MAX_DESCRIPTION_LENGTH, true);
                description = d == null ? "" : d;
                break;
            }
            case "seq_len_q":
                seqLenQ = readInt(path, 1, MAX_SEQ);
                break;
            case "seq_len_kv":
                seqLenKv = readInt(path, 1, MAX_SEQ);
                break;
            case "batch": {
                Integer b = readInt(path, 1, MaskConfig.MAX_BATCH);
                batch = b == null ? batch : b;
                break;
            }
            case "heads": {
                Integer h = readInt(path, 1, MaskConfig.MAX_HEADS);
                heads = h == null ? heads : h;
                break;
            }
            case "block": {
                BlockSize b = readBlockObject(path);
                block = b == null ? block : b;
                break;
            }
            default: // "mask", the only key left
                mask = readMask(path, 1);
                break;
        }
    }

    private void checkSchema(String s, String path) {
        Matcher m = SCHEMA.matcher(s);
        if (m.matches() && Integer.parseInt(m.group(1)) > 1) {
            newerSchema = problemAt(path, here(), "made by a newer saw (" + s + "); this saw reads " + MaskConfig.SCHEMA);
        } else if (!s.equals(MaskConfig.SCHEMA)) {
            problem(path, here(), "schema must be \"" + MaskConfig.SCHEMA + "\", got " + quote(s));
        }
    }

    // ---- masks ----

    private Mask readMask(String path, int depth) throws IOException {
        long place = here();
        places.put(path, place);
        if (depth > MaskChecks.MAX_DEPTH) {
            problem(path, place, "masks nest deeper than " + MaskChecks.MAX_DEPTH + " levels");
            skip(path);
            return null;
        }
        if (!expect(JsonToken.START_OBJECT, path, "a mask is an object with one key naming it, e.g. {\"causal\": {}}")) {
            return null;
        }
        if (next() != JsonToken.FIELD_NAME) {
            problem(path, place, "a mask is an object with one key naming it, e.g. {\"causal\": {}}; known masks: "
                    + String.join(", ", MASK_KINDS));
            return null;
        }
        String kind = p.currentName();
        String kindPath = path + "/" + pointerToken(kind);
        long kindPlace = here();
        next();
        Mask m;
        if (MASK_KINDS.contains(kind)) {
            places.put(kindPath, here());
            m = readPrimitive(kind, kindPath, depth);
        } else {
            problem(kindPath, kindPlace, "unknown mask " + quote(kind) + "; known masks: " + String.join(", ", MASK_KINDS));
            skip(kindPath);
            m = null;
        }
        while (next() == JsonToken.FIELD_NAME) {
            String extra = p.currentName();
            String extraPath = path + "/" + pointerToken(extra);
            problem(extraPath, here(), "a mask object has exactly one key, but " + quote(extra)
                    + " follows " + quote(kind) + "; combine masks with \"and\" or \"or\"");
            next();
            skip(extraPath);
            m = null;
        }
        return m;
    }

    private Mask readPrimitive(String kind, String path, int depth) throws IOException {
        int before = problems.size();
        Mask m = null;
        switch (kind) {
            case "full":
                if (readIntParams(path, kind, new String[0], new long[0], new long[0]) != null) {
                    m = new Mask.Full();
                }
                break;
            case "causal": {
                Map<String, Long> v = readIntParams(path, kind, keys("offset"), mins(-MAX_SEQ), maxs(MAX_SEQ));
                if (v != null) {
                    m = new Mask.Causal(v.getOrDefault("offset", 0L).intValue());
                }
                break;
            }
            case "sliding_window": {
                Map<String, Long> v = readIntParams(path, kind, keys("left", "right"), mins(-1, -1), maxs(MAX_SEQ, MAX_SEQ));
                if (v != null && v.isEmpty()) {
                    problem(path, places.get(path), "sliding_window needs \"left\", \"right\" or both (-1 = unbounded; a missing one is -1)");
                } else if (v != null) {
                    m = new Mask.SlidingWindow(v.getOrDefault("left", -1L).intValue(), v.getOrDefault("right", -1L).intValue());
                }
                break;
            }
            case "chunked_causal": {
                Integer chunk = requiredInt(path, kind, "chunk", 1, MAX_SEQ);
                m = chunk == null ? null : new Mask.ChunkedCausal(chunk);
                break;
            }
            case "prefix_lm": {
                Integer prefix = requiredInt(path, kind, "prefix", 0, MAX_SEQ);
                m = prefix == null ? null : new Mask.PrefixLm(prefix);
                break;
            }
            case "dilated": {
                Integer stride = requiredInt(path, kind, "stride", 1, MAX_SEQ);
                m = stride == null ? null : new Mask.Dilated(stride);
                break;
            }
            case "sinks": {
                Integer count = requiredInt(path, kind, "count", 0, MAX_SEQ);
                m = count == null ? null : new Mask.Sinks(count);
                break;
            }
            case "documents":
                m = readDocuments(path);
                break;
            case "global_tokens":
                m = readGlobalTokens(path);
                break;
            case "random_blocks":
                m = readRandomBlocks(path);
                break;
            case "block_list":
            case "painted":
                m = readBlockRows(path, kind);
                break;
            case "not": {
                Mask child = readMask(path, depth + 1);
                m = child == null ? null : new Mask.Not(child);
                break;
            }
            default: { // and, or, per_head
                List<Mask> list = readMaskList(path, kind, depth);
                if (list != null) {
                    m = kind.equals("and") ? new Mask.And(list) : kind.equals("or") ? new Mask.Or(list) : new Mask.PerHead(list);
                }
                break;
            }
        }
        return problems.size() == before ? m : null;
    }

    private List<Mask> readMaskList(String path, String kind, int depth) throws IOException {
        if (!expect(JsonToken.START_ARRAY, path, kind + " takes an array of masks")) {
            return null;
        }
        List<Mask> list = new ArrayList<>();
        boolean ok = true;
        while (next() != JsonToken.END_ARRAY) {
            if (list.size() == MAX_LISTED_MASKS) {
                problem(path, places.get(path), kind + " lists more than " + MAX_LISTED_MASKS + " masks");
                throw new Stop();
            }
            Mask child = readMask(path + "/" + list.size(), depth + 1);
            ok &= child != null;
            list.add(child);
        }
        if (list.isEmpty()) {
            problem(path, places.get(path), kind + " needs at least one mask");
            return null;
        }
        return ok ? list : null;
    }

    private Mask readGlobalTokens(String path) throws IOException {
        IntArray[] indices = new IntArray[1];
        Integer[] count = new Integer[1];
        Set<String> seen = readObject(path, "global_tokens", List.of("indices", "count"), (key, keyPath) -> {
            if (key.equals("indices")) {
                indices[0] = readTokenArray(keyPath, 0, MAX_SEQ - 1);
            } else {
                count[0] = readInt(keyPath, 0, MAX_SEQ);
            }
        });
        if (seen == null) {
            return null;
        }
        if (seen.size() != 1) {
            problem(path, places.get(path), "global_tokens takes either \"indices\": [...] or \"count\": n (the first n tokens)");
            return null;
        }
        if (indices[0] != null) {
            return new Mask.GlobalTokens(indices[0]);
        }
        return count[0] == null ? null : Mask.GlobalTokens.first(count[0]);
    }

    private Mask readRandomBlocks(String path) throws IOException {
        int[][] blockSize = new int[1][];
        Integer[] perRow = new Integer[1];
        Long[] seed = new Long[1];
        Set<String> seen = readObject(path, "random_blocks", List.of("block", "per_row", "seed"), (key, keyPath) -> {
            if (key.equals("block")) {
                blockSize[0] = readBlockPair(keyPath);
            } else if (key.equals("per_row")) {
                perRow[0] = readInt(keyPath, 0, MAX_BLOCKS);
            } else {
                seed[0] = readSeed(keyPath);
            }
        });
        if (seen == null || !requireKeys(path, "random_blocks", seen, "block", "per_row", "seed")
                || blockSize[0] == null || perRow[0] == null || seed[0] == null) {
            return null;
        }
        return new Mask.RandomBlocks(blockSize[0][0], blockSize[0][1], perRow[0], seed[0]);
    }

    /** block_list ("rows": arrays of kv-block indices) and painted ("cells": strings such as "0-3,7"). */
    private Mask readBlockRows(String path, String kind) throws IOException {
        boolean painted = kind.equals("painted");
        String rowsKey = painted ? "cells" : "rows";
        int[][] blockSize = new int[1][];
        List<IntArray> rows = new ArrayList<>();
        boolean[] rowsOk = {false};
        Set<String> seen = readObject(path, kind, List.of("block", rowsKey), (key, keyPath) -> {
            if (key.equals("block")) {
                blockSize[0] = readBlockPair(keyPath);
            } else {
                rowsOk[0] = readRows(keyPath, painted, rows);
            }
        });
        if (seen == null || !requireKeys(path, kind, seen, "block", rowsKey) || blockSize[0] == null || !rowsOk[0]) {
            return null;
        }
        int bq = blockSize[0][0];
        int bkv = blockSize[0][1];
        return painted ? new Mask.Painted(bq, bkv, rows) : new Mask.BlockList(bq, bkv, rows);
    }

    private boolean readRows(String path, boolean painted, List<IntArray> rows) throws IOException {
        String what = painted ? "cells take an array of strings, one per q-block row, e.g. [\"0-3,7\", \"\", \"2\"]"
                : "rows take an array of arrays of kv-block indices, one per q-block row";
        if (!expect(JsonToken.START_ARRAY, path, what)) {
            return false;
        }
        int before = problems.size();
        long[] rowPlaces = new long[16];
        while (next() != JsonToken.END_ARRAY) {
            int r = rows.size();
            String rowPath = path + "/" + r;
            if (r == MAX_BLOCKS) {
                problem(path, places.get(path), "lists more than " + MAX_BLOCKS + " q-block rows, more than any sequence has");
                throw new Stop();
            }
            if (r == rowPlaces.length) {
                rowPlaces = Arrays.copyOf(rowPlaces, r * 2);
            }
            rowPlaces[r] = here();
            IntArray row = painted ? readCells(rowPath) : readIntArray(rowPath, 0, MAX_BLOCKS - 1, MAX_BLOCKS, "");
            rows.add(row == null ? IntArray.of() : row);
        }
        elementPlaces.put(path, Arrays.copyOf(rowPlaces, rows.size()));
        return problems.size() == before;
    }

    /**
     * An array with at most one entry per token (segment ids, document lengths, token indices). Once the sequence
     * lengths are known (saw writes them before the mask) it may not be longer than the longest sequence, so a
     * hostile array is refused after that many entries rather than after 2^24.
     */
    private IntArray readTokenArray(String path, long min, long max) throws IOException {
        if (seqLenQ == null || seqLenKv == null) {
            return readIntArray(path, min, max, MAX_SEQ, "");
        }
        int longest = Math.max(seqLenQ, seqLenKv);
        return readIntArray(path, min, max, longest, ", more than the longest sequence has tokens");
    }

    private IntArray readCells(String path) throws IOException {
        String text = readString(path, Integer.MAX_VALUE);
        if (text == null) {
            return null;
        }
        try {
            int[] cells = CellRanges.parse(text, integerBudget());
            countIntegers(cells.length, path);
            return IntArray.of(cells);
        } catch (IllegalArgumentException e) {
            problem(path, here(), e.getMessage());
            return null;
        }
    }

    // ---- documents ----

    /** The keys of one segments object, as read. */
    private static final class SegmentFields {
        IntArray lengths;
        IntArray ids;
        IntArray qIds;
        IntArray kvIds;
        List<Mask.Segments> perBatch;
    }

    private Mask readDocuments(String path) throws IOException {
        SegmentFields f = new SegmentFields();
        Set<String> seen = readObject(path, "documents", DOCUMENT_KEYS, (key, keyPath) -> {
            if (key.equals("per_batch")) {
                f.perBatch = readPerBatch(keyPath);
            } else {
                readSegmentField(key, keyPath, f);
            }
        });
        if (seen == null) {
            return null;
        }
        if (seen.contains("per_batch")) {
            if (seen.size() > 1) {
                problem(path, places.get(path), "per_batch goes alone; put lengths or segment ids inside each per_batch entry");
                return null;
            }
            return f.perBatch == null ? null : new Mask.Documents(f.perBatch);
        }
        Mask.Segments s = segments(path, seen, f);
        return s == null ? null : new Mask.Documents(List.of(s));
    }

    private List<Mask.Segments> readPerBatch(String path) throws IOException {
        if (!expect(JsonToken.START_ARRAY, path, "per_batch takes an array with one object per batch entry")) {
            return null;
        }
        List<Mask.Segments> list = new ArrayList<>();
        boolean ok = true;
        while (next() != JsonToken.END_ARRAY) {
            if (list.size() == MaskConfig.MAX_BATCH) {
                problem(path, places.get(path), "per_batch lists more than " + MaskConfig.MAX_BATCH + " entries");
                throw new Stop();
            }
            String entryPath = path + "/" + list.size();
            places.put(entryPath, here());
            SegmentFields f = new SegmentFields();
            Set<String> seen = readObject(entryPath, "a per_batch entry", SEGMENT_KEYS,
                    (key, keyPath) -> readSegmentField(key, keyPath, f));
            Mask.Segments s = seen == null ? null : segments(entryPath, seen, f);
            ok &= s != null;
            list.add(s);
        }
        if (list.isEmpty()) {
            problem(path, places.get(path), "per_batch needs at least one entry");
            return null;
        }
        return ok ? list : null;
    }

    private void readSegmentField(String key, String path, SegmentFields f) throws IOException {
        switch (key) {
            case "lengths":
                f.lengths = readTokenArray(path, 0, MAX_SEQ);
                break;
            case "segment_ids":
                f.ids = readTokenArray(path, -1, Integer.MAX_VALUE);
                break;
            case "q_segment_ids":
                f.qIds = readTokenArray(path, -1, Integer.MAX_VALUE);
                break;
            default:
                f.kvIds = readTokenArray(path, -1, Integer.MAX_VALUE);
                break;
        }
    }

    private Mask.Segments segments(String path, Set<String> seen, SegmentFields f) {
        boolean q = seen.contains("q_segment_ids");
        boolean kv = seen.contains("kv_segment_ids");
        String forms = "give one of: \"lengths\", \"segment_ids\", \"q_segment_ids\" with \"kv_segment_ids\""
                + (path.endsWith("/documents") ? ", \"per_batch\"" : "");
        if (seen.isEmpty()) {
            problem(path, places.get(path), "documents need their tokens' documents; " + forms);
            return null;
        }
        if (q != kv) {
            problem(path, places.get(path), (q ? "q_segment_ids needs kv_segment_ids" : "kv_segment_ids needs q_segment_ids")
                    + " (or give \"segment_ids\" when seq_len_q == seq_len_kv)");
            return null;
        }
        if (seen.size() > (q ? 2 : 1)) {
            problem(path, places.get(path), "more than one way to give documents (" + String.join(", ", sorted(seen)) + "); " + forms);
            return null;
        }
        if (seen.contains("lengths")) {
            return f.lengths == null ? null : new Mask.Lengths(f.lengths);
        }
        if (seen.contains("segment_ids")) {
            return f.ids == null ? null : new Mask.SegmentIds(f.ids, f.ids);
        }
        if (f.qIds == null || f.kvIds == null) {
            return null;
        }
        if (f.qIds.equals(f.kvIds)) {
            aliases.put(path + "/segment_ids", path + "/q_segment_ids");
        }
        return new Mask.SegmentIds(f.qIds, f.kvIds);
    }

    private BlockSize readBlockObject(String path) throws IOException {
        int before = problems.size();
        Integer[] qkv = new Integer[2];
        Set<String> seen = readObject(path, "block", List.of("q", "kv"), (key, keyPath) -> {
            Integer v = readBlockSize(keyPath);
            qkv[key.equals("q") ? 0 : 1] = v;
        });
        if (seen == null || !requireKeys(path, "block", seen, "q", "kv") || problems.size() != before) {
            return null;
        }
        return new BlockSize(qkv[0], qkv[1]);
    }

    /** [q, kv]: two block sizes. */
    private int[] readBlockPair(String path) throws IOException {
        long place = here();
        if (!expect(JsonToken.START_ARRAY, path, "block takes [q, kv], two block sizes such as [64, 64]")) {
            return null;
        }
        int before = problems.size();
        int[] pair = new int[2];
        int n = 0;
        while (next() != JsonToken.END_ARRAY) {
            if (n == 2) {
                problem(path, place, "block takes [q, kv], two block sizes, got more than 2 values");
                skip(path + "/2");
                skipRest(path, place);
                return null;
            }
            Integer v = readBlockSize(path + "/" + n);
            pair[n] = v == null ? 0 : v;
            n++;
        }
        if (n != 2) {
            problem(path, place, "block takes [q, kv], two block sizes, got " + n + " values");
        }
        return problems.size() == before ? pair : null;
    }

    private Integer readBlockSize(String path) throws IOException {
        Integer v = readInt(path, 1, Integer.MAX_VALUE);
        if (v != null && !MaskChecks.isValidBlock(v)) {
            problem(path, here(), "block size " + v + " is not a power of two in 16..512");
            return null;
        }
        return v;
    }

    private Long readSeed(String path) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NUMBER_INT) {
            BigInteger v = p.getNumberType() == JsonParser.NumberType.BIG_INTEGER ? p.getBigIntegerValue()
                    : BigInteger.valueOf(p.getLongValue());
            if (v.bitLength() <= 63 || (v.signum() > 0 && v.compareTo(TWO_TO_64) < 0)) {
                return v.longValue();
            }
        }
        problem(path, here(), "seed must be an integer of 64 bits (" + Long.MIN_VALUE + ".." + TWO_TO_64.subtract(BigInteger.ONE)
                + "), got " + describe(t));
        skip(path);
        return null;
    }

    private static List<String> sorted(Set<String> keys) {
        List<String> list = new ArrayList<>(keys);
        list.sort(null);
        return list;
    }
}
