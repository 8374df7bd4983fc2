package saw.ui.grid;

import java.nio.IntBuffer;
import javafx.geometry.Insets;
import javafx.scene.Scene;
import javafx.scene.canvas.Canvas;
import javafx.scene.control.Label;
import javafx.scene.image.PixelFormat;
import javafx.scene.image.WritableImage;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.VBox;
import javafx.stage.Stage;
import javafx.stage.Window;
import saw.ui.model.TileInfo;
import saw.ui.model.TokenTile;

/**
 * A tile at token level: every (q, kv) pair of it as a square, attending pairs in the FULL colour and the others in
 * the EMPTY colour, with the token ranges on the axes. Opened by a click on the grid.
 */
public final class TokenView extends BorderPane {
    private static final int SIDE = 560;
    private final Label heading = new Label();

    public TokenView(TokenTile tile, int attendArgb, int skipArgb) {
        getStyleClass().addAll("token-view", "side-panel");
        setId("token-view");
        TileInfo t = tile.info();
        int rows = tile.rows();
        int cols = tile.columns();
        int cell = Math.max(1, Math.min(SIDE / rows, SIDE / cols));
        int w = cols * cell;
        int h = rows * cell;
        int[] px = new int[w * h];
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                int argb = tile.attends(r, c) ? attendArgb : skipArgb;
                for (int y = r * cell; y < (r + 1) * cell; y++) {
                    java.util.Arrays.fill(px, y * w + c * cell, y * w + (c + 1) * cell, argb);
                }
            }
        }
        WritableImage img = new WritableImage(w, h);
        img.getPixelWriter().setPixels(0, 0, w, h, PixelFormat.getIntArgbInstance(), IntBuffer.wrap(px), w);
        Canvas canvas = new Canvas(w, h);
        canvas.getGraphicsContext2D().drawImage(img, 0, 0);
        heading.setText(t.text());
        heading.setId("token-view-heading");
        Label top = new Label("kv tokens " + t.kvStart() + " \u2192 " + (t.kvEnd() - 1));
        Label left = new Label("q tokens\n" + t.qStart() + "\n\u2193\n" + (t.qEnd() - 1));
        left.setPadding(new Insets(0, 6, 0, 0));
        HBox legend = new HBox(6, Legend.swatch("full"), new Label("attends"), Legend.swatch("empty"),
                new Label("does not (" + (t.pairs() - t.attending()) + " pairs)"));
        setTop(new VBox(4, heading, legend, top));
        setLeft(left);
        setCenter(canvas);
        setPadding(new Insets(10));
    }

    /**
     * Opens the view in its own window, owned by {@code owner}, with a Close button and Escape to close (a window
     * manager may draw no title bar, as under Xvfb).
     */
    public static Stage open(Window owner, TokenTile tile, int attendArgb, int skipArgb, java.util.List<String> stylesheets) {
        Stage s = new Stage();
        s.initOwner(owner);
        TileInfo t = tile.info();
        s.setTitle("Tile q-block " + t.qBlock() + " x kv-block " + t.kvBlock() + " at token level");
        Scene scene = new Scene(closable(new TokenView(tile, attendArgb, skipArgb), s, "token-view-close"));
        scene.getStylesheets().addAll(stylesheets);
        s.setScene(scene);
        s.show();
        return s;
    }

    /** {@code content} above a bar with a Close button; Escape in the window closes it too. */
    public static javafx.scene.Parent closable(javafx.scene.Node content, Stage window, String closeId) {
        javafx.scene.control.Button close = new javafx.scene.control.Button("Close");
        close.setId(closeId);
        close.setCancelButton(true);
        close.setOnAction(e -> window.close());
        HBox bar = new HBox(close);
        bar.setAlignment(javafx.geometry.Pos.CENTER_RIGHT);
        bar.getStyleClass().add("status-bar");
        BorderPane root = new BorderPane(content);
        root.setBottom(bar);
        root.addEventFilter(javafx.scene.input.KeyEvent.KEY_PRESSED, e -> {
            if (e.getCode() == javafx.scene.input.KeyCode.ESCAPE) {
                window.close();
                e.consume();
            }
        });
        return root;
    }
}
