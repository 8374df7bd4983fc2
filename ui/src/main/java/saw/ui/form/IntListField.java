package saw.ui.form;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import javafx.scene.control.Button;
import javafx.scene.control.ListView;
import javafx.scene.control.TextField;
import javafx.scene.control.cell.TextFieldListCell;
import javafx.scene.layout.HBox;
import javafx.scene.layout.VBox;
import javafx.util.StringConverter;

/**
 * A list of whole numbers (document lengths, token indices): edit a value in place, add, remove, or type the whole
 * list as "3000, 9000, 4384". Every change commits the whole list; the commit function answers an error or null.
 */
public final class IntListField extends VBox {
    private final ObservableList<Integer> items;
    private final ListView<Integer> list;
    private final TextField typed = new TextField();
    private final Function<int[], String> commit;
    private final Form.Row row;

    IntListField(Form.Row row, int[] values, Function<int[], String> commit) {
        this.row = row;
        this.commit = commit;
        setSpacing(4);
        List<Integer> boxed = new ArrayList<>();
        for (int v : values) {
            boxed.add(v);
        }
        items = FXCollections.observableArrayList(boxed);
        list = new ListView<>(items);
        list.setEditable(true);
        list.setPrefHeight(Math.min(8, Math.max(3, values.length + 1)) * 24.0);
        list.setCellFactory(TextFieldListCell.forListView(new StringConverter<>() {
            @Override
            public String toString(Integer v) {
                return v == null ? "" : v.toString();
            }

            @Override
            public Integer fromString(String s) {
                Integer v = IntField.parse(s);
                if (v == null) {
                    row.showError(IntField.notAnInt(s));
                }
                return v;
            }
        }));
        list.setOnEditCommit(e -> {
            if (e.getNewValue() != null) {
                items.set(e.getIndex(), e.getNewValue());
                submit();
            }
        });
        Button add = new Button("Add");
        add.setOnAction(e -> {
            items.add(items.isEmpty() ? 0 : items.get(items.size() - 1));
            submit();
        });
        Button remove = new Button("Remove");
        remove.disableProperty().bind(list.getSelectionModel().selectedItemProperty().isNull());
        remove.setOnAction(e -> {
            items.remove(list.getSelectionModel().getSelectedIndex());
            submit();
        });
        typed.setPromptText("or type: 3000, 9000, 4384");
        typed.setText(join(values));
        typed.setOnAction(e -> {
            int[] parsed = parseList(typed.getText());
            if (parsed == null) {
                row.showError("'" + typed.getText().trim() + "' is not a comma-separated list of whole numbers");
                return;
            }
            List<Integer> b = new ArrayList<>();
            for (int v : parsed) {
                b.add(v);
            }
            items.setAll(b);
            submit();
        });
        getChildren().addAll(list, new HBox(4, add, remove), typed);
    }

    public TextField typedField() {
        return typed;
    }

    private void submit() {
        int[] v = items.stream().mapToInt(Integer::intValue).toArray();
        row.showError(commit.apply(v));
        typed.setText(join(v));
    }

    private static String join(int[] values) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < values.length; i++) {
            sb.append(i == 0 ? "" : ", ").append(values[i]);
        }
        return sb.toString();
    }

    static int[] parseList(String s) {
        String t = s.trim();
        if (t.startsWith("[") && t.endsWith("]")) {
            t = t.substring(1, t.length() - 1);
        }
        if (t.isBlank()) {
            return new int[0];
        }
        String[] parts = t.split("[,\\s]+");
        int[] out = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            Integer v = IntField.parse(parts[i]);
            if (v == null) {
                return null;
            }
            out[i] = v;
        }
        return out;
    }
}
