package saw.ui.nsa;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import javafx.css.CssMetaData;
import javafx.css.Styleable;
import javafx.css.StyleableObjectProperty;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.layout.Region;
import javafx.scene.paint.Color;
import saw.ui.StyleableColours;

/**
 * One q-tile's selection as a grid: a row per token, a column per kv-block chosen by any of them; a cell is filled
 * where the token chose the block, in the shared colour when more than one token of the tile chose it. Colours come
 * from the stylesheet ({@code .nsa-tile}).
 */
final class TileSelectionCanvas extends Region {
    private final Canvas canvas = new Canvas();
    private final StyleableObjectProperty<Color> emptyColor = StyleableColours.property(this, "emptyColor", Color.web("#f4f4f2"), EMPTY_CSS);
    private final StyleableObjectProperty<Color> chosenColor = StyleableColours.property(this, "chosenColor", Color.web("#0072b2"), CHOSEN_CSS);
    private final StyleableObjectProperty<Color> sharedColor = StyleableColours.property(this, "sharedColor", Color.web("#e69f00"), SHARED_CSS);
    private TileSelection tile;

    TileSelectionCanvas() {
        getStyleClass().add("nsa-tile");
        getChildren().add(canvas);
        widthProperty().addListener(o -> draw());
        heightProperty().addListener(o -> draw());
        emptyColor.addListener(o -> draw());
        chosenColor.addListener(o -> draw());
        sharedColor.addListener(o -> draw());
        setMinSize(100, 100);
    }

    void show(TileSelection tile) {
        this.tile = tile;
        draw();
    }

    @Override
    protected void layoutChildren() {
        canvas.setWidth(getWidth());
        canvas.setHeight(getHeight());
    }

    private void draw() {
        double w = getWidth();
        double h = getHeight();
        canvas.setWidth(w);
        canvas.setHeight(h);
        GraphicsContext g = canvas.getGraphicsContext2D();
        g.clearRect(0, 0, w, h);
        if (tile == null || tile.blocks().length == 0) {
            return;
        }
        int rows = tile.endToken() - tile.firstToken();
        int[] shared = tile.sharedBy();
        int cols = shared.length;
        double cw = w / cols;
        double rh = h / rows;
        g.setFill(emptyColor.get());
        g.fillRect(0, 0, cw * cols, rh * rows);
        Color chosen = chosenColor.get();
        Color both = sharedColor.get();
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                if (tile.chose(r, c)) {
                    g.setFill(shared[c] > 1 ? both : chosen);
                    // a hairline gap between cells when they are large enough to show it
                    double gap = cw > 4 && rh > 4 ? 1 : 0;
                    g.fillRect(c * cw, r * rh, Math.max(1, cw - gap), Math.max(1, rh - gap));
                }
            }
        }
    }

    private static final CssMetaData<TileSelectionCanvas, Color> EMPTY_CSS = StyleableColours.meta("-saw-empty-color", Color.web("#f4f4f2"), v -> v.emptyColor);
    private static final CssMetaData<TileSelectionCanvas, Color> CHOSEN_CSS = StyleableColours.meta("-saw-chosen-color", Color.web("#0072b2"), v -> v.chosenColor);
    private static final CssMetaData<TileSelectionCanvas, Color> SHARED_CSS = StyleableColours.meta("-saw-shared-color", Color.web("#e69f00"), v -> v.sharedColor);
    private static final List<CssMetaData<? extends Styleable, ?>> CSS;

    static {
        List<CssMetaData<? extends Styleable, ?>> all = new ArrayList<>(Region.getClassCssMetaData());
        all.addAll(List.of(EMPTY_CSS, CHOSEN_CSS, SHARED_CSS));
        CSS = Collections.unmodifiableList(all);
    }

    public static List<CssMetaData<? extends Styleable, ?>> getClassCssMetaData() {
        return CSS;
    }

    @Override
    public List<CssMetaData<? extends Styleable, ?>> getCssMetaData() {
        return CSS;
    }
}
