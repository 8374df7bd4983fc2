package saw.ui.remote;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import saw.remote.TargetStore;
import saw.ui.run.BackendChoice;

/** The run panel's remote backends: one per target saved in the target dialog. */
public final class RemoteTargets {
    private RemoteTargets() {}

    /** One choice per saved target; a targets file that cannot be read gives one unusable choice saying why. */
    public static List<BackendChoice> choices() {
        List<BackendChoice> out = new ArrayList<>();
        try {
            for (TargetStore.Saved s : TargetStore.user().load()) {
                out.add(choice(s));
            }
        } catch (IOException e) {
            out.add(new BackendChoice("remote targets", "The saved remote targets cannot be read: " + e.getMessage(), false,
                    RemoteTargets::noLocalBackend, 0, null));
        }
        return out;
    }

    static BackendChoice choice(TargetStore.Saved s) {
        String prefix = s.target().prefix().isEmpty() ? "" : ", started with '" + s.target().prefix() + "'";
        return new BackendChoice("remote: " + s.name(), "Runs on the GPU of " + s.target() + " over SSH with saw's pack there"
                + prefix + "; rows stream back as they finish.", true, RemoteTargets::noLocalBackend, 0, s.target());
    }

    private static saw.engine.attention.AttentionBackend noLocalBackend() {
        throw new IllegalStateException("a remote target runs its sweep through saw on the server, not a backend here");
    }
}
