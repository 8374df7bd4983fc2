package saw.ui;

import java.lang.management.ManagementFactory;
import java.util.Locale;
import javafx.application.Application;
import javafx.animation.AnimationTimer;
import javafx.stage.Stage;
import saw.ui.model.Configs;

/**
 * The workbench as a JavaFX application. With {@code -Dsaw.startupTiming=true} it prints, once the first grid has
 * been compiled and drawn, the milliseconds since the JVM started: the cold start to a usable window.
 */
public final class SawApp extends Application {
    private Workbench workbench;

    @Override
    public void start(Stage stage) {
        workbench = new Workbench(stage);
        stage.show();
        if (Boolean.getBoolean("saw.startupTiming")) {
            reportWhenUsable();
        }
    }

    @Override
    public void stop() {
        if (workbench != null) {
            workbench.close();
        }
    }

    private void reportWhenUsable() {
        new AnimationTimer() {
            @Override
            public void handle(long now) {
                if (workbench.layout().compiled() != null && workbench.grid().view().lastRenderMillis() > 0) {
                    stop();
                    long ms = ManagementFactory.getRuntimeMXBean().getUptime();
                    System.out.printf(Locale.ROOT, "saw: window usable %d ms after JVM start (first grid compiled and drawn)%n", ms);
                }
            }
        }.start();
    }
}
