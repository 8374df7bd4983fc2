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

    public void dismiss() {
        current.set(null);
    }
}
