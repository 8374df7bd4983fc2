package saw.ui.composer;

import javafx.geometry.Orientation;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.MenuButton;
import javafx.scene.control.MenuItem;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.SplitPane;
import javafx.scene.control.Tooltip;
import javafx.scene.control.TreeCell;
import javafx.scene.control.TreeItem;
import javafx.scene.control.TreeView;
import javafx.scene.input.KeyCode;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import saw.engine.mask.Mask;
import saw.ui.model.ComposerModel;
import saw.ui.model.MaskEdits;
import saw.ui.model.MaskText;
import saw.ui.model.NodePath;
import saw.ui.model.Primitive;

/**
 * The left side of the window: a palette of primitives, the mask tree with group/reorder/delete, and the editor of
 * the selected node. The tree is rebuilt from the composition after every change (trees are small) and the
 * selection follows the view-model's.
 */
public final class ComposerView extends VBox {
    private final ComposerModel model;
    private final TreeView<NodePath> tree = new TreeView<>();
    private boolean syncing;

    public ComposerView(ComposerModel model) {
        this.model = model;
        getStyleClass().addAll("side-panel", "composer");
        setMinWidth(300);
        setPrefWidth(360);

        Label paletteTitle = new Label("Palette");
        paletteTitle.getStyleClass().add("section-title");
        FlowPane palette = new FlowPane(4, 4);
        palette.setId("palette");
        for (Primitive p : Primitive.values()) {
            Button b = new Button(p.key());
            b.setId("add-" + p.key());
            b.getStyleClass().add("palette-button");
            b.setMnemonicParsing(false);
            b.setTooltip(new Tooltip(p.description() + "\nAdded beside the selected node, or into the selected group."));
            b.setOnAction(e -> model.addPrimitive(p));
            palette.getChildren().add(b);
        }

        MenuButton group = new MenuButton("Group");
        group.setId("group");
        for (MaskEdits.Group g : MaskEdits.Group.values()) {
            MenuItem item = new MenuItem("under " + g.key());
            item.setId("group-" + g.key());
            item.setOnAction(e -> model.group(g));
            group.getItems().add(item);
        }
        Button ungroup = new Button("Ungroup");
        ungroup.setId("ungroup");
        ungroup.setOnAction(e -> model.ungroup());
        Button up = new Button("\u2191");
        up.setId("move-up");
        up.setTooltip(new Tooltip("Move up (Alt+Up)"));
        up.setOnAction(e -> model.move(-1));
        Button down = new Button("\u2193");
        down.setId("move-down");
        down.setTooltip(new Tooltip("Move down (Alt+Down)"));
        down.setOnAction(e -> model.move(+1));
        Button delete = new Button("Delete");
        delete.setId("delete-node");
        delete.setOnAction(e -> model.delete());
        FlowPane treeTools = new FlowPane(4, 4, group, ungroup, up, down, delete);
        for (javafx.scene.Node n : treeTools.getChildren()) {
            ((javafx.scene.control.Control) n).setMinWidth(USE_PREF_SIZE);
        }

        Label treeTitle = new Label("Mask");
        treeTitle.getStyleClass().add("section-title");
        tree.setId("mask-tree");
        tree.setShowRoot(true);
        tree.setCellFactory(t -> new MaskCell());
        tree.setOnKeyPressed(e -> {
            if (e.getCode() == KeyCode.DELETE || e.getCode() == KeyCode.BACK_SPACE) {
                model.delete();
                e.consume();
            } else if (e.isAltDown() && e.getCode() == KeyCode.UP) {
                model.move(-1);
                e.consume();
            } else if (e.isAltDown() && e.getCode() == KeyCode.DOWN) {
                model.move(+1);
                e.consume();
            }
        });
        tree.getSelectionModel().selectedItemProperty().addListener((o, old, now) -> {
            if (!syncing && now != null) {
                model.selectionProperty().set(now.getValue());
            }
        });

        NodeEditor editor = new NodeEditor(model);
        ScrollPane editorScroll = new ScrollPane(editor);
        editorScroll.setFitToWidth(true);
        editorScroll.setId("node-editor");
        VBox treeBox = new VBox(4, treeTitle, treeTools, tree);
        VBox.setVgrow(tree, Priority.ALWAYS);
        SplitPane split = new SplitPane(treeBox, editorScroll);
        split.setOrientation(Orientation.VERTICAL);
        split.setDividerPositions(0.45);
        VBox.setVgrow(split, Priority.ALWAYS);
        getChildren().addAll(paletteTitle, palette, split);

        Runnable refreshTools = () -> {
            ungroup.setDisable(!model.canUngroup());
            up.setDisable(!model.canMove(-1));
            down.setDisable(!model.canMove(+1));
        };
        model.compositionProperty().addListener(o -> {
            rebuild();
            refreshTools.run();
        });
        model.problemsProperty().addListener(o -> tree.refresh());
        model.selectionProperty().addListener(o -> {
            select(model.selectionProperty().get());
            refreshTools.run();
        });
        rebuild();
        refreshTools.run();
    }

    public TreeView<NodePath> tree() {
        return tree;
    }

    private void rebuild() {
        syncing = true;
        try {
            tree.setRoot(item(model.composition().mask(), NodePath.ROOT));
        } finally {
            syncing = false;
        }
        select(model.selectionProperty().get());
    }

    private TreeItem<NodePath> item(Mask m, NodePath path) {
        TreeItem<NodePath> it = new TreeItem<>(path);
        it.setExpanded(true);
        var kids = MaskEdits.children(m);
        for (int i = 0; i < kids.size(); i++) {
            it.getChildren().add(item(kids.get(i), path.child(i)));
        }
        return it;
    }

    private void select(NodePath path) {
        TreeItem<NodePath> it = tree.getRoot();
        for (int level = 0; it != null && level < path.depth(); level++) {
            int i = path.step(level);
            it = i < it.getChildren().size() ? it.getChildren().get(i) : null;
        }
        if (it != null && tree.getSelectionModel().getSelectedItem() != it) {
            syncing = true;
            try {
                tree.getSelectionModel().select(it);
            } finally {
                syncing = false;
            }
        }
    }

    private final class MaskCell extends TreeCell<NodePath> {
        @Override
        protected void updateItem(NodePath path, boolean empty) {
            super.updateItem(path, empty);
            getStyleClass().remove("has-problem");
            setTooltip(null);
            if (empty || path == null || !MaskEdits.exists(model.composition().mask(), path)) {
                setText(null);
                return;
            }
            Mask m = MaskEdits.at(model.composition().mask(), path);
            setText(MaskText.label(m));
            var problems = model.problemsAt(path);
            if (!problems.isEmpty()) {
                getStyleClass().add("has-problem");
                StringBuilder sb = new StringBuilder();
                problems.forEach(p -> sb.append(p.pointer()).append(": ").append(p.message()).append('\n'));
                setTooltip(new Tooltip(sb.toString().trim()));
            }
        }
    }
}
