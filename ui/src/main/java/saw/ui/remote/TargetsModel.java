package saw.ui.remote;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import javafx.concurrent.Task;
import saw.remote.HostKey;
import saw.remote.HostKeyPrompt;
import saw.remote.Pack;
import saw.remote.RemoteException;
import saw.remote.RemoteSaw;
import saw.remote.SshSetup;
import saw.remote.Target;
import saw.remote.TargetStore;

/**
 * The target dialog's view-model: the saved targets, the fields of a new one, and a connection test that connects
 * with the user's SSH setup, makes sure saw's pack is there (uploading it once), runs {@code saw env} there and
 * shows the GPU. A host key seen for the first time is shown with its fingerprint and used only after
 * {@link #trustAndConnect()}; nothing is accepted on its own, and no password or passphrase is asked or kept
 * (keys with a passphrase are used through ssh-agent).
 */
public final class TargetsModel {
    private final Executor executor;
    private final TargetStore store;
    private final SshSetup setup;
    private final ObservableList<TargetStore.Saved> targets = FXCollections.observableArrayList();
    private final ObjectProperty<TargetStore.Saved> selected = new SimpleObjectProperty<>(this, "selected");
    private final StringProperty name = new SimpleStringProperty(this, "name", "");
    private final StringProperty address = new SimpleStringProperty(this, "address", "");
    private final StringProperty prefix = new SimpleStringProperty(this, "prefix", "");
    private final ReadOnlyStringWrapper status = new ReadOnlyStringWrapper(this, "status", "");
    private final ReadOnlyBooleanWrapper failed = new ReadOnlyBooleanWrapper(this, "failed");
    private final ReadOnlyStringWrapper gpu = new ReadOnlyStringWrapper(this, "gpu", "");
    private final ReadOnlyStringWrapper env = new ReadOnlyStringWrapper(this, "env", "");
    private final ReadOnlyBooleanWrapper busy = new ReadOnlyBooleanWrapper(this, "busy");
    private final ReadOnlyObjectWrapper<HostKey> unknownKey = new ReadOnlyObjectWrapper<>(this, "unknownKey");

    public TargetsModel(Executor executor, TargetStore store, SshSetup setup) {
        this.executor = executor;
        this.store = store;
        this.setup = setup;
        try {
            targets.setAll(store.load());
        } catch (IOException e) {
            fail(e.getMessage());
        }
        selected.addListener((o, a, s) -> {
            unknownKey.set(null);
            gpu.set("");
            env.set("");
            if (!busy.get()) {
                status.set("");
                failed.set(false);
            }
        });
    }

    /** The user's ~/.config/saw/targets.json and ~/.ssh. */
    public static TargetsModel user(Executor executor) {
        return new TargetsModel(executor, TargetStore.user(), SshSetup.user());
    }

    public ObservableList<TargetStore.Saved> targets() {
        return targets;
    }

    public ObjectProperty<TargetStore.Saved> selectedProperty() {
        return selected;
    }

    public StringProperty nameProperty() {
        return name;
    }

    /** user@host[:port] or a Host alias of ~/.ssh/config. */
    public StringProperty addressProperty() {
        return address;
    }

    /** A command saw is started under there, e.g. srun -p gpu --gres=gpu:1; empty for none. */
    public StringProperty prefixProperty() {
        return prefix;
    }

    public ReadOnlyStringProperty statusProperty() {
        return status.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty failedProperty() {
        return failed.getReadOnlyProperty();
    }

    /** The remote's GPU as {@code saw env} there reports it, after a successful test. */
    public ReadOnlyStringProperty gpuProperty() {
        return gpu.getReadOnlyProperty();
    }

    /** All of {@code saw env} there. */
    public ReadOnlyStringProperty envProperty() {
        return env.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty busyProperty() {
        return busy.getReadOnlyProperty();
    }

    /** The host key the last test was offered and that is not in known_hosts, or null. */
    public ReadOnlyObjectProperty<HostKey> unknownKeyProperty() {
        return unknownKey.getReadOnlyProperty();
    }

    /** Saves the fields as a new target (or replaces the one of that name); a bad field is named in the status. */
    public boolean add() {
        String n = name.get().strip();
        if (n.isEmpty()) {
            fail("Name: give the target a name, e.g. gpu-box.");
            return false;
        }
        Target t;
        try {
            t = Target.parse(address.get(), prefix.get());
        } catch (IllegalArgumentException e) {
            fail("Address: " + e.getMessage() + ".");
            return false;
        }
        List<TargetStore.Saved> next = new ArrayList<>(targets);
        next.removeIf(s -> s.name().equals(n));
        TargetStore.Saved saved = new TargetStore.Saved(n, t);
        next.add(saved);
        if (!save(next)) {
            return false;
        }
        selected.set(saved);
        status.set("Saved " + n + " (" + t + "). Connect to check it and see its GPU.");
        failed.set(false);
        return true;
    }

    public void remove() {
        TargetStore.Saved s = selected.get();
        if (s == null) {
            return;
        }
        List<TargetStore.Saved> next = new ArrayList<>(targets);
        next.remove(s);
        if (save(next)) {
            status.set("Removed " + s.name() + ".");
            failed.set(false);
        }
    }

    private boolean save(List<TargetStore.Saved> next) {
        try {
            store.save(next);
        } catch (IOException e) {
            fail("Cannot save the targets to " + store.file() + ": " + e.getMessage());
            return false;
        }
        targets.setAll(next);
        return true;
    }

    /** Connects to the selected target; an unknown host key is shown and the test stops there. */
    public void connect() {
        test(null);
    }

    /** Connects again, trusting exactly the key that was shown (it is added to known_hosts). */
    public void trustAndConnect() {
        HostKey k = unknownKey.get();
        if (k != null) {
            test(k.fingerprint());
        }
    }

    private void test(String trustedFingerprint) {
        TargetStore.Saved s = selected.get();
        if (s == null || busy.get()) {
            if (s == null) {
                fail("Pick a target to connect to.");
            }
            return;
        }
        busy.set(true);
        failed.set(false);
        gpu.set("");
        env.set("");
        status.set("Connecting to " + s.target() + "\u2026");
        Task<String> t = new Task<>() {
            @Override
            protected String call() throws RemoteException {
                HostKeyPrompt prompt = trustedFingerprint != null ? HostKeyPrompt.fingerprint(trustedFingerprint) : key -> {
                    javafx.application.Platform.runLater(() -> unknownKey.set(key));
                    return false;
                };
                try (RemoteSaw saw = RemoteSaw.connect(s.target(), setup, prompt, null)) {
                    updateMessage("Checking saw's pack on " + s.target() + "\u2026");
                    Optional<Path> folder = Pack.locate();
                    RemoteSaw.Installed in = saw.install(folder.isPresent() ? Optional.of(Pack.of(folder.get())) : Optional.empty());
                    updateMessage((in.uploaded() ? "Uploaded" : "Reusing") + " saw's pack there; running saw env\u2026");
                    String out = saw.env();
                    String note = (in.uploaded() ? "pack uploaded and checked" : "pack already there") + " (~/.cache/saw/" + in.folder() + ")";
                    return note + "\n" + out;
                }
            }
        };
        t.messageProperty().addListener((o, a, m) -> status.set(m));
        t.setOnSucceeded(e -> {
            busy.set(false);
            unknownKey.set(null);
            String[] parts = t.getValue().split("\n", 2);
            env.set(parts.length > 1 ? parts[1] : "");
            gpu.set(RemoteSaw.gpuOf(env.get()));
            status.set("Connected to " + s.target() + ": " + parts[0] + ".");
        });
        t.setOnFailed(e -> {
            busy.set(false);
            Throwable x = t.getException();
            if (x instanceof RemoteException r && r.kind() == RemoteException.Kind.UNKNOWN_HOST_KEY && unknownKey.get() != null) {
                HostKey k = unknownKey.get();
                fail(k.host() + " is not in known_hosts. Its " + k.type() + " key fingerprint is " + k.fingerprint()
                        + ". Check it with the server's admin, then Trust and connect.");
            } else {
                fail(x.getMessage() == null ? x.toString() : x.getMessage());
            }
        });
        executor.execute(t);
    }

    private void fail(String message) {
        failed.set(true);
        status.set(message);
    }
}
