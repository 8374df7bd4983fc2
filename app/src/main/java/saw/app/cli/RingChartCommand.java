package saw.app.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import saw.ui.chart.ChartFiles;
import saw.ui.chart.RingCharts;

/** {@code saw ring-chart}: ring efficiency against the device count, per split scheme, from ring-run --gpus results. */
@Command(name = "ring-chart", mixinStandardHelpOptions = true,
        description = {"Charts the efficiency of multi-GPU ring runs (saw ring-run --gpus ... --out FILE) against the "
                + "number of devices, one line per split scheme and pass; several files (e.g. 2, 4 and 8 GPUs) are "
                + "combined. Virtual-device runs are drawn as their own lines."})
final class RingChartCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "RESULTS", description = "saw.bench/1 files written by saw ring-run --gpus --out")
    List<String> files;

    @Option(names = "--out", required = true, paramLabel = "FILE", description = "chart.png or chart.svg")
    String out;

    @Override
    public Integer call() throws IOException {
        ChartCommand.requireChartLibraries();
        Path outFile = BenchCommand.outputFile("--out", out);
        Map<String, SortedMap<Integer, Double>> series = new LinkedHashMap<>();
        TreeSet<String> configs = new TreeSet<>();
        ObjectMapper json = new ObjectMapper();
        for (String f : files) {
            List<String> lines;
            try {
                lines = Files.readAllLines(Path.of(f));
            } catch (IOException | java.nio.file.InvalidPathException e) {
                throw new BadInput(f + ": cannot be read (" + e.getMessage() + ")");
            }
            for (int i = 1; i < lines.size(); i++) {
                JsonNode row;
                try {
                    row = json.readTree(lines.get(i));
                } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                    if (i == lines.size() - 1) {
                        continue; // a last line cut short by a killed run
                    }
                    throw new BadInput(f + ":" + (i + 1) + ": not a JSON row (" + e.getOriginalMessage() + ")");
                }
                if (!row.hasNonNull("ring_devices") || !row.hasNonNull("efficiency") || row.get("ring_devices").asInt() < 2) {
                    continue;
                }
                configs.add(row.path("config").asText());
                String virtual = row.path("ring_virtual").asBoolean() ? " (virtual)" : "";
                String scheme = row.path("ring_scheme").asText();
                int n = row.get("ring_devices").asInt();
                String pass = row.path("pass").asText();
                series.computeIfAbsent(scheme + " " + pass + virtual, k -> new TreeMap<>()).put(n, row.get("efficiency").asDouble());
                if (row.hasNonNull("fwd_bwd_efficiency")) {
                    series.computeIfAbsent(scheme + " fwd+bwd" + virtual, k -> new TreeMap<>())
                            .put(n, row.get("fwd_bwd_efficiency").asDouble());
                }
            }
        }
        try {
            ChartFiles.write(RingCharts.efficiency("Ring attention: efficiency against devices", String.join(", ", configs),
                    series), outFile, ChartFiles.DEFAULT_WIDTH, ChartFiles.DEFAULT_HEIGHT);
        } catch (IllegalArgumentException e) {
            throw new BadInput(e.getMessage());
        }
        spec.commandLine().getOut().println(outFile);
        return SawCli.OK;
    }
}
