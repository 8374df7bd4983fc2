package saw.ui.grid;

import javafx.beans.value.ObservableBooleanValue;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Region;

/**
 * Every mark the grid draws, with its colour from the stylesheet: the three tile classes, the area outside the
 * grid, and (while they show) the ejkernel extra-tile outlines and a brush stroke in progress.
 */
public final class Legend extends HBox {
    private static final String ZOOMED_OUT = " Zoomed out, a pixel shows the strongest class among the tiles under it"
            + " (FULL over PARTIAL over EMPTY), so a single attended tile stays visible.";

    /**
     * @param extraShown whether the ejkernel extra tiles are outlined
     * @param brushOn whether the brush is on (its stroke is drawn while dragging)
     */
    public Legend(ObservableBooleanValue extraShown, ObservableBooleanValue brushOn) {
        setSpacing(6);
        setAlignment(Pos.CENTER_LEFT);
        getStyleClass().add("legend");
        setId("legend");
        getChildren().addAll(swatch("empty"), label("EMPTY", "EMPTY: skipped by the kernel." + ZOOMED_OUT),
                swatch("partial"), label("PARTIAL", "PARTIAL: computed with the token mask applied." + ZOOMED_OUT),
                swatch("full"), label("FULL", "FULL: computed with no mask arithmetic." + ZOOMED_OUT),
                swatch("outside"), label("outside", "Outside the grid: no tokens there."));
        entry(extraShown, "mark", "extra (ejkernel)",
                "Outlined: EMPTY tiles that the ejkernel intervals make a kernel compute anyway.");
        entry(brushOn, "stroke", "brush stroke", "Filled: the tiles the brush stroke in progress toggles.");
        setMinWidth(USE_PREF_SIZE);
    }

    private void entry(ObservableBooleanValue shown, String styleClass, String text, String tip) {
        Node s = swatch(styleClass);
        Node l = label(text, tip);
        for (Node n : new Node[] {s, l}) {
            n.visibleProperty().bind(shown);
            n.managedProperty().bind(shown);
        }
        getChildren().addAll(s, l);
    }

    private static Label label(String text, String tip) {
        Label l = new Label(text);
        l.setTooltip(new Tooltip(tip));
        l.setMinWidth(USE_PREF_SIZE);
        return l;
    }

    public static Region swatch(String styleClass) {
        Region r = new Region();
        r.getStyleClass().addAll("legend-swatch", styleClass);
        return r;
    }
}
