package saw.ui.grid;

import javafx.geometry.Pos;
import javafx.scene.control.Label;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Region;

/** The three tile classes with their colours from the stylesheet, and what a blended pixel means. */
public final class Legend extends HBox {
    public Legend() {
        setSpacing(6);
        setAlignment(Pos.CENTER_LEFT);
        getStyleClass().add("legend");
        getChildren().addAll(swatch("empty"), label("EMPTY", "skipped by the kernel"), swatch("partial"),
                label("PARTIAL", "computed with the token mask applied"), swatch("full"),
                label("FULL", "computed with no mask arithmetic"));
        setMinWidth(USE_PREF_SIZE);
    }

    private static Label label(String text, String tip) {
        Label l = new Label(text);
        l.setTooltip(new javafx.scene.control.Tooltip(text + ": " + tip + ". Zoomed out, a pixel blends the colours of its tiles by their share."));
        l.setMinWidth(USE_PREF_SIZE);
        return l;
    }

    public static Region swatch(String styleClass) {
        Region r = new Region();
        r.getStyleClass().addAll("legend-swatch", styleClass);
        return r;
    }
}
