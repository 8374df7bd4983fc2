package saw.app.reliability;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import saw.engine.config.MaskConfig;
import saw.engine.config.Presets;
import saw.ui.files.SessionStore;

/**
 * A child process for {@link AutosaveKillTest}: autosaves the window's session in FOLDER over and over, as the
 * window does every 30 s, version i being the causal preset at 1024 + i tokens, and prints i once it is saved.
 */
public final class AutosaveLoop {
    private AutosaveLoop() {}

    public static void main(String[] args) throws IOException {
        SessionStore store = new SessionStore(Path.of(args[0]));
        Path file = Path.of(args[0], "my-mask.json");
        MaskConfig causal = Presets.get("causal");
        for (int version = 0; ; version++) {
            store.save(causal.withSeq(1024 + version), file, true, List.of(file), false, version % 16, 0);
            System.out.println(version);
            System.out.flush();
        }
    }
}
