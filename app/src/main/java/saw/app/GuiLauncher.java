package saw.app;

import java.util.Locale;
import javafx.application.Application;
import saw.ui.SawApp;

/** Opens the window; kept apart from {@link Main} so CLI runs never load a JavaFX class. */
final class GuiLauncher {
    private GuiLauncher() {}

    static void launch(String[] args) {
        try {
            Application.launch(SawApp.class, args);
        } catch (UnsupportedOperationException | IllegalStateException e) {
            // JavaFX could not start a toolkit: say why in one line instead of a stack trace
            System.err.println("saw: cannot open the window: " + e.getMessage() + hint(e.getMessage()));
            System.exit(1);
        }
    }

    private static String hint(String message) {
        String m = message == null ? "" : message.toLowerCase(Locale.ROOT);
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        if (m.contains("display") || (os.contains("linux") && System.getenv("DISPLAY") == null
                && System.getenv("WAYLAND_DISPLAY") == null)) {
            return ". There is no display here; the command line works without one (saw --help).";
        }
        if (m.contains("gtk")) {
            return ". JavaFX needs GTK 3 on Linux (Debian/Ubuntu: apt-get install libgtk-3-0).";
        }
        return "";
    }
}
