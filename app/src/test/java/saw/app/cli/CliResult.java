package saw.app.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;

/** One in-process run of saw's CLI in a test: its exit code and what it printed to stdout and stderr. */
record CliResult(int code, String out, String err) {

    /** Through {@link SawCli#run(String...)}, with System.out and System.err captured (what {@code main} prints to). */
    static CliResult ofSystem(String... args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
            int code = SawCli.run(args);
            return new CliResult(code, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
    }

    /** Through {@link SawCli#run(PrintWriter, PrintWriter, String...)} with writers of its own. */
    static CliResult ofWriters(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = SawCli.run(new PrintWriter(out), new PrintWriter(err), args);
        return new CliResult(code, out.toString(), err.toString());
    }
}
