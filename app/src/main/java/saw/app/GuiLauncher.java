package saw.app;

/** Opens the window; kept apart from {@link Main} so CLI runs never load a JavaFX class. */
final class GuiLauncher {
    private GuiLauncher() {}

    static void launch(String[] args) {
        System.err.println("saw: the workbench window is not built yet; run 'saw --help' for the CLI");
        System.exit(2);
    }
}
