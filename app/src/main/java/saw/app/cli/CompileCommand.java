package saw.app.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import saw.engine.config.ConfigException;
import saw.engine.config.MaskConfig;
import saw.engine.format.LayoutFormat;
import saw.engine.format.LayoutFormats;
import saw.engine.guard.SizeGuard;
import saw.engine.io.AtomicFiles;
import saw.engine.mask.BoundMask;
import saw.engine.mask.TileLayout;

/** {@code saw compile SPEC --format F [-o FILE]}: the compiled layout in an export format, to a file or stdout. */
@Command(name = "compile", mixinStandardHelpOptions = true,
        description = "Compile a mask to tiles and export the layout (formats: flex, ejkernel, nsa, dense; see docs/formats.md).")
final class CompileCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    SpecArgs args;

    @Option(names = "--format", required = true, paramLabel = "F", description = "export format: flex, ejkernel, nsa or dense")
    String format;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE",
            description = "write to FILE (atomically: it holds the old content or all of the new) instead of stdout")
    String output;

    @Override
    public Integer call() throws ConfigException, IOException {
        LayoutFormat f;
        try {
            f = LayoutFormats.byName(format);
        } catch (IllegalArgumentException e) {
            throw new BadInput("--format: " + e.getMessage());
        }
        Path file = output == null ? null : outputFile();
        MaskConfig c = args.load();
        SizeGuard.compile(c).orThrow();
        SizeGuard.compileTime(c).orThrow();
        TileLayout layout = BoundMask.bind(c.mask(), c.dims()).compile(c.block().q(), c.block().kv());
        if (file != null) {
            SizeGuard.export(f, layout, file.getParent()).orThrow();
        }
        try {
            if (file == null) {
                OutputStream out = new WriterOutputStream(spec.commandLine().getOut());
                f.write(layout, out);
                out.close();
            } else {
                AtomicFiles.write(file, out -> f.write(layout, out));
            }
        } catch (IllegalArgumentException e) {
            throw new BadInput(f.name() + ": " + e.getMessage());
        }
        return SawCli.OK;
    }

    private Path outputFile() {
        Path file;
        try {
            file = Path.of(output).toAbsolutePath();
        } catch (InvalidPathException e) {
            throw new BadInput("-o: '" + output + "' is not a valid file path");
        }
        if (Files.isDirectory(file)) {
            throw new BadInput("-o: " + output + " is a folder; give a file name");
        }
        if (!Files.isDirectory(file.getParent())) {
            throw new BadInput("-o: the folder " + file.getParent() + " does not exist");
        }
        return file;
    }
}
