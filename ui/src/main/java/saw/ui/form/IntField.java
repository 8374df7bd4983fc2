package saw.ui.form;

import java.util.function.IntFunction;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.Slider;
import javafx.scene.control.TextField;
import javafx.scene.input.KeyCode;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;

/**
 * A whole number typed in a text field, with either a slider (when the range is known) or step buttons, and
 * optionally an "unbounded" box that stands for -1. Enter, losing focus, a step or letting go of the slider commits;
 * the commit function answers an error message (shown by the form at this field) or null.
 */
public final class IntField extends HBox {
    private final TextField text = new TextField();
    private final Slider slider;
    private final CheckBox unbounded;
    private final IntFunction<String> commit;
    private final Form.Row row;
    private int committed;

    IntField(Form.Row row, int value, int sliderMax, boolean allowUnbounded, IntFunction<String> commit) {
        this.row = row;
        this.commit = commit;
        this.committed = value;
        setSpacing(4);
        setAlignment(Pos.CENTER_LEFT);
        text.setPrefColumnCount(8);
        text.setText(Integer.toString(value));
        text.setOnAction(e -> commitText());
        text.focusedProperty().addListener((o, was, is) -> {
            if (!is) {
                commitText();
            }
        });
        text.setOnKeyPressed(e -> {
            if (e.getCode() == KeyCode.UP) {
                step(+1);
                e.consume();
            } else if (e.getCode() == KeyCode.DOWN) {
                step(-1);
                e.consume();
            }
        });
        getChildren().add(text);
        if (sliderMax > 0) {
            slider = new Slider(0, sliderMax, Math.max(0, Math.min(sliderMax, value)));
            HBox.setHgrow(slider, Priority.ALWAYS);
            slider.setMinWidth(40);
            slider.valueProperty().addListener((o, a, b) -> {
                if (slider.isValueChanging()) {
                    text.setText(Integer.toString((int) Math.round(b.doubleValue())));
                }
            });
            slider.valueChangingProperty().addListener((o, was, is) -> {
                if (!is) {
                    text.setText(Integer.toString((int) Math.round(slider.getValue())));
                    commitText();
                }
            });
            slider.setOnMouseReleased(e -> {
                text.setText(Integer.toString((int) Math.round(slider.getValue())));
                commitText();
            });
            getChildren().add(slider);
        } else {
            slider = null;
            Button minus = new Button("\u2212");
            Button plus = new Button("+");
            minus.setOnAction(e -> step(-1));
            plus.setOnAction(e -> step(+1));
            minus.setFocusTraversable(false);
            plus.setFocusTraversable(false);
            getChildren().addAll(minus, plus);
        }
        if (allowUnbounded) {
            unbounded = new CheckBox("unbounded");
            unbounded.setMinWidth(USE_PREF_SIZE);
            unbounded.setSelected(value < 0);
            text.setDisable(value < 0);
            if (slider != null) {
                slider.setDisable(value < 0);
            }
            unbounded.setOnAction(e -> submit(unbounded.isSelected() ? -1 : Math.max(0, sliderMax > 0 ? sliderMax / 8 : 0)));
            getChildren().add(unbounded);
        } else {
            unbounded = null;
        }
    }

    public TextField textField() {
        return text;
    }

    private void step(int delta) {
        Integer v = parse(text.getText());
        if (v != null) {
            submit(v + delta);
        }
    }

    private void commitText() {
        Integer v = parse(text.getText());
        if (v == null) {
            row.showError("'" + text.getText().trim() + "' is not a whole number");
            return;
        }
        if (v != committed || row.hasError()) {
            submit(v);
        }
    }

    private void submit(int v) {
        String error = commit.apply(v);
        if (error == null) {
            committed = v;
            row.showError(null);
        } else {
            row.showError(error);
        }
        text.setText(Integer.toString(v));
    }

    static Integer parse(String s) {
        try {
            return Integer.valueOf(s.trim().replace("_", "").replace(",", ""));
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
