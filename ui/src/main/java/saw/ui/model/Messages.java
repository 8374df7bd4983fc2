package saw.ui.model;

import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;

/** The one message the window shows above the grid: what a file action did, or what went wrong and where. */
public final class Messages {
    /** A message; errors keep showing until dismissed or replaced. */
    public record Message(boolean error, String text) {}

    private final ReadOnlyObjectWrapper<Message> current = new ReadOnlyObjectWrapper<>(this, "current");

    public ReadOnlyObjectProperty<Message> currentProperty() {
        return current.getReadOnlyProperty();
    }

    public void info(String text) {
        current.set(new Message(false, text));
    }

    public void error(String text) {
        current.set(new Message(true, text));
    }

    /**
     * An error that stops being true once {@code changes} changes (e.g. the mask or a field it is about): then it
     * goes away by itself, unless another message replaced it.
     */
    public void error(String text, javafx.beans.Observable changes) {
        Message m = new Message(true, text);
        current.set(m);
        javafx.beans.InvalidationListener clear = new javafx.beans.InvalidationListener() {
            @Override
            public void invalidated(javafx.beans.Observable o) {
                o.removeListener(this);
                if (current.get() == m) {
                    current.set(null);
                }
            }
        };
        changes.addListener(clear);
    }

    public void dismiss() {
        current.set(null);
    }
}
