package saw.ui.composer;

import javafx.geometry.Pos;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.Spinner;
import javafx.scene.control.SpinnerValueFactory;
import javafx.scene.control.TextField;
import javafx.scene.layout.HBox;
import saw.engine.mask.Dims;
import saw.ui.form.Form;
import saw.engine.config.MaskConfig;
import saw.ui.model.ComposerModel;
import saw.ui.model.LayoutModel;

/**
 * The sizes on top of the composer: sequence lengths, batch, heads, the tile size (q and kv apart), and the head
 * and batch selectors, which appear only when the mask varies with them.
 */
public final class SizesBar extends HBox {
    private final ComposerModel model;
    private final TextField seqQ = number("seq-q");
    private final TextField seqKv = number("seq-kv");
    private final TextField batch = number("batch");
    private final TextField heads = number("heads");
    private final ComboBox<Integer> blockQ = Form.blockChoice(128);
    private final ComboBox<Integer> blockKv = Form.blockChoice(128);
    private final Label error = new Label();

    public SizesBar(ComposerModel model, LayoutModel layout) {
        this.model = model;
        setSpacing(6);
        setAlignment(Pos.CENTER_LEFT);
        getStyleClass().add("sizes-bar");
        blockQ.setId("tile-q");
        blockKv.setId("tile-kv");
        error.setId("sizes-error");
        error.getStyleClass().add("field-error");
        for (TextField f : new TextField[] {seqQ, seqKv, batch, heads}) {
            f.setOnAction(e -> commit());
            f.focusedProperty().addListener((o, was, is) -> {
                if (!is) {
                    commit();
                }
            });
        }
        blockQ.setOnAction(e -> commitBlocks());
        blockKv.setOnAction(e -> commitBlocks());

        Spinner<Integer> batchPick = selector("show-batch", layout.batchProperty());
        Spinner<Integer> headPick = selector("show-head", layout.headProperty());
        Label batchLabel = new Label("showing batch");
        Label headLabel = new Label("head");
        layout.compiledProperty().addListener((o, old, c) -> {
            boolean byBatch = c != null && c.layout().mask().batchPeriod() > 1;
            boolean byHead = c != null && c.layout().mask().headPeriod() > 1;
            int b = c == null ? 1 : c.layout().dims().batch();
            int h = c == null ? 1 : c.layout().dims().heads();
            ((SpinnerValueFactory.IntegerSpinnerValueFactory) batchPick.getValueFactory()).setMax(b - 1);
            ((SpinnerValueFactory.IntegerSpinnerValueFactory) headPick.getValueFactory()).setMax(h - 1);
            show(batchLabel, byBatch);
            show(batchPick, byBatch);
            show(headLabel, byHead);
            show(headPick, byHead);
        });
        show(batchLabel, false);
        show(batchPick, false);
        show(headLabel, false);
        show(headPick, false);

        getChildren().addAll(new Label("seq q"), seqQ, new Label("kv"), seqKv, new Label("batch"), batch,
                new Label("heads"), heads, new Label("tile"), blockQ, new Label("x"), blockKv,
                batchLabel, batchPick, headLabel, headPick, error);
        model.compositionProperty().addListener(o -> show(model.composition()));
        show(model.composition());
    }

    private static void show(javafx.scene.Node n, boolean on) {
        n.setVisible(on);
        n.setManaged(on);
    }

    private static Spinner<Integer> selector(String id, javafx.beans.property.IntegerProperty target) {
        Spinner<Integer> s = new Spinner<>(0, 0, 0);
        s.setId(id);
        s.setPrefWidth(70);
        s.setEditable(true);
        s.getValueFactory().valueProperty().addListener((o, a, b) -> {
            if (b != null) {
                target.set(b);
            }
        });
        target.addListener((o, a, b) -> s.getValueFactory().setValue(b.intValue()));
        return s;
    }

    private static TextField number(String id) {
        TextField f = new TextField();
        f.setId(id);
        f.setPrefColumnCount(6);
        return f;
    }

    private void show(MaskConfig c) {
        seqQ.setText(Integer.toString(c.dims().seqQ()));
        seqKv.setText(Integer.toString(c.dims().seqKv()));
        batch.setText(Integer.toString(c.dims().batch()));
        heads.setText(Integer.toString(c.dims().heads()));
        blockQ.setValue(c.block().q());
        blockKv.setValue(c.block().kv());
    }

    private void commit() {
        int[] v = new int[4];
        TextField[] fields = {seqQ, seqKv, batch, heads};
        String[] names = {"seq q", "kv", "batch", "heads"};
        int[] max = {Dims.MAX_SEQ, Dims.MAX_SEQ, Integer.MAX_VALUE, Integer.MAX_VALUE};
        // every field with a problem is named and marked; the others stay as they are
        java.util.List<String> problems = new java.util.ArrayList<>();
        clear();
        for (int i = 0; i < 4; i++) {
            Integer n = saw.ui.form.IntField.parse(fields[i].getText());
            if (n == null) {
                problems.add(names[i] + ": " + saw.ui.form.IntField.notAnInt(fields[i].getText()));
            } else if (n < 1 || n > max[i]) {
                problems.add(names[i] + ": " + n + " is not in 1.." + max[i]);
            } else {
                v[i] = n;
                continue;
            }
            fields[i].getStyleClass().add("invalid");
        }
        if (!problems.isEmpty()) {
            error.setText(String.join("; ", problems));
            return;
        }
        try {
            model.setDims(new Dims(v[0], v[1], v[2], v[3]));
        } catch (IllegalArgumentException e) {
            error.setText(e.getMessage());
        }
    }

    private void commitBlocks() {
        Integer q = blockQ.getValue();
        Integer kv = blockKv.getValue();
        if (q != null && kv != null && (q != model.composition().block().q() || kv != model.composition().block().kv())) {
            model.setBlocks(q, kv);
        }
    }

    private void clear() {
        error.setText("");
        for (TextField f : new TextField[] {seqQ, seqKv, batch, heads}) {
            f.getStyleClass().remove("invalid");
        }
    }
}
