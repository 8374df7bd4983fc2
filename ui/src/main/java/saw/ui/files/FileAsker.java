package saw.ui.files;

import java.nio.file.Path;

/** Asks the user for files and decisions; the window uses file choosers and dialogs, tests a scripted answer. */
public interface FileAsker {
    /** What to do with unsaved changes. */
    enum Unsaved { SAVE, DISCARD, CANCEL }

    /**
     * A file to open, or null when the user cancels.
     *
     * @param what e.g. "Open mask config", "Add results file"
     * @param extension without the dot: "json"
     */
    Path open(String what, String extension, Path folder);

    /**
     * Where to save, or null when the user cancels.
     *
     * @param what e.g. "Save mask config", "Export flex layout"
     * @param extension without the dot: "json", "png"
     */
    Path saveAs(String what, String suggestedName, String extension, Path folder);

    /** Whether to save unsaved changes to {@code name} before they would be lost. */
    Unsaved unsavedChanges(String name);

    /**
     * Whether to go ahead with something that takes long or much space; {@code question} is one sentence that says
     * how much. Askers that cannot ask go ahead.
     */
    default boolean confirm(String title, String question) {
        return true;
    }
}
