package saw.tests;

import java.nio.file.Path;
import saw.ui.files.FileAsker;

/** Answers the window's file choosers and questions the way a test scripted them. */
final class ScriptedAsker implements FileAsker {
    volatile Path open;
    volatile Path save;
    volatile Unsaved unsaved = Unsaved.CANCEL;
    volatile int unsavedAsked;
    volatile boolean confirm = true;
    volatile int saveAsAsked;
    final java.util.List<String> questions = new java.util.concurrent.CopyOnWriteArrayList<>();

    @Override
    public Path open(String what, String extension, Path folder) {
        return open;
    }

    @Override
    public Path saveAs(String what, String suggestedName, String extension, Path folder) {
        saveAsAsked++;
        return save;
    }

    @Override
    public Unsaved unsavedChanges(String name) {
        unsavedAsked++;
        return unsaved;
    }

    @Override
    public boolean confirm(String title, String question) {
        questions.add(question);
        return confirm;
    }
}
