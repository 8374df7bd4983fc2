package saw.app.cli;

import java.io.PrintWriter;
import picocli.CommandLine;
import saw.engine.config.ConfigException;
import saw.engine.guard.TooLarge;

/**
 * How the CLI reports failures: bad input or usage, and work refused by a size guard, is exit 2 with one plain line
 * per problem on stderr (never a stack trace); anything else is an internal error, exit 1, with the stack trace only when SAW_DEBUG is set.
 */
final class CliErrors {
    private CliErrors() {}

    static int badUsage(CommandLine.ParameterException e, String[] args) {
        CommandLine cl = e.getCommandLine();
        String name = cl.getCommandSpec().qualifiedName();
        String message = e.getMessage() == null ? "bad arguments" : e.getMessage().strip().replaceAll("\\s*\\R\\s*", "; ");
        cl.getErr().println(name + ": " + message + " (see '" + name + " --help')");
        cl.getErr().flush();
        return SawCli.BAD_INPUT;
    }

    static int failed(Exception e, CommandLine cl, CommandLine.ParseResult parsed) {
        PrintWriter err = cl.getErr();
        int code;
        if (e instanceof BadInput || e instanceof TooLarge) { // TooLarge: refused before starting, with the estimate
            String name = cl.getCommandSpec().qualifiedName();
            e.getMessage().lines().forEach(line -> err.println(name + ": " + line));
            code = SawCli.BAD_INPUT;
        } else if (e instanceof ConfigException) {
            err.println(e.getMessage()); // each line starts with the file (and line) at fault, as compilers do
            code = SawCli.BAD_INPUT;
        } else {
            err.println(cl.getCommandSpec().qualifiedName() + ": internal error: " + e);
            if (System.getenv("SAW_DEBUG") != null) {
                e.printStackTrace(err);
            } else {
                err.println("(set SAW_DEBUG=1 for the stack trace)");
            }
            code = SawCli.INTERNAL_ERROR;
        }
        err.flush();
        return code;
    }
}
