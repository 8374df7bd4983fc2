package saw.app.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import saw.engine.reliability.ClassReferences;
import saw.engine.reliability.ReliabilityLog;

/**
 * Every file saw writes goes through AtomicFiles (a temporary file, flushed, renamed over the target), except the
 * results and CSV files of a sweep, which are appended row by row so that a killed sweep keeps its finished rows
 * (BenchKillTest). Checked on the compiled classes of the engine, the window and the CLI: no other class may call an
 * API that writes a file.
 */
class WritersAreAtomicTest {
    /** Calls that write a file, as "owner.method" (constructors are "<init>"), with the arguments where only some forms write one. */
    private static final List<String> WRITES = List.of("java/nio/file/Files.newOutputStream", "java/nio/file/Files.write",
            "java/nio/file/Files.writeString", "java/nio/file/Files.newBufferedWriter", "java/nio/file/Files.copy",
            "java/nio/file/Files.newByteChannel", "java/nio/channels/FileChannel.open", "java/io/FileOutputStream.<init>",
            "java/io/FileWriter.<init>", "java/io/RandomAccessFile.<init>", "javax/imageio/ImageIO.write(Ljava/awt/image/RenderedImage;Ljava/lang/String;Ljava/io/File;)", "org/jfree/svg/SVGUtils.writeToSVG", "org/jfree/chart/ChartUtils.saveChartAsPNG",
            "org/jfree/chart/ChartUtils.saveChartAsJPEG");
    /** The classes allowed to make those calls, and why. */
    private static final List<String> ALLOWED = List.of(
            "saw/engine/io/AtomicFiles", // the atomic save itself
            "saw/engine/bench/ResultsWriter", // results: header saved atomically, rows appended one by one
            "saw/engine/bench/ResultsCsv"); // the CSV twin of the results, appended row by row

    @Test
    void everyFileWriteGoesThroughAtomicFilesOrAppendsRows() throws IOException {
        List<Path> folders = List.of(Path.of("..", "engine", "target", "classes"), Path.of("..", "ui", "target", "classes"),
                Path.of("target", "classes"));
        TreeSet<String> writers = new TreeSet<>();
        List<String> wrong = new ArrayList<>();
        int classes = 0;
        for (Path folder : folders) {
            List<Path> files;
            try (Stream<Path> walk = Files.walk(folder)) {
                files = walk.filter(f -> f.toString().endsWith(".class")).toList();
            }
            for (Path f : files) {
                String name = folder.relativize(f).toString().replace('\\', '/').replaceAll("\\.class$", "");
                String outer = name.contains("$") ? name.substring(0, name.indexOf('$')) : name;
                ClassReferences refs;
                try (InputStream in = Files.newInputStream(f)) {
                    refs = ClassReferences.of(in);
                }
                classes++;
                for (String m : refs.calls) {
                    if (WRITES.stream().anyMatch(w -> m.startsWith(w.contains("(") ? w : w + "("))) {
                        writers.add(outer);
                        if (!ALLOWED.contains(outer)) {
                            wrong.add(name + " calls " + m);
                        }
                    }
                }
            }
        }
        assertTrue(classes > 100, "found only " + classes + " classes; are the modules built?");
        assertEquals(List.of(), wrong, "write through saw.engine.io.AtomicFiles instead");
        ReliabilityLog.write("files-writers", new ReliabilityLog.Row("Files", 402,
                "every place saw writes a file (CLI -o, configs, flex layouts, dumps, .npy, charts, results): calls to file-writing APIs in the compiled classes",
                WRITES.size(), "no class but AtomicFiles calls any of the " + WRITES.size() + " file-writing APIs; results and CSV "
                        + "append rows to a header saved atomically", "nothing",
                classes + " classes scanned; classes that write: " + String.join(", ", writers)));
    }
}
