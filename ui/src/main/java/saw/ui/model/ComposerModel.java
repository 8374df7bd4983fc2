package saw.ui.model;

import saw.engine.config.BlockSize;
import saw.engine.config.MaskConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.SimpleObjectProperty;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.MaskChecks;

/**
 * The composer's view-model: the composition being edited, its undo history, the selected node, and the problems
 * {@link MaskChecks} finds, placed at the node and field they are about. Every change goes through
 * {@link CommandStack#execute}, so each one can be undone.
 */
public final class ComposerModel {
    /** A problem placed at a node of the tree; {@code field} is "" for the node as a whole. */
    public record FieldProblem(NodePath node, String field, String pointer, String message) {}

    private final CommandStack<MaskConfig> history;
    private final ObjectProperty<NodePath> selection = new SimpleObjectProperty<>(this, "selection", NodePath.ROOT);
    private final ReadOnlyObjectWrapper<List<FieldProblem>> problems =
            new ReadOnlyObjectWrapper<>(this, "problems", List.of());

    public ComposerModel(MaskConfig initial) {
        this.history = new CommandStack<>(initial);
        // an invalidation listener, added first, so problems and selection are current before any view hears of it
        history.stateProperty().addListener(o -> {
            MaskConfig now = history.state();
            problems.set(placeProblems(now));
            if (!MaskEdits.exists(now.mask(), selection.get())) {
                selection.set(NodePath.ROOT);
            }
        });
        problems.set(placeProblems(initial));
    }

    public CommandStack<MaskConfig> history() {
        return history;
    }

    public MaskConfig composition() {
        return history.state();
    }

    public ReadOnlyObjectProperty<MaskConfig> compositionProperty() {
        return history.stateProperty();
    }

    public ObjectProperty<NodePath> selectionProperty() {
        return selection;
    }

    public Mask selectedMask() {
        Mask root = composition().mask();
        return MaskEdits.exists(root, selection.get()) ? MaskEdits.at(root, selection.get()) : root;
    }

    /** Problems of the current composition, in document order. */
    public ReadOnlyObjectProperty<List<FieldProblem>> problemsProperty() {
        return problems.getReadOnlyProperty();
    }

    public List<FieldProblem> problemsAt(NodePath node) {
        List<FieldProblem> out = new ArrayList<>();
        for (FieldProblem p : problems.get()) {
            if (p.node().equals(node)) {
                out.add(p);
            }
        }
        return out;
    }

    public void addPrimitive(Primitive p) {
        MaskConfig c = composition();
        apply("Add " + p.key(), MaskEdits.add(c.mask(), selection.get(), p.create(c)));
    }

    public void group(MaskEdits.Group g) {
        apply("Group under " + g.key(), MaskEdits.wrap(composition().mask(), selection.get(), g));
    }

    public boolean canUngroup() {
        return MaskEdits.children(selectedMask()).size() == 1;
    }

    public void ungroup() {
        if (canUngroup()) {
            apply("Ungroup " + MaskText.key(selectedMask()), MaskEdits.unwrap(composition().mask(), selection.get()));
        }
    }

    public void delete() {
        apply("Delete " + MaskText.key(selectedMask()), MaskEdits.remove(composition().mask(), selection.get()));
    }

    public boolean canMove(int delta) {
        return MaskEdits.canMove(composition().mask(), selection.get(), delta);
    }

    public void move(int delta) {
        if (canMove(delta)) {
            apply(delta < 0 ? "Move up" : "Move down", MaskEdits.move(composition().mask(), selection.get(), delta));
        }
    }

    /** Replaces one node (a parameter edit); the selection stays on it. */
    public void setNode(NodePath path, Mask replacement, String what) {
        MaskConfig c = composition();
        history.execute(what, Configs.withMask(c, MaskEdits.replace(c.mask(), path, replacement)));
    }

    public void setDims(Dims d) {
        history.execute("Set sizes", Configs.withDims(composition(), d));
    }

    public void setBlocks(int q, int kv) {
        history.execute("Set tile size " + q + "x" + kv, composition().withBlock(new BlockSize(q, kv)));
    }

    /** Replaces the whole composition as one undoable edit (a preset applied). */
    public void replaceAll(String what, MaskConfig c) {
        selection.set(NodePath.ROOT);
        history.execute(what, c);
    }

    /** Starts over with a composition read from a file: the history is cleared and it counts as saved. */
    public void open(MaskConfig c) {
        selection.set(NodePath.ROOT);
        history.reset(c);
    }

    /** Whether the brush has something to paint: the selected node is a {@code painted} mask. */
    public boolean canPaint() {
        return selectedMask() instanceof Mask.Painted;
    }

    /**
     * Toggles the cells of the selected painted node that the token rectangles {q0, q1, k0, k1} cover, as one edit:
     * the stroke paints when its first cell was clear and erases when it was set.
     */
    public void paint(List<int[]> tokenRects) {
        if (!canPaint() || tokenRects.isEmpty()) {
            return;
        }
        Mask.Painted p = (Mask.Painted) selectedMask();
        int[] first = tokenRects.get(0);
        boolean erase = Painting.isSet(p, first[0] / p.blockQ(), first[2] / p.blockKv());
        Mask.Painted after = Painting.apply(p, tokenRects, !erase);
        setNode(selection.get(), after, (erase ? "Erase " : "Paint ") + Painting.cellCount(p, tokenRects) + " cells");
    }

    public void undo() {
        history.undo();
    }

    public void redo() {
        history.redo();
    }

    private void apply(String what, MaskEdits.Placed placed) {
        history.execute(what, Configs.withMask(composition(), placed.root()));
        selection.set(placed.selection());
    }

    private static List<FieldProblem> placeProblems(MaskConfig c) {
        Map<String, FieldProblem> out = new LinkedHashMap<>();
        for (MaskChecks.Problem p : c.problems()) {
            MaskEdits.Location at = MaskEdits.locate(c.mask(), p.path());
            NodePath node = at == null ? NodePath.ROOT : at.node();
            String field = at == null ? "" : at.field();
            out.putIfAbsent(p.path() + "\n" + p.message(), new FieldProblem(node, field, p.path(), p.message()));
        }
        return List.copyOf(out.values());
    }
}
