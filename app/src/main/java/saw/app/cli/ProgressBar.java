package saw.app.cli;

import java.io.PrintWriter;
import saw.engine.bench.SweepRunner;

/**
 * The sweep progress line on stderr: "[#######.............]  12/40  30%  ETA 1m05s  causal S=8192 ...". On a
 * terminal the line is redrawn in place; otherwise (a log file, CI) each finished point gets its own line.
 */
final class ProgressBar {
    private static final int WIDTH = 24;
    private final PrintWriter err;
    private final boolean inPlace;
    private int lastLength;

    ProgressBar(PrintWriter err, boolean inPlace) {
        this.err = err;
        this.inPlace = inPlace;
    }

    /** Redraws the line; off a terminal only updates that name a point are printed, one line each. */
    void update(SweepRunner.Progress p, String label) {
        if (!inPlace && label.isEmpty()) {
            return;
        }
        String line = render(p, label);
        if (inPlace) {
            String pad = " ".repeat(Math.max(0, lastLength - line.length()));
            err.print("\r" + line + pad);
            lastLength = line.length();
        } else {
            err.println(line);
        }
        err.flush();
    }

    void finish() {
        if (inPlace && lastLength > 0) {
            err.println();
            err.flush();
        }
    }

    static String render(SweepRunner.Progress p, String label) {
        int filled = (int) Math.round(p.fraction() * WIDTH);
        StringBuilder s = new StringBuilder("[");
        s.append("#".repeat(filled)).append(".".repeat(WIDTH - filled)).append("] ");
        String total = Integer.toString(p.total());
        s.append(" ".repeat(Math.max(0, total.length() - Integer.toString(p.done()).length())));
        s.append(p.done()).append('/').append(total);
        s.append(String.format(java.util.Locale.ROOT, " %3d%%", Math.round(p.fraction() * 100)));
        s.append("  ETA ").append(p.etaNanos() < 0 ? "?" : duration(p.etaNanos()));
        if (!label.isEmpty()) {
            s.append("  ").append(label);
        }
        return s.toString();
    }

    /** "45s", "3m07s", "2h05m". */
    static String duration(long nanos) {
        long seconds = Math.round(nanos / 1e9);
        if (seconds < 60) {
            return seconds + "s";
        }
        if (seconds < 3600) {
            return String.format(java.util.Locale.ROOT, "%dm%02ds", seconds / 60, seconds % 60);
        }
        return String.format(java.util.Locale.ROOT, "%dh%02dm", seconds / 3600, seconds % 3600 / 60);
    }
}
