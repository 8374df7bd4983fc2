package saw.ui;

import atlantafx.base.theme.PrimerDark;
import atlantafx.base.theme.PrimerLight;
import javafx.application.Application;
import javafx.scene.Scene;

/**
 * The window's look: AtlantaFX's Primer theme, light or dark, under saw's stylesheet. The dark variant adds the
 * style class {@code dark} to each scene's root, where saw.css redefines its named colours (the grid's included).
 */
public enum Theme {
    LIGHT("Light"),
    DARK("Dark");

    private final String label;

    Theme(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /** Sets the theme for every window of the application (AtlantaFX's user-agent stylesheet). */
    public void applyToApplication() {
        // the binary form of the stylesheet: JavaFX reads it without parsing 170 KB of CSS at start-up
        Application.setUserAgentStylesheet(this == DARK ? new PrimerDark().getUserAgentStylesheetBSS()
                : new PrimerLight().getUserAgentStylesheetBSS());
    }

    /** Gives a scene saw's stylesheet and this theme's colours. */
    public void style(Scene scene) {
        if (!scene.getStylesheets().contains(Workbench.STYLESHEET)) {
            scene.getStylesheets().add(Workbench.STYLESHEET);
        }
        if (scene.getRoot() != null) {
            scene.getRoot().getStyleClass().remove("dark");
            if (this == DARK) {
                scene.getRoot().getStyleClass().add("dark");
            }
        }
    }

    /** The theme stored under {@code name}, or LIGHT for anything else. */
    public static Theme named(String name) {
        return "dark".equalsIgnoreCase(name) ? DARK : LIGHT;
    }
}
