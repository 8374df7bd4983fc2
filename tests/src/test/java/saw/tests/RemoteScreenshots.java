package saw.tests;

import static saw.tests.Screenshots.capture;
import static saw.tests.Screenshots.onFx;
import static saw.tests.Screenshots.settle;
import static saw.tests.Screenshots.waitFor;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.CountDownLatch;
import javafx.application.Platform;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.TextField;
import javafx.stage.Stage;
import saw.engine.config.Presets;
import saw.remote.TestPack;
import saw.remote.TestSshServer;
import saw.ui.Workbench;
import saw.ui.files.SessionStore;

/**
 * Captures the remote targets dialog and a remote sweep in progress, against a real SSH server in this JVM (the
 * test suite's Apache MINA SSHD server on 127.0.0.1 with throwaway keys) and a pack built from this build; the
 * "server" has no GPU, so the sweep runs on its CPU ({@code -Dsaw.remote.backend=cpu}). Everything lives in a
 * throwaway home folder: the user's ~/.ssh and ~/.config are not touched. Run by bench/screenshots.sh.
 */
public final class RemoteScreenshots {
    private RemoteScreenshots() {}

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args.length > 0 ? args[0] : "docs/img");
        Files.createDirectories(out);
        Path tmp = Files.createTempDirectory("saw-remote-screenshots");
        Path home = Files.createDirectories(tmp.resolve("home"));
        System.setProperty("user.home", home.toString());
        System.setProperty("saw.remote.backend", "cpu");
        TestSshServer server = TestSshServer.start(Files.createDirectories(tmp.resolve("server")));
        System.setProperty("saw.pack", TestPack.build(tmp.resolve("gpupack")).toString());
        Path ssh = Files.createDirectories(home.resolve(".ssh"));
        Files.copy(server.userKey, ssh.resolve("id_ecdsa"), StandardCopyOption.REPLACE_EXISTING);

        CountDownLatch started = new CountDownLatch(1);
        Platform.startup(started::countDown);
        started.await();
        Workbench[] wb = new Workbench[1];
        onFx(() -> {
            Stage stage = new Stage();
            wb[0] = new Workbench(stage, new SessionStore(tmp.resolve("session")), null);
            wb[0].files().openPreset(Presets.get("bigbird"));
            stage.setX(0);
            stage.setY(0);
            stage.show();
        });
        waitFor(() -> wb[0].layout().compiled() != null && !wb[0].layout().busyProperty().get());
        Stage[] dialog = new Stage[1];
        onFx(() -> {
            dialog[0] = wb[0].openRemoteTargets();
            dialog[0].setX(120);
            dialog[0].setY(120);
            ((TextField) find(dialog[0], "#target-name")).setText("lab-server");
            ((TextField) find(dialog[0], "#target-address")).setText(server.address());
            ((Button) find(dialog[0], "#target-add")).fire();
            ((Button) find(dialog[0], "#target-connect")).fire();
        });
        waitFor(() -> find(dialog[0], "#target-trust").getParent().isVisible());
        settle();
        capture(dialog[0], out.resolve("remote-host-key.png"));
        onFx(() -> ((Button) find(dialog[0], "#target-trust")).fire());
        waitFor(() -> !((Label) find(dialog[0], "#target-gpu")).getText().isEmpty());
        settle();
        capture(dialog[0], out.resolve("remote-targets.png"));
        onFx(() -> dialog[0].close());

        waitFor(() -> wb[0].run().backends().stream().anyMatch(b -> b.remote() != null));
        Thread.sleep(2000); // the start-up probe of the backends may still be finishing
        onFx(() -> {
            wb[0].showTab("Run");
            var run = wb[0].run();
            run.backendProperty().set(run.backends().stream().filter(b -> b.remote() != null).findFirst().orElseThrow());
            run.sweptProperty().set(saw.ui.run.RunModel.Swept.DENSITY);
            run.valuesProperty().set("0.05, 0.1, 0.25, 0.5, 0.75, 1");
            run.tilesProperty().set("64x64, 128x64");
            run.headsProperty().set(2);
            run.warmupProperty().set(1);
            run.repsProperty().set(10);
            run.run(wb[0].composer().composition());
        });
        waitFor(() -> wb[0].run().rows().size() >= 3 || !wb[0].run().runningProperty().get() && wb[0].run().failedProperty().get());
        settle();
        capture(wb[0].stage(), out.resolve("remote-run.png"));
        onFx(() -> wb[0].run().cancel()); // stops the run on the server; the rows received stay
        waitFor(() -> !wb[0].run().runningProperty().get());
        System.out.println("remote run: " + wb[0].run().rows().size() + " rows; " + wb[0].run().statusProperty().get());
        onFx(() -> wb[0].stage().close());
        server.close();
        Platform.exit();
    }

    private static Node find(Stage stage, String id) {
        return stage.getScene().getRoot().lookup(id);
    }
}
