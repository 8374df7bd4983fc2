package saw.ui.composer;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.TextArea;
import javafx.scene.layout.HBox;
import javafx.scene.layout.VBox;
import saw.engine.mask.Dims;
import saw.engine.mask.IntArray;
import saw.engine.mask.Mask;
import saw.ui.form.Form;
import saw.engine.config.MaskConfig;
import saw.ui.model.ComposerModel;
import saw.ui.model.MaskEdits;
import saw.ui.model.MaskText;
import saw.ui.model.NodePath;

/**
 * The parameters of the selected node, each in its own control. A value the mask record refuses is not applied and
 * its message shows at the field; a value the engine's checks refuse for these sizes is applied (so it can be
 * undone and fixed) and the checks' message shows at the field while the grid keeps the last valid layout.
 */
final class NodeEditor extends VBox {
    private final ComposerModel model;
    /** The last bounded value of each field that has an "unbounded" box, by node path and key, across rebuilds. */
    private final java.util.Map<String, Integer> boundedValues = new java.util.HashMap<>();
    private final Label title = new Label();
    private final Label nodeProblems = new Label();
    private Object shown;

    NodeEditor(ComposerModel model) {
        this.model = model;
        setSpacing(6);
        getStyleClass().add("node-editor");
        title.getStyleClass().add("section-title");
        nodeProblems.setId("node-problems");
        nodeProblems.getStyleClass().add("field-error");
        nodeProblems.setWrapText(true);
        model.compositionProperty().addListener(o -> refresh());
        model.selectionProperty().addListener(o -> refresh());
        model.problemsProperty().addListener(o -> refresh());
        refresh();
    }

    private void refresh() {
        MaskConfig c = model.composition();
        NodePath path = model.selectionProperty().get();
        if (!MaskEdits.exists(c.mask(), path)) {
            return;
        }
        Mask m = MaskEdits.at(c.mask(), path);
        List<ComposerModel.FieldProblem> problems = model.problemsAt(path);
        Object key = List.of(path, m, c.dims(), c.block().q(), c.block().kv(), problems);
        if (key.equals(shown)) {
            return;
        }
        shown = key;
        String focusedId = focusedId();
        Form form = build(c, path, m);
        List<String> unplaced = new ArrayList<>();
        for (ComposerModel.FieldProblem p : problems) {
            if (p.field().isEmpty() || !form.showError(p.field(), p.message())) {
                unplaced.add(p.pointer() + ": " + p.message());
            }
        }
        nodeProblems.setText(String.join("\n", unplaced));
        nodeProblems.setVisible(!unplaced.isEmpty());
        nodeProblems.setManaged(!unplaced.isEmpty());
        title.setText(MaskText.key(m) + "  \u00b7  " + MaskEdits.pointer(c.mask(), path));
        getChildren().setAll(title, nodeProblems, form);
        if (focusedId != null) {
            Node n = lookup("#" + focusedId);
            if (n != null) {
                n.requestFocus();
            }
        }
    }

    private String focusedId() {
        Scene s = getScene();
        if (s == null || s.getFocusOwner() == null) {
            return null;
        }
        Node f = s.getFocusOwner();
        for (Node n = f; n != null; n = n.getParent()) {
            if (n == this) {
                return f.getId();
            }
        }
        return null;
    }

    /** Applies a new value of the node, or answers the record's message when it refuses it. */
    private String set(NodePath path, String what, Supplier<Mask> make) {
        Mask m;
        try {
            m = make.get();
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
        model.setNode(path, m, what);
        return null;
    }

    private Form build(MaskConfig c, NodePath path, Mask m) {
        Form f = new Form();
        Dims d = c.dims();
        int longest = Math.max(d.seqQ(), d.seqKv());
        if (m instanceof Mask.Full) {
            f.addNote("Every pair attends.");
        } else if (m instanceof Mask.Causal x) {
            f.addInt("offset", "offset", x.offset(), 0, false,
                    v -> set(path, "Set causal offset", () -> new Mask.Causal(v)));
            Button align = new Button("Align bottom-right (offset = seq_len_kv \u2212 seq_len_q)");
            align.setMnemonicParsing(false);
            align.setWrapText(true);
            align.setMinHeight(javafx.scene.layout.Region.USE_PREF_SIZE);
            align.setOnAction(e -> set(path, "Align causal bottom-right", () -> new Mask.Causal(d.seqKv() - d.seqQ())));
            f.addControl("align", "", align);
            f.addNote("j \u2264 i + offset");
        } else if (m instanceof Mask.SlidingWindow x) {
            f.addInt("left", "left", x.left(), d.seqKv(), true,
                    v -> set(path, "Set window left", () -> new Mask.SlidingWindow(v, x.right())))
                    .rememberBounded(boundedValues, path + "/left");
            f.addInt("right", "right", x.right(), d.seqKv(), true,
                    v -> set(path, "Set window right", () -> new Mask.SlidingWindow(x.left(), v)))
                    .rememberBounded(boundedValues, path + "/right");
            f.addNote("i \u2212 left \u2264 j \u2264 i + right");
        } else if (m instanceof Mask.ChunkedCausal x) {
            f.addInt("chunk", "chunk", x.chunk(), longest, false,
                    v -> set(path, "Set chunk", () -> new Mask.ChunkedCausal(v)));
        } else if (m instanceof Mask.PrefixLm x) {
            f.addInt("prefix", "prefix", x.prefix(), d.seqKv(), false,
                    v -> set(path, "Set prefix", () -> new Mask.PrefixLm(v)));
        } else if (m instanceof Mask.Documents x) {
            documents(f, path, x, d);
        } else if (m instanceof Mask.GlobalTokens x) {
            f.addInt("count", "first n", Math.max(0, x.firstCount()), Math.min(longest, 4096), false,
                    v -> set(path, "Set global tokens", () -> Mask.GlobalTokens.first(v)));
            f.addIntList("indices", "indices", x.indices().toArray(),
                    v -> set(path, "Set global token indices", () -> new Mask.GlobalTokens(IntArray.of(v))));
        } else if (m instanceof Mask.Dilated x) {
            f.addInt("stride", "stride", x.stride(), 0, false,
                    v -> set(path, "Set stride", () -> new Mask.Dilated(v)));
        } else if (m instanceof Mask.Sinks x) {
            f.addInt("count", "count", x.count(), 0, false, v -> set(path, "Set sinks", () -> new Mask.Sinks(v)));
        } else if (m instanceof Mask.RandomBlocks x) {
            blocks(f, x.blockQ(), x.blockKv(), (q, kv) -> set(path, "Set random block size",
                    () -> new Mask.RandomBlocks(q, kv, x.perRow(), x.seed())));
            f.addInt("per_row", "per row", x.perRow(), 0, false,
                    v -> set(path, "Set blocks per row", () -> new Mask.RandomBlocks(x.blockQ(), x.blockKv(), v, x.seed())));
            f.addInt("seed", "seed", (int) x.seed(), 0, false,
                    v -> set(path, "Set seed", () -> new Mask.RandomBlocks(x.blockQ(), x.blockKv(), x.perRow(), v)));
        } else if (m instanceof Mask.BlockList x) {
            blocks(f, x.blockQ(), x.blockKv(), (q, kv) -> set(path, "Set block size",
                    () -> new Mask.BlockList(q, kv, x.rows())));
            rows(f, "rows", x.rows(), rows -> set(path, "Set block rows", () -> new Mask.BlockList(x.blockQ(), x.blockKv(), rows)));
        } else if (m instanceof Mask.Painted x) {
            blocks(f, x.blockQ(), x.blockKv(), (q, kv) -> set(path, "Set painted block size",
                    () -> new Mask.Painted(q, kv, x.rows())));
            f.addNote("Turn on the brush (B) and drag over the grid to toggle cells of " + x.blockQ() + " x "
                    + x.blockKv() + " tokens.");
            Button clear = new Button("Clear all cells");
            clear.setOnAction(e -> set(path, "Clear painted cells", () -> new Mask.Painted(x.blockQ(), x.blockKv(), List.of())));
            f.addControl("clear", "", clear);
            rows(f, "cells", x.rows(), rows -> set(path, "Set painted cells", () -> new Mask.Painted(x.blockQ(), x.blockKv(), rows)));
        } else if (m instanceof Mask.And x) {
            f.addNote(count(x.children().size(), "child", "children") + ". A pair attends when every child attends. Select it and pick "
                    + "from the palette to add a child.");
        } else if (m instanceof Mask.Or x) {
            f.addNote(count(x.children().size(), "child", "children") + ". A pair attends when some child attends.");
        } else if (m instanceof Mask.Not) {
            f.addNote("A pair attends when the child does not.");
        } else if (m instanceof Mask.PerHead x) {
            f.addNote(count(x.variants().size(), "variant", "variants") + ": head h uses variant h mod " + x.variants().size()
                    + ". Pick the head shown on the grid above it.");
        }
        return f;
    }

    static String count(int n, String one, String many) {
        return n + " " + (n == 1 ? one : many);
    }

    private interface BlockCommit {
        String apply(int q, int kv);
    }

    private static void blocks(Form f, int q, int kv, BlockCommit commit) {
        ComboBox<Integer> cq = Form.blockChoice(q);
        ComboBox<Integer> ckv = Form.blockChoice(kv);
        cq.setId("field-block-q");
        ckv.setId("field-block-kv");
        Runnable apply = () -> {
            if (!Objects.equals(cq.getValue(), q) || !Objects.equals(ckv.getValue(), kv)) {
                f.showError("block", commit.apply(cq.getValue(), ckv.getValue()));
            }
        };
        cq.setOnAction(e -> apply.run());
        ckv.setOnAction(e -> apply.run());
        f.addControl("block", "block q x kv", new HBox(4, cq, new Label("x"), ckv));
    }

    private interface RowsCommit {
        String apply(List<IntArray> rows);
    }

    /** Rows of kv-block indices as text, one q-block per line ("0 3 5"); Apply commits. */
    private static void rows(Form f, String key, List<IntArray> rows, RowsCommit commit) {
        StringBuilder sb = new StringBuilder();
        int shown = Math.min(rows.size(), 2000);
        for (int r = 0; r < shown; r++) {
            IntArray row = rows.get(r);
            for (int i = 0; i < row.size(); i++) {
                sb.append(i == 0 ? "" : " ").append(row.get(i));
            }
            sb.append('\n');
        }
        TextArea area = new TextArea(sb.toString());
        area.setPrefRowCount(6);
        area.setPrefColumnCount(18);
        area.setEditable(rows.size() <= shown);
        Button apply = new Button("Apply rows");
        apply.setDisable(!area.isEditable());
        apply.setOnAction(e -> {
            List<IntArray> parsed = new ArrayList<>();
            String[] lines = area.getText().split("\n", -1);
            int last = lines.length;
            while (last > 0 && lines[last - 1].isBlank()) {
                last--;
            }
            for (int r = 0; r < last; r++) {
                String line = lines[r].trim();
                if (line.isEmpty()) {
                    parsed.add(IntArray.of());
                    continue;
                }
                String[] parts = line.split("[,\\s]+");
                int[] v = new int[parts.length];
                for (int i = 0; i < parts.length; i++) {
                    try {
                        v[i] = Integer.parseInt(parts[i]);
                    } catch (NumberFormatException ex) {
                        f.showError(key, "line " + (r + 1) + ": '" + parts[i] + "' is not a kv-block index");
                        return;
                    }
                }
                parsed.add(IntArray.of(v));
            }
            f.showError(key, commit.apply(parsed));
        });
        VBox box = new VBox(4, area, apply);
        f.addControl(key, key + " (one q-block a line)", box);
    }

    private void documents(Form f, NodePath path, Mask.Documents x, Dims d) {
        if (x.perBatch().size() == 1 && x.perBatch().get(0) instanceof Mask.Lengths l) {
            f.addIntList("lengths", "lengths", l.lengths().toArray(),
                    v -> set(path, "Set document lengths", () -> Mask.Documents.ofLengths(v)));
            f.addNote("Sum " + l.lengths().sum() + " of " + Math.max(d.seqQ(), d.seqKv())
                    + " tokens; tokens past the sum are padding.");
            return;
        }
        for (int b = 0; b < x.perBatch().size(); b++) {
            Mask.Segments s = x.perBatch().get(b);
            int batch = b;
            if (s instanceof Mask.Lengths l) {
                f.addIntList("per_batch/" + b + "/lengths", "batch " + b, l.lengths().toArray(), v -> set(path,
                        "Set document lengths of batch " + batch, () -> {
                            List<Mask.Segments> all = new ArrayList<>(x.perBatch());
                            all.set(batch, new Mask.Lengths(IntArray.of(v)));
                            return new Mask.Documents(all);
                        }));
            } else if (s instanceof Mask.SegmentIds ids) {
                f.addNote("batch " + b + ": segment ids (" + ids.q().size() + " q, " + ids.kv().size() + " kv), edit in the file");
            }
        }
    }
}
