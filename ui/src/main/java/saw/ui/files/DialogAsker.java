package saw.ui.files;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import javafx.scene.control.Alert;
import javafx.scene.control.ButtonBar;
import javafx.scene.control.ButtonType;
import javafx.stage.FileChooser;
import javafx.stage.Window;

/** The window's {@link FileAsker}: file choosers and a Save / Don't save / Cancel dialog. */
public final class DialogAsker implements FileAsker {
    private final Window owner;

    public DialogAsker(Window owner) {
        this.owner = owner;
    }

    @Override
    public Path open(String what, String extension, Path folder) {
        FileChooser c = chooser(what, folder);
        c.getExtensionFilters().addAll(new FileChooser.ExtensionFilter("*." + extension, "*." + extension),
                new FileChooser.ExtensionFilter("All files", "*"));
        File f = c.showOpenDialog(owner);
        return f == null ? null : f.toPath();
    }

    @Override
    public Path saveAs(String what, String suggestedName, String extension, Path folder) {
        FileChooser c = chooser(what, folder);
        c.setInitialFileName(suggestedName);
        c.getExtensionFilters().add(new FileChooser.ExtensionFilter("*." + extension, "*." + extension));
        File f = c.showSaveDialog(owner);
        return f == null ? null : f.toPath();
    }

    @Override
    public Unsaved unsavedChanges(String name) {
        ButtonType save = new ButtonType("Save", ButtonBar.ButtonData.YES);
        ButtonType discard = new ButtonType("Don't save", ButtonBar.ButtonData.NO);
        Alert a = new Alert(Alert.AlertType.CONFIRMATION, "\"" + name + "\" has unsaved changes. Save them first?",
                save, discard, ButtonType.CANCEL);
        a.initOwner(owner);
        a.setHeaderText(null);
        a.setTitle("Unsaved changes");
        ButtonType answer = a.showAndWait().orElse(ButtonType.CANCEL);
        return answer == save ? Unsaved.SAVE : answer == discard ? Unsaved.DISCARD : Unsaved.CANCEL;
    }

    @Override
    public boolean confirm(String title, String question) {
        ButtonType go = new ButtonType("Continue", ButtonBar.ButtonData.OK_DONE);
        Alert a = new Alert(Alert.AlertType.CONFIRMATION, question, go, ButtonType.CANCEL);
        a.initOwner(owner);
        a.setHeaderText(null);
        a.setTitle(title);
        return a.showAndWait().orElse(ButtonType.CANCEL) == go;
    }

    private static FileChooser chooser(String title, Path folder) {
        FileChooser c = new FileChooser();
        c.setTitle(title);
        if (folder != null && Files.isDirectory(folder)) {
            c.setInitialDirectory(folder.toFile());
        }
        return c;
    }
}
