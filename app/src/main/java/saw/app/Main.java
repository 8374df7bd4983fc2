package saw.app;

import saw.app.cli.SawCli;

/**
 * Entry point of saw.jar: with no arguments it opens the workbench window, otherwise it runs the {@code saw} CLI.
 * It does not extend javafx.application.Application, so the jar starts without JavaFX on the module path.
 */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        if (args.length == 0) {
            GuiLauncher.launch(args);
            return;
        }
        System.exit(SawCli.run(args));
    }
}
