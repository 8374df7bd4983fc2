package saw.ui.model;

import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;

/** The one message the window shows above the grid: what a file action did, or what went wrong and where. */
public final class Messages {
    /** A message; errors keep showing until dismissed or replaced. Actions show as buttons beside it. */
    public record Message(boolean error, String text, java.util.List<Action> actions) {
        public Message(boolean error, String text) {
            this(error, text, java.util.List.of());
        }

        public Message {
            actions = java.util.List.copyOf(actions);
        }
    }

    /** Something the user can do about a message, e.g. "Open causal.json". */
    public record Action(String label, Runnable run) {}

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

    /** A message with actions offered beside it; choosing one dismisses the message. */
    public void offer(String text, java.util.List<Action> actions) {
        current.set(new Message(false, text, actions));
    }

    public void dismiss() {
        current.set(null);
    }
}
