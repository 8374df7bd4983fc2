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
        getChildren().addAll(swatch("empty"), new Label("EMPTY (skipped)"), swatch("partial"),
                new Label("PARTIAL (token mask applied)"), swatch("full"), new Label("FULL (no mask arithmetic)"));
    }

    public static Region swatch(String styleClass) {
        Region r = new Region();
        r.getStyleClass().addAll("legend-swatch", styleClass);
        return r;
    }
}
