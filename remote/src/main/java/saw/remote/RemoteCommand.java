package saw.remote;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A saw command line as it runs on the remote: the arguments, rewritten so that local files it reads become
 * uploaded copies ({@code in/...}) and files it writes land in {@code out/...} of the run's folder there, and
 * the mapping back. Any saw command works the same way, so a new command gets remote runs for free.
 *
 * @param inputs local file -> its name in the run's folder on the remote
 * @param outputs name in the run's folder on the remote -> the local file it is copied to after the run
 */
public record RemoteCommand(List<String> args, Map<Path, String> inputs, Map<String, Path> outputs) {
    /** Options whose value is a file the command writes: it is brought back after the run. */
    public static final Set<String> OUTPUT_OPTIONS = Set.of("--out", "-o", "--csv");
    /** Options whose value is a folder the command writes: refused, folders are not brought back. */
    public static final Set<String> FOLDER_OPTIONS = Set.of("--export-flex");

    public RemoteCommand {
        args = List.copyOf(args);
        inputs = Map.copyOf(inputs);
        outputs = Map.copyOf(outputs);
    }

    /**
     * Rewrites a local command line (without the remote options): values of {@link #OUTPUT_OPTIONS} become
     * {@code out/NAME}; every other word that names an existing local file becomes {@code in/N-NAME} and is uploaded.
     *
     * @param keep output options left as they are (e.g. a results file the caller streams itself)
     * @throws IllegalArgumentException naming the option that cannot run remotely
     */
    public static RemoteCommand of(List<String> localArgs, Set<String> keep) {
        List<String> args = new ArrayList<>();
        Map<Path, String> inputs = new LinkedHashMap<>();
        Map<String, Path> outputs = new LinkedHashMap<>();
        for (int i = 0; i < localArgs.size(); i++) {
            String a = localArgs.get(i);
            String option = a.contains("=") && a.startsWith("-") ? a.substring(0, a.indexOf('=')) : a;
            boolean attached = !option.equals(a);
            if (FOLDER_OPTIONS.contains(option)) {
                throw new IllegalArgumentException(option + " writes a folder, which a remote run does not bring back; run without --remote for it");
            }
            if (OUTPUT_OPTIONS.contains(option) && !keep.contains(option)) {
                String value = attached ? a.substring(a.indexOf('=') + 1) : (i + 1 < localArgs.size() ? localArgs.get(++i) : null);
                if (value == null) {
                    args.add(a);
                    continue;
                }
                Path local = Path.of(value).toAbsolutePath();
                String remote = "out/" + outputs.size() + "-" + local.getFileName();
                outputs.put(remote, local);
                if (attached) {
                    args.add(option + "=" + remote);
                } else {
                    args.add(option);
                    args.add(remote);
                }
                continue;
            }
            if (attached) {
                String value = a.substring(a.indexOf('=') + 1);
                Path f = existingFile(value);
                args.add(f == null ? a : option + "=" + upload(f, inputs));
            } else {
                Path f = a.startsWith("-") ? null : existingFile(a);
                args.add(f == null ? a : upload(f, inputs));
            }
        }
        return new RemoteCommand(args, inputs, outputs);
    }

    private static String upload(Path file, Map<Path, String> inputs) {
        return inputs.computeIfAbsent(file, f -> "in/" + inputs.size() + "-" + f.getFileName());
    }

    private static Path existingFile(String word) {
        if (word.isEmpty() || word.contains("\0")) {
            return null;
        }
        try {
            Path p = Path.of(word).toAbsolutePath().normalize();
            return Files.isRegularFile(p) ? p : null;
        } catch (InvalidPathException e) {
            return null;
        }
    }
}
