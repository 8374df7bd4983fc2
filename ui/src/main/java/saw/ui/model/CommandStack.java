package saw.ui.model;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyLongProperty;
import javafx.beans.property.ReadOnlyLongWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;

/**
 * Undo and redo over an immutable state. Every edit is an {@link Edit} command that knows the state before and after
 * it, so undoing is putting back a snapshot and can never drift from what the edit did. The revision counter rises on
 * every change (edit, undo, redo, reset) and is what views listen to; "dirty" compares the state with the last one
 * saved, so undoing back to it clears the flag.
 */
public final class CommandStack<S> {
    /** One edit: its name for the Undo menu item and the states either side of it. */
    public record Edit<S>(String name, S before, S after) {}

    private static final int LIMIT = 500;
    private final Deque<Edit<S>> undo = new ArrayDeque<>();
    private final Deque<Edit<S>> redo = new ArrayDeque<>();
    private final ReadOnlyObjectWrapper<S> state;
    private final ReadOnlyLongWrapper revision = new ReadOnlyLongWrapper(this, "revision");
    private final ReadOnlyBooleanWrapper canUndo = new ReadOnlyBooleanWrapper(this, "canUndo");
    private final ReadOnlyBooleanWrapper canRedo = new ReadOnlyBooleanWrapper(this, "canRedo");
    private final ReadOnlyStringWrapper undoName = new ReadOnlyStringWrapper(this, "undoName", "");
    private final ReadOnlyStringWrapper redoName = new ReadOnlyStringWrapper(this, "redoName", "");
    private final ReadOnlyBooleanWrapper dirty = new ReadOnlyBooleanWrapper(this, "dirty");
    private S saved;

    public CommandStack(S initial) {
        this.state = new ReadOnlyObjectWrapper<>(this, "state", Objects.requireNonNull(initial));
        this.saved = initial;
    }

    public ReadOnlyObjectProperty<S> stateProperty() {
        return state.getReadOnlyProperty();
    }

    public S state() {
        return state.get();
    }

    public ReadOnlyLongProperty revisionProperty() {
        return revision.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty canUndoProperty() {
        return canUndo.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty canRedoProperty() {
        return canRedo.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty undoNameProperty() {
        return undoName.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty redoNameProperty() {
        return redoName.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty dirtyProperty() {
        return dirty.getReadOnlyProperty();
    }

    /** Applies an edit; one that changes nothing is not recorded. Clears the redo history. */
    public void execute(String name, S after) {
        S before = state.get();
        if (before.equals(after)) {
            return;
        }
        undo.push(new Edit<>(name, before, after));
        if (undo.size() > LIMIT) {
            undo.removeLast();
        }
        redo.clear();
        set(after);
    }

    public void undo() {
        if (undo.isEmpty()) {
            return;
        }
        Edit<S> e = undo.pop();
        redo.push(e);
        set(e.before());
    }

    public void redo() {
        if (redo.isEmpty()) {
            return;
        }
        Edit<S> e = redo.pop();
        undo.push(e);
        set(e.after());
    }

    /** Starts over from a state (a file just opened): no history, and the state counts as saved. */
    public void reset(S fresh) {
        undo.clear();
        redo.clear();
        saved = fresh;
        set(fresh);
    }

    /** Records that the current state is what is on disk. */
    public void markSaved() {
        markSaved(state.get());
    }

    /** The state last saved (or opened), or null when what is on disk is unknown (restored unsaved work). */
    public S saved() {
        return saved;
    }

    /** Records that what is on disk is not the current state (restored from an autosave of unsaved work). */
    public void markUnsaved() {
        saved = null;
        refresh();
    }

    /** Records that {@code s} is what is on disk (the state may have moved on while it was written). */
    public void markSaved(S s) {
        saved = s;
        refresh();
    }

    private void set(S s) {
        state.set(s);
        revision.set(revision.get() + 1);
        refresh();
    }

    private void refresh() {
        canUndo.set(!undo.isEmpty());
        canRedo.set(!redo.isEmpty());
        undoName.set(undo.isEmpty() ? "" : undo.peek().name());
        redoName.set(redo.isEmpty() ? "" : redo.peek().name());
        dirty.set(!Objects.equals(state.get(), saved));
    }
}
