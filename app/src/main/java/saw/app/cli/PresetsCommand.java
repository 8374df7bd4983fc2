package saw.app.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import saw.engine.config.Preset;
import saw.engine.config.Presets;

/** {@code saw presets}: the shipped configs, one a line, name and description. */
@Command(name = "presets", mixinStandardHelpOptions = true, description = "List the shipped mask presets (use one as preset:NAME).")
final class PresetsCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        int width = Presets.names().stream().mapToInt(String::length).max().orElse(0) + 2;
        for (Preset p : Presets.all()) {
            out.println(String.format("%-" + width + "s%s", p.name(), p.config().description()));
        }
        out.flush();
        return SawCli.OK;
    }
}
