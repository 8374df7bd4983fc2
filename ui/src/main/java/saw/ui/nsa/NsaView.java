package saw.ui.nsa;

import java.util.Locale;
import javafx.geometry.Pos;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Control;
import javafx.scene.control.Label;
import javafx.scene.control.Spinner;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;

/**
 * The NSA tab: which kv-blocks each token of one q-tile chose (rows are tokens, columns the blocks any of them
 * chose; blocks shared by several tokens in the shared colour), with the selection's source, S, seed and the tile.
 */
public final class NsaView extends BorderPane {
    private final NsaModel model;
    private final TileSelectionCanvas canvas = new TileSelectionCanvas();
    private final Label caption = new Label();

    public NsaView(NsaModel model) {
        this.model = model;
        setId("nsa-view");
        ChoiceBox<NsaModel.Source> source = new ChoiceBox<>();
        source.getItems().addAll(NsaModel.Source.values());
        source.valueProperty().bindBidirectional(model.sourceProperty());
        source.setId("nsa-source");
        Spinner<Integer> s = new Spinner<>(1, 64, model.selectedProperty().get());
        s.setId("nsa-s");
        s.setEditable(true);
        s.setPrefWidth(80);
        s.valueProperty().addListener((o, was, is) -> model.selectedProperty().set(is));
        Spinner<Integer> seed = new Spinner<>(0, Integer.MAX_VALUE, model.seedProperty().get());
        seed.setId("nsa-seed");
        seed.setEditable(true);
        seed.setPrefWidth(100);
        seed.valueProperty().addListener((o, was, is) -> model.seedProperty().set(is));
        Spinner<Integer> tile = new Spinner<>(0, Integer.MAX_VALUE, model.qTileProperty().get());
        tile.setId("nsa-q-tile");
        tile.setEditable(true);
        tile.setPrefWidth(100);
        tile.valueProperty().addListener((o, was, is) -> model.qTileProperty().set(is));
        // a flow: at narrow widths the fields wrap to a second line instead of squeezing their labels
        FlowPane controls = new FlowPane(8, 4, new Label("selection"), source, new Label("S"), s, new Label("seed"), seed,
                new Label("q-tile"), tile);
        controls.getStyleClass().add("toolbar");
        controls.setAlignment(Pos.CENTER_LEFT);
        controls.getChildren().forEach(n -> ((Control) n).setMinWidth(Region.USE_PREF_SIZE));
        caption.setId("nsa-caption");
        caption.setWrapText(true);
        setTop(new VBox(4, controls, caption));
        setCenter(canvas);
        model.resultProperty().addListener(o -> refresh());
        model.qTileProperty().addListener(o -> refresh());
        model.activeProperty().set(true);
        refresh();
    }

    private void refresh() {
        NsaModel.Result r = model.resultProperty().get();
        if (r == null) {
            caption.setText("making the selection\u2026");
            canvas.show(null);
            return;
        }
        if (r.failure() != null) {
            caption.setText("No NSA selection: " + r.failure());
            canvas.show(null);
            return;
        }
        TileSelection t = model.tile();
        canvas.show(t);
        int shared = 0;
        for (int n : t.sharedBy()) {
            shared += n > 1 ? 1 : 0;
        }
        caption.setText(String.format(Locale.ROOT, "tokens %d-%d (head %d): %d distinct kv-blocks of %d tokens, %d chosen by "
                + "more than one token; %.2f tokens per block", t.firstToken(), t.endToken() - 1, r.head(), t.blocks().length,
                r.selection().blockSize(), shared, t.sharing()));
    }
}
