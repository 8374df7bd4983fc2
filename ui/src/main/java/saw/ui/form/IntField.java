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
    /** The last value other than unbounded, which unticking "unbounded" brings back. */
    private int lastBounded;
    private final boolean allowUnbounded;

    IntField(Form.Row row, int value, int sliderMax, boolean allowUnbounded, IntFunction<String> commit) {
        this.row = row;
        this.commit = commit;
        this.committed = value;
        this.allowUnbounded = allowUnbounded;
        this.lastBounded = value >= 0 ? value : Math.max(0, sliderMax > 0 ? sliderMax / 8 : 0);
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
            unbounded.setOnAction(e -> submit(unbounded.isSelected() ? -1 : lastBounded));
            getChildren().add(unbounded);
        } else {
            unbounded = null;
        }
    }

    /**
     * Keeps the last bounded value in {@code memory} under {@code key}, so that it outlives this field: editors are
     * rebuilt after every edit, and unticking "unbounded" must bring back the value from before it was ticked.
     */
    public void rememberBounded(java.util.Map<String, Integer> memory, String key) {
        this.memory = memory;
        this.memoryKey = key;
        if (committed >= 0) {
            memory.put(key, committed);
        } else if (memory.containsKey(key)) {
            lastBounded = memory.get(key);
        }
    }

    private java.util.Map<String, Integer> memory;
    private String memoryKey;

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
        if (text.isDisabled()) {
            return;
        }
        Integer v = parse(text.getText());
        if (v == null) {
            row.showError(notAnInt(text.getText()));
            return;
        }
        if (v < 0 && allowUnbounded) {
            // -1 means unbounded in a config; in the window that is the box, so a typed negative is a mistake
            row.showError(v + " is below 0; tick \"unbounded\" for no limit");
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
            if (v >= 0) {
                lastBounded = v;
                if (memory != null) {
                    memory.put(memoryKey, v);
                }
            }
            row.showError(null);
        } else {
            row.showError(error);
        }
        text.setText(Integer.toString(v));
        if (unbounded != null) {
            unbounded.setSelected(committed < 0);
            text.setDisable(committed < 0);
            if (slider != null) {
                slider.setDisable(committed < 0);
            }
        }
    }

    /** Why {@code s} is not an int: not a whole number at all, or one outside the int range. */
    public static String notAnInt(String s) {
        String t = s.trim();
        try {
            new java.math.BigInteger(t.replace("_", "").replace(",", ""));
            return "'" + t + "' is out of range (whole numbers from " + Integer.MIN_VALUE + " to " + Integer.MAX_VALUE + ")";
        } catch (NumberFormatException e) {
            return "'" + t + "' is not a whole number";
        }
    }

    public static Integer parse(String s) {
        try {
            return Integer.valueOf(s.trim().replace("_", "").replace(",", ""));
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
