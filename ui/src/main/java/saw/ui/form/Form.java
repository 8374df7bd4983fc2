package saw.ui.form;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.function.IntFunction;
import javafx.scene.Node;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.layout.ColumnConstraints;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.Priority;

/**
 * A two-column form: a label and a control per row, with an error line under each control that shows the message
 * for that field (from a failed commit, or a problem the engine reports at that field's JSON path). Controls get
 * the id {@code field-KEY} and error lines {@code error-KEY}, so tests and problem routing find them by key.
 */
public final class Form extends GridPane {
    private final Map<String, Row> rows = new LinkedHashMap<>();
    private int nextRow;

    public Form() {
        setHgap(8);
        setVgap(2);
        ColumnConstraints labels = new ColumnConstraints();
        // labels keep their full text; the controls beside them give way
        labels.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
        ColumnConstraints controls = new ColumnConstraints();
        controls.setHgrow(Priority.ALWAYS);
        controls.setFillWidth(true);
        getColumnConstraints().addAll(labels, controls);
    }

    /** One field: where its error shows. */
    public final class Row {
        private final Label error = new Label();
        private boolean hasError;

        Row(String key) {
            error.setId("error-" + key.replace('/', '-'));
            error.getStyleClass().add("field-error");
            error.setManaged(false);
            error.setVisible(false);
            error.setMaxWidth(320);
        }

        /** Shows a message under the field, or clears it with null. */
        public void showError(String message) {
            hasError = message != null;
            error.setText(message == null ? "" : message);
            error.setManaged(hasError);
            error.setVisible(hasError);
        }

        public boolean hasError() {
            return hasError;
        }
    }

    public IntField addInt(String key, String label, int value, int sliderMax, boolean unbounded, IntFunction<String> commit) {
        Row row = new Row(key);
        IntField f = new IntField(row, value, sliderMax, unbounded, commit);
        f.textField().setId("field-" + key.replace('/', '-'));
        add(key, label, f, row);
        return f;
    }

    public IntListField addIntList(String key, String label, int[] values, Function<int[], String> commit) {
        Row row = new Row(key);
        IntListField f = new IntListField(row, values, commit);
        f.setId("field-" + key.replace('/', '-'));
        add(key, label, f, row);
        return f;
    }

    /** A control whose commits the caller handles; errors still show under it through {@link #showError}. */
    public <T extends Node> T addControl(String key, String label, T control) {
        if (control.getId() == null) {
            control.setId("field-" + key);
        }
        add(key, label, control, new Row(key));
        return control;
    }

    /** A row of text only. */
    public Label addNote(String text) {
        Label l = new Label(text);
        l.setWrapText(true);
        l.getStyleClass().add("muted");
        add(l, 0, nextRow++, 2, 1);
        return l;
    }

    public static ComboBox<Integer> blockChoice(int value) {
        ComboBox<Integer> c = new ComboBox<>();
        for (int b = 16; b <= 512; b *= 2) {
            c.getItems().add(b);
        }
        c.setValue(value);
        c.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
        return c;
    }

    /**
     * Shows {@code message} at the field whose key the problem's field path names ("left", "block/0" under
     * "block", "per_batch/1/lengths" under "lengths"); false when no field matches.
     */
    public boolean showError(String fieldPath, String message) {
        for (Map.Entry<String, Row> e : rows.entrySet()) {
            String k = e.getKey();
            if (fieldPath.equals(k) || fieldPath.startsWith(k + "/") || fieldPath.endsWith("/" + k)
                    || fieldPath.contains("/" + k + "/")) {
                e.getValue().showError(message);
                return true;
            }
        }
        return false;
    }

    private void add(String key, String label, Node control, Row row) {
        Label l = new Label(label);
        l.getStyleClass().add("field-label");
        l.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
        l.setLabelFor(control);
        add(l, 0, nextRow);
        add(control, 1, nextRow++);
        add(row.error, 1, nextRow++);
        rows.put(key, row);
    }
}
