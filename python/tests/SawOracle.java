import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import saw.engine.config.ConfigException;
import saw.engine.config.ConfigReader;
import saw.engine.config.MaskConfig;
import saw.engine.format.LayoutFormats;
import saw.engine.mask.BoundMask;
import saw.engine.mask.TileLayout;

/**
 * The Java engine's answers for sawmask's tests, many configs per JVM start. Run in source-file mode against
 * saw.jar: {@code java -cp saw.jar SawOracle.java < requests}. Each request line is {@code FORMAT<TAB>CONFIG_JSON};
 * each answer line is the export in that format (what {@code saw compile --format FORMAT} writes, on one line), or
 * {@code {"error": "PATH: MESSAGE"}} with saw's first problem when the config is refused.
 */
public class SawOracle {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        String line;
        while ((line = in.readLine()) != null) {
            int tab = line.indexOf('\t');
            String format = line.substring(0, tab);
            try {
                MaskConfig c = ConfigReader.parse("request", line.substring(tab + 1));
                TileLayout layout = BoundMask.bind(c.mask(), c.dims()).compile(c.block().q(), c.block().kv());
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                LayoutFormats.byName(format).write(layout, bytes);
                out.println(bytes.toString(StandardCharsets.UTF_8).replace('\n', ' '));
            } catch (ConfigException e) {
                var p = e.problems().get(0);
                out.println("{\"error\": " + quote(p.path().isEmpty() ? p.message() : p.path() + ": " + p.message()) + "}");
            }
            out.flush();
        }
    }

    private static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char ch : s.toCharArray()) {
            if (ch == '"' || ch == '\\') {
                b.append('\\').append(ch);
            } else if (ch < 0x20) {
                b.append(String.format("\\u%04x", (int) ch));
            } else {
                b.append(ch);
            }
        }
        return b.append('"').toString();
    }
}
