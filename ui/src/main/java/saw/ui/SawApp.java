package saw.ui;

import java.lang.management.ManagementFactory;
import java.util.Locale;
import javafx.application.Application;
import javafx.application.Platform;
import javafx.animation.AnimationTimer;
import javafx.stage.Stage;
import saw.ui.model.Configs;

/**
 * The workbench as a JavaFX application. With {@code -Dsaw.startupTiming=true} it prints, once the first grid has
 * been compiled and drawn, the milliseconds since the JVM started: the cold start to a usable window
 * ({@code =exit} also closes the window then, for scripts that time several starts).
 */
public final class SawApp extends Application {
    private Workbench workbench;

    @Override
    public void start(Stage stage) {
        String timingMode = System.getProperty("saw.startupTiming", "false");
        boolean timing = timingMode.equals("true") || timingMode.equals("exit");
        long entered = uptime();
        workbench = new Workbench(stage);
        long built = uptime();
        stage.show();
        if (timing) {
            System.out.printf(Locale.ROOT, "saw: JavaFX started the app at %d ms, window built at %d ms, shown at %d ms%n",
                    entered, built, uptime());
            reportWhenUsable(timingMode.equals("exit"));
        }
    }

    private static long uptime() {
        return ManagementFactory.getRuntimeMXBean().getUptime();
    }

    @Override
    public void stop() {
        if (workbench != null) {
            workbench.close();
        }
    }

    private void reportWhenUsable(boolean exit) {
        new AnimationTimer() {
            @Override
            public void handle(long now) {
                if (workbench.layout().compiled() != null && workbench.grid().view().lastRenderMillis() > 0) {
                    stop();
                    long ms = uptime();
                    System.out.printf(Locale.ROOT, "saw: window usable %d ms after JVM start (first grid compiled and drawn)%n", ms);
                    if (exit) {
                        workbench.stage().close();
                        Platform.exit();
                    }
                }
            }
        }.start();
    }
}
