package saw.engine.config;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import saw.engine.config.PrettyJson.Arr;
import saw.engine.config.PrettyJson.Ints;
import saw.engine.config.PrettyJson.Literal;
import saw.engine.config.PrettyJson.Obj;
import saw.engine.config.PrettyJson.Value;
import saw.engine.io.AtomicFiles;
import saw.engine.mask.IntArray;
import saw.engine.mask.Mask;

/**
 * Writes {@code saw.mask/1} configs in one stable form: keys in the documented order, 2-space indents, short values
 * on one line, every parameter written (defaults included), an empty description left out. Reading the output
 * gives an equal {@link MaskConfig}.
 */
public final class ConfigWriter {
    private ConfigWriter() {}

    public static String toJson(MaskConfig config) {
        StringBuilder s = new StringBuilder();
        try {
            PrettyJson.print(tree(config), s);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringBuilder does not throw
        }
        return s.toString();
    }

    /** Writes UTF-8 JSON to {@code out}; flushes but does not close it. */
    public static void write(MaskConfig config, Writer out) throws IOException {
        PrettyJson.print(tree(config), out);
        out.flush();
    }

    /** Writes the config to {@code file} atomically: the file holds either the old content or all of the new. */
    public static void write(MaskConfig config, Path file) throws IOException {
        AtomicFiles.write(file, stream -> {
            Writer w = new BufferedWriter(new OutputStreamWriter(stream, StandardCharsets.UTF_8));
            write(config, w);
        });
    }

    private static Value tree(MaskConfig c) {
        Obj root = new Obj().put("schema", MaskConfig.SCHEMA).put("name", c.name());
        if (!c.description().isEmpty()) {
            root.put("description", c.description());
        }
        return root.put("seq_len_q", c.seqLenQ())
                .put("seq_len_kv", c.seqLenKv())
                .put("batch", c.batch())
                .put("heads", c.heads())
                .put("block", new Obj().put("q", c.block().q()).put("kv", c.block().kv()))
                .put("mask", mask(c.mask()));
    }

    private static Value mask(Mask m) {
        return new Obj().put(MaskKeys.key(m), params(m));
    }

    private static Value params(Mask m) {
        if (m instanceof Mask.Causal c) {
            return new Obj().put("offset", c.offset());
        } else if (m instanceof Mask.SlidingWindow w) {
            return new Obj().put("left", w.left()).put("right", w.right());
        } else if (m instanceof Mask.ChunkedCausal c) {
            return new Obj().put("chunk", c.chunk());
        } else if (m instanceof Mask.PrefixLm p) {
            return new Obj().put("prefix", p.prefix());
        } else if (m instanceof Mask.Documents d) {
            if (d.perBatch().size() == 1) {
                return segments(d.perBatch().get(0));
            }
            return new Obj().put("per_batch", new Arr(d.perBatch().stream().map(ConfigWriter::segments).toList()));
        } else if (m instanceof Mask.GlobalTokens g) {
            return g.firstCount() > 0 ? new Obj().put("count", g.firstCount()) : new Obj().put("indices", new Ints(g.indices()));
        } else if (m instanceof Mask.Dilated d) {
            return new Obj().put("stride", d.stride());
        } else if (m instanceof Mask.Sinks s) {
            return new Obj().put("count", s.count());
        } else if (m instanceof Mask.RandomBlocks r) {
            return new Obj().put("block", block(r.blockQ(), r.blockKv()))
                    .put("per_row", r.perRow())
                    .put("seed", new Literal(Long.toUnsignedString(r.seed())));
        } else if (m instanceof Mask.BlockList l) {
            return new Obj().put("block", block(l.blockQ(), l.blockKv()))
                    .put("rows", new Arr(l.rows().stream().map(row -> (Value) new Ints(row)).toList()));
        } else if (m instanceof Mask.Painted p) {
            return new Obj().put("block", block(p.blockQ(), p.blockKv()))
                    .put("cells", new Arr(p.rows().stream().map(row -> (Value) new PrettyJson.Str(CellRanges.format(row))).toList()));
        } else if (m instanceof Mask.And a) {
            return masks(a.children());
        } else if (m instanceof Mask.Or o) {
            return masks(o.children());
        } else if (m instanceof Mask.Not n) {
            return mask(n.child());
        } else if (m instanceof Mask.PerHead p) {
            return masks(p.variants());
        }
        return new Obj(); // full
    }

    private static Value segments(Mask.Segments s) {
        if (s instanceof Mask.Lengths l) {
            return new Obj().put("lengths", new Ints(l.lengths()));
        }
        Mask.SegmentIds ids = (Mask.SegmentIds) s;
        if (ids.q().equals(ids.kv())) {
            return new Obj().put("segment_ids", new Ints(ids.q()));
        }
        return new Obj().put("q_segment_ids", new Ints(ids.q())).put("kv_segment_ids", new Ints(ids.kv()));
    }

    private static Value masks(List<Mask> list) {
        List<Value> items = new ArrayList<>();
        for (Mask m : list) {
            items.add(mask(m));
        }
        return new Arr(items);
    }

    private static Value block(int q, int kv) {
        return new Ints(IntArray.of(q, kv));
    }
}
