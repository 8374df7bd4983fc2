package saw.app;

import javafx.application.Application;
import saw.ui.SawApp;

/** Opens the window; kept apart from {@link Main} so CLI runs never load a JavaFX class. */
final class GuiLauncher {
    private GuiLauncher() {}

    static void launch(String[] args) {
        Application.launch(SawApp.class, args);
    }
}
