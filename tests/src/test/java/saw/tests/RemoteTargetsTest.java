package saw.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javafx.scene.Scene;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.Start;
import saw.remote.TargetStore;
import saw.remote.TestPack;
import saw.remote.TestSshServer;
import saw.ui.remote.TargetDialog;
import saw.ui.remote.TargetsModel;

/**
 * The remote targets dialog against the test suite's SSH server (Apache MINA SSHD in this JVM, throwaway keys):
 * a bad field is named, a target is saved without secrets, a new host key is shown and used only after Trust,
 * then saw's pack is uploaded, {@code saw env} runs there and the dialog shows the GPU.
 */
class RemoteTargetsTest extends WorkbenchFixture {
    Path tmp;
    TestSshServer server;
    TargetsModel model;
    ExecutorService workers = Executors.newCachedThreadPool();

    @Start
    void start(Stage stage) throws Exception {
        this.stage = stage;
        tmp = Files.createTempDirectory("saw-remote-dialog");
        server = TestSshServer.start(Files.createDirectories(tmp.resolve("server")));
        System.setProperty("saw.pack", TestPack.build(tmp.resolve("gpupack")).toString());
        model = new TargetsModel(workers, new TargetStore(tmp.resolve("targets.json")), server.setup(tmp.resolve("known_hosts"), server.userKey));
        stage.setScene(new Scene(new TargetDialog(model), 760, 440));
        stage.show();
    }

    @AfterEach
    void stopServer() throws Exception {
        System.clearProperty("saw.pack");
        workers.shutdownNow();
        server.close();
    }

    @Test
    void addConnectTrustTheShownKeyAndSeeTheGpu(FxRobot robot) throws Exception {
        robot.clickOn("#target-add");
        waitUntil("the name is asked for", () -> model.statusProperty().get().startsWith("Name: "));
        type(robot, "#target-name", "lab");
        type(robot, "#target-address", "bad host!");
        robot.clickOn("#target-add");
        waitUntil("the address is refused", () -> model.statusProperty().get().startsWith("Address: 'bad host!' is not user@host[:port]"));
        assertTrue(fx(() -> model.failedProperty().get()));

        type(robot, "#target-address", server.address());
        robot.clickOn("#target-add");
        waitUntil("the target is saved", () -> model.targets().size() == 1);
        String saved = Files.readString(tmp.resolve("targets.json"));
        assertTrue(saved.contains(server.address()), saved);
        assertFalse(saved.contains("id_test") || saved.toLowerCase().contains("pass"), "no key or secret in " + saved);

        robot.clickOn("#target-connect");
        waitUntil("the new host key is shown", () -> robot.lookup("#target-trust").query().getParent().isVisible()
                && model.statusProperty().get().contains("not in known_hosts"), () -> model.statusProperty().get());
        String fp = server.fingerprint();
        assertTrue(text(robot, "#target-host-key").contains(fp), text(robot, "#target-host-key"));
        assertFalse(Files.exists(tmp.resolve("known_hosts")), "nothing trusted before Trust");
        assertTrue(model.gpuProperty().get().isEmpty());

        robot.clickOn("#target-trust");
        waitUntil("connected", () -> !model.gpuProperty().get().isEmpty(), () -> model.statusProperty().get());
        assertEquals("GPU: no GPU", text(robot, "#target-gpu"));
        assertTrue(model.statusProperty().get().startsWith("Connected to " + server.address() + ": pack uploaded and checked"),
                model.statusProperty().get());
        assertTrue(model.envProperty().get().contains("java:"), model.envProperty().get());
        assertEquals(1, Files.readAllLines(tmp.resolve("known_hosts")).size());
        assertFalse(robot.lookup("#target-trust").query().getParent().isVisible());

        robot.clickOn("#target-connect");
        waitUntil("connected again, reusing the pack", () -> model.statusProperty().get().contains("pack already there"),
                () -> model.statusProperty().get());
    }
}
