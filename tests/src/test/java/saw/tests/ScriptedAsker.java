package saw.tests;

import java.nio.file.Path;
import saw.ui.files.FileAsker;

/** Answers the window's file choosers and questions the way a test scripted them. */
final class ScriptedAsker implements FileAsker {
    volatile Path open;
    volatile Path save;
    volatile Unsaved unsaved = Unsaved.CANCEL;
    volatile int unsavedAsked;

    @Override
    public Path open(String what, String extension, Path folder) {
        return open;
    }

    @Override
    public Path saveAs(String what, String suggestedName, String extension, Path folder) {
        return save;
    }

    @Override
    public Unsaved unsavedChanges(String name) {
        unsavedAsked++;
        return unsaved;
    }
}
