package saw.ui.nsa;

import java.util.Locale;
import javafx.scene.control.Label;
import javafx.scene.layout.ColumnConstraints;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import saw.engine.gpu.NsaGpu;
import saw.engine.nsa.NsaStats;

/** The inspector's NSA section: the selection's pairs and how much the tokens of a q-tile share their blocks. */
public final class NsaStatsPane extends VBox {
    private final GridPane rows = new GridPane();
    private final Label pairs = value("nsa-pairs");
    private final Label distinct = value("nsa-distinct");
    private final Label sharing = value("nsa-sharing");
    private final Label walk = value("nsa-walk-sharing");

    public NsaStatsPane(NsaModel model) {
        super(4);
        Label title = new Label("NSA selection");
        title.getStyleClass().add("section-title");
        rows.setHgap(10);
        rows.setVgap(2);
        // names keep their words; the values beside them take the rest of the inspector's width and wrap
        ColumnConstraints names = new ColumnConstraints();
        names.setMinWidth(Region.USE_PREF_SIZE);
        ColumnConstraints values = new ColumnConstraints();
        values.setHgrow(Priority.ALWAYS);
        rows.getColumnConstraints().addAll(names, values);
        rows.addRow(0, name("selected pairs"), pairs);
        rows.addRow(1, name("blocks per q-tile"), distinct);
        rows.addRow(2, name("tokens per block"), sharing);
        rows.addRow(3, name("shared walk"), walk);
        getChildren().addAll(title, rows);
        model.resultProperty().addListener((o, was, r) -> {
            if (r == null || r.stats() == null) {
                String why = r == null ? "open the NSA tab" : "-";
                pairs.setText(why);
                distinct.setText("-");
                sharing.setText("-");
                walk.setText("-");
                return;
            }
            NsaStats s = r.stats();
            pairs.setText(String.format(Locale.ROOT, "%,d", s.selectedPairs()));
            distinct.setText(String.format(Locale.ROOT, "%.1f mean, %d max (of %d tokens)", s.meanDistinctBlocks(),
                    s.maxDistinctBlocks(), s.tileTokens()));
            sharing.setText(String.format(Locale.ROOT, "%.2f", s.meanSharing()));
            walk.setText(walkText(r.walkSharing(), r.selection().blockSize()));
        });
        pairs.setText("open the NSA tab");
    }

    /**
     * The sharing the GPU forward's rule weighs, and what it decides (Hopper, 9-16 heads a kv head) per head dim for
     * the selection's block size.
     */
    static String walkText(double sharing, int block) {
        if (Double.isNaN(sharing)) {
            return "-";
        }
        double least128 = NsaGpu.Forward.sharedMinSharing(128, block);
        double least64 = NsaGpu.Forward.sharedMinSharing(64, block);
        return String.format(Locale.ROOT, "%.2f tokens per block over %d-token tiles, so on Hopper with 9-16 heads per "
                + "kv head the forward runs %s at head dim 128 and %s at head dim 64 (the walk from %.2f and %.2f on)",
                sharing, NsaGpu.SHARED_TOKENS, order(sharing >= least128), order(sharing >= least64), least128,
                least64);
    }

    private static String order(boolean walk) {
        return walk ? "the shared walk" : "the warp order";
    }

    private static Label name(String text) {
        Label l = new Label(text);
        l.getStyleClass().add("field-label");
        l.setMinWidth(Region.USE_PREF_SIZE);
        return l;
    }

    private static Label value(String id) {
        Label l = new Label("-");
        l.setId(id);
        l.getStyleClass().add("value");
        l.setWrapText(true);
        l.setMinHeight(Region.USE_PREF_SIZE);
        return l;
    }
}
