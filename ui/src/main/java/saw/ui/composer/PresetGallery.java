package saw.ui.composer;

import java.nio.IntBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import javafx.concurrent.Task;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.image.ImageView;
import javafx.scene.image.PixelFormat;
import javafx.scene.image.WritableImage;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.VBox;
import saw.engine.config.MaskConfig;
import saw.engine.config.Preset;
import saw.ui.grid.GridRaster;
import saw.ui.grid.Viewport;
import saw.ui.model.LayoutModel;

/**
 * Every preset as a card: a thumbnail drawn from its real compiled layout (head 0, batch 0), its name and
 * description. Layouts compile and thumbnails rasterise on a worker; a click opens the preset.
 */
public final class PresetGallery extends ScrollPane {
    private static final int THUMB = 150;

    /** ARGB of EMPTY, PARTIAL, FULL and the background, as on the grid. */
    private final int[] colors;

    public PresetGallery(List<Preset> presets, Executor executor, int[] colors, Consumer<MaskConfig> open) {
        this.colors = colors.clone();
        setId("preset-gallery");
        setFitToWidth(true);
        FlowPane cards = new FlowPane(10, 10);
        cards.getStyleClass().add("side-panel");
        setContent(cards);
        List<ImageView> thumbs = new ArrayList<>();
        for (Preset p : presets) {
            ImageView thumb = new ImageView();
            thumb.setFitWidth(THUMB);
            thumb.setFitHeight(THUMB);
            thumbs.add(thumb);
            Label title = new Label(p.name());
            title.getStyleClass().add("title");
            MaskConfig c = p.config();
            Label sizes = new Label(c.seqLenQ() + " x " + c.seqLenKv() + ", " + c.heads() + " heads, tiles " + c.block());
            sizes.getStyleClass().add("muted");
            sizes.setWrapText(true);
            sizes.setMaxWidth(THUMB + 60);
            Label description = new Label(c.description());
            description.setWrapText(true);
            description.setMaxWidth(THUMB + 60);
            VBox card = new VBox(thumb, title, sizes, description);
            card.getStyleClass().add("gallery-card");
            card.setId("preset-" + p.name());
            card.setPrefWidth(THUMB + 72);
            card.setOnMouseClicked(e -> open.accept(c));
            cards.getChildren().add(card);
        }
        Task<List<int[]>> render = new Task<>() {
            @Override
            protected List<int[]> call() {
                List<int[]> out = new ArrayList<>();
                for (Preset p : presets) {
                    out.add(thumbnail(p.config()));
                }
                return out;
            }
        };
        render.setOnSucceeded(e -> {
            List<int[]> pixels = render.getValue();
            for (int i = 0; i < pixels.size(); i++) {
                WritableImage img = new WritableImage(THUMB, THUMB);
                img.getPixelWriter().setPixels(0, 0, THUMB, THUMB, PixelFormat.getIntArgbInstance(),
                        IntBuffer.wrap(pixels.get(i)), THUMB);
                thumbs.get(i).setImage(img);
            }
        });
        executor.execute(render);
    }

    private int[] thumbnail(MaskConfig c) {
        var layout = LayoutModel.compile(c).layout();
        var grid = layout.grid(0, 0);
        int[] px = new int[THUMB * THUMB];
        new GridRaster(THUMB, THUMB).render(grid, Viewport.fit(grid.numQBlocks(), grid.numKvBlocks(), THUMB, THUMB),
                colors, px);
        return px;
    }
}
