package saw.ui.files;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import saw.engine.config.BlockSize;
import saw.engine.config.MaskConfig;
import saw.engine.mask.IntArray;
import saw.engine.mask.Mask;

/**
 * One of saw's own layout exports ({@code saw.flex/1}, {@code saw.ejkernel/1}, {@code saw.nsa/1},
 * {@code saw.dense/1}), recognised by the {@code saw} header it starts with, read without reading the rest.
 */
record ExportFile(String format, int seqQ, int seqKv, int batch, int heads, int blockQ, int blockKv) {
    /** The largest flex export imported as a block list (its indices are read into memory). */
    static final long MAX_IMPORT_BYTES = 256L << 20;

    /** The export's header, or null when {@code p} does not start like one of saw's exports. */
    static ExportFile recognise(Path p) {
        try (InputStream in = Files.newInputStream(p); JsonParser j = new JsonFactory().createParser(in)) {
            if (j.nextToken() != JsonToken.START_OBJECT || j.nextToken() != JsonToken.FIELD_NAME
                    || !"saw".equals(j.getCurrentName()) || j.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            String format = null;
            int[] v = new int[6];
            String[] keys = {"seq_len_q", "seq_len_kv", "batch", "heads", "block_q", "block_kv"};
            while (j.nextToken() == JsonToken.FIELD_NAME) {
                String k = j.getCurrentName();
                j.nextToken();
                if (k.equals("format")) {
                    format = j.getValueAsString();
                }
                for (int i = 0; i < keys.length; i++) {
                    if (k.equals(keys[i])) {
                        v[i] = j.getValueAsInt();
                    }
                }
            }
            if (format == null || !format.matches("saw\\.(flex|ejkernel|nsa|dense)/\\d+")) {
                return null;
            }
            return new ExportFile(format, v[0], v[1], v[2], v[3], v[4], v[5]);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** "flex", "ejkernel", ... */
    String formatName() {
        return format.substring(4, format.indexOf('/'));
    }

    /** What a flex export can be imported as: its attended tiles (partial or full) of batch 0, head 0. */
    boolean importable() {
        return format.startsWith("saw.flex/");
    }

    /** The config a flex export was most likely written from: NAME.json beside NAME-flex.json; null if none. */
    static Path configBeside(Path export, String formatName) {
        String file = export.getFileName().toString();
        String suffix = "-" + formatName + ".json";
        if (!file.endsWith(suffix)) {
            return null;
        }
        Path config = export.resolveSibling(file.substring(0, file.length() - suffix.length()) + ".json");
        return Files.isRegularFile(config) ? config : null;
    }

    /**
     * The tiles a flex export lists for batch 0, head 0 (PARTIAL and FULL alike), as a {@code block_list} mask in
     * a new config of the export's sizes. A block list attends whole tiles, so PARTIAL tiles become full ones.
     */
    MaskConfig importAsBlockList(Path p, String name) throws IOException {
        if (Files.size(p) > MAX_IMPORT_BYTES) {
            throw new IOException(p.getFileName() + " is " + (Files.size(p) >> 20) + " MiB; saw imports flex exports of up to "
                    + (MAX_IMPORT_BYTES >> 20) + " MiB as a block list");
        }
        JsonNode n = new ObjectMapper().readTree(p.toFile());
        int nq = (seqQ + blockQ - 1) / blockQ;
        List<TreeSet<Integer>> rows = new ArrayList<>();
        for (int q = 0; q < nq; q++) {
            rows.add(new TreeSet<>());
        }
        for (String stem : new String[] {"kv", "full_kv"}) {
            JsonNode counts = n.path(stem + "_num_blocks").path(0).path(0);
            JsonNode indices = n.path(stem + "_indices").path(0).path(0);
            if (!counts.isArray() || !indices.isArray()) {
                throw new IOException(p.getFileName() + ": /" + stem + "_num_blocks or /" + stem + "_indices is missing");
            }
            for (int q = 0; q < Math.min(nq, counts.size()); q++) {
                int k = counts.get(q).asInt();
                for (int i = 0; i < k; i++) {
                    rows.get(q).add(indices.get(q).get(i).asInt());
                }
            }
        }
        List<IntArray> listed = new ArrayList<>();
        for (TreeSet<Integer> r : rows) {
            listed.add(IntArray.of(r.stream().mapToInt(Integer::intValue).toArray()));
        }
        return new MaskConfig(name, "imported from " + p.getFileName() + " (batch 0, head 0; PARTIAL tiles as whole tiles)",
                seqQ, seqKv, 1, 1, new BlockSize(blockQ, blockKv), new Mask.BlockList(blockQ, blockKv, listed));
    }
}
