package saw.app.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import saw.engine.config.ConfigException;
import saw.engine.config.MaskConfig;

/** {@code saw validate SPEC}: "ok: ..." or every problem with its place; exit 2 when there are any. */
@Command(name = "validate", mixinStandardHelpOptions = true,
        description = "Check a mask config; print 'ok: ...' or every problem with its JSON path, line and column.")
final class ValidateCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    SpecArgs args;

    @Override
    public Integer call() throws ConfigException {
        MaskConfig c = args.load();
        PrintWriter out = spec.commandLine().getOut();
        out.println("ok: " + c.name() + " (" + c.seqLenQ() + " x " + c.seqLenKv() + ", batch " + c.batch() + ", heads " + c.heads() + ")");
        out.flush();
        return SawCli.OK;
    }
}
