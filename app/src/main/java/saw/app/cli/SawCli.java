package saw.app.cli;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code saw} command and its subcommands. Exit codes: 0 ok, 2 bad input or usage, 1 internal error. */
@Command(name = "saw", mixinStandardHelpOptions = true, versionProvider = SawCli.Version.class,
        description = "The Sparse Attention Workbench: masks, tiles, layouts and kernels from the command line.")
public final class SawCli implements Runnable {
    public static final int OK = 0;
    public static final int INTERNAL_ERROR = 1;
    public static final int BAD_INPUT = 2;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** Builds the command line with every subcommand; each subcommand class adds itself here. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new SawCli());
        // subcommands (one line each)
        cl.addSubcommand(new PresetsCommand());
        cl.addSubcommand(new ValidateCommand());
        cl.addSubcommand(new StatsCommand());
        cl.addSubcommand(new CompileCommand());
        cl.addSubcommand(new EnvCommand());
        cl.addSubcommand(new VerifyCommand());
        cl.addSubcommand(new BenchCommand());
        cl.addSubcommand(new ChartCommand());
        cl.addSubcommand(new DumpCommand());
        cl.addSubcommand(new RingCommand());
        cl.addSubcommand(new RingRunCommand());
        cl.addSubcommand(new RingChartCommand());
        cl.addSubcommand(new TuneCommand());
        cl.setParameterExceptionHandler(CliErrors::badUsage);
        cl.setExecutionExceptionHandler(CliErrors::failed);
        return cl;
    }

    public static int run(String... args) {
        return commandLine().execute(args);
    }

    /** Runs with the given streams instead of System.out and System.err (for tests and embedding). */
    public static int run(PrintWriter out, PrintWriter err, String... args) {
        CommandLine cl = commandLine();
        cl.setOut(out);
        cl.setErr(err);
        return cl.execute(args);
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            Package p = SawCli.class.getPackage();
            String v = p != null && p.getImplementationVersion() != null ? p.getImplementationVersion() : "dev";
            return new String[] {"saw " + v};
        }
    }
}
