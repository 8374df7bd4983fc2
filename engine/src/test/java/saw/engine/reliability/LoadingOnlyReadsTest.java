package saw.engine.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import saw.engine.config.ConfigException;
import saw.engine.config.ConfigReader;
import saw.engine.config.MaskConfig;

/**
 * Loading a config never executes code, resolves a reference or writes a file: the reading code cannot reach
 * such APIs at all (checked on its compiled classes), the JSON factory has no data binding, and configs that name
 * URLs, files and references are read as plain strings or refused as unknown keys.
 */
class LoadingOnlyReadsTest {
    /**
     * Classes the reading code must not name at all; a trailing * names every class that starts so. (Lambdas and
     * records name java/lang/invoke, and Presets names ClassLoader to read the shipped presets by fixed names.)
     */
    private static final List<String> FORBIDDEN_CLASSES = List.of("com/fasterxml/jackson/databind/*", "java/net/*",
            "java/lang/reflect/*", "java/lang/ProcessBuilder", "java/lang/Runtime",
            "javax/script/*", "javax/naming/*", "java/io/ObjectInputStream", "java/io/File*", "java/io/RandomAccessFile",
            "java/io/OutputStream", "java/io/Writer", "java/io/PrintStream", "java/io/PrintWriter", "java/nio/channels/*",
            "java/rmi/*", "java/sql/*", "java/lang/Thread");
    /** Methods it must not call. */
    private static final List<String> FORBIDDEN_METHODS = List.of(".forName", ".loadClass", ".defineClass", ".exec",
            ".newInstance", ".getMethod", ".getDeclaredMethod", ".invoke", ".lookup", ".openStream", ".openConnection");
    /** Of java.nio.file.Files, only these read-only calls are allowed. */
    private static final List<String> FILES_ALLOWED = List.of("isDirectory", "newInputStream", "size");

    @Test
    void theReadingCodeCannotReachCodeExecutionNetworkOrFileWriting() throws IOException {
        List<String> classes = new ArrayList<>();
        for (String pkg : List.of("saw/engine/config", "saw/engine/mask")) {
            Path folder = Path.of("target", "classes").resolve(pkg);
            try (Stream<Path> files = Files.list(folder)) {
                files.map(f -> pkg + "/" + f.getFileName())
                        .filter(f -> f.endsWith(".class") && !f.contains("/ConfigWriter") && !f.contains("/PrettyJson"))
                        .forEach(classes::add);
            }
        }
        assertTrue(classes.size() > 20, "found only " + classes);
        List<String> found = new ArrayList<>();
        for (String c : classes) {
            ClassReferences refs;
            try (InputStream in = Files.newInputStream(Path.of("target", "classes", c))) {
                refs = ClassReferences.of(in);
            }
            for (String ref : refs.classes) {
                for (String bad : FORBIDDEN_CLASSES) {
                    boolean prefix = bad.endsWith("*");
                    String stem = prefix ? bad.substring(0, bad.length() - 1) : bad;
                    if (prefix ? ref.startsWith(stem) : ref.equals(stem) || ref.startsWith(stem + "$")) {
                        found.add(c + " names " + ref);
                    }
                }
            }
            for (String m : refs.methods) {
                for (String bad : FORBIDDEN_METHODS) {
                    if (m.endsWith(bad)) {
                        found.add(c + " calls " + m);
                    }
                }
                if (m.startsWith("java/nio/file/Files.") && !FILES_ALLOWED.contains(m.substring("java/nio/file/Files.".length()))) {
                    found.add(c + " calls " + m);
                }
            }
        }
        assertEquals(List.of(), found);
        ReliabilityLog.write("config-only-reads-code", new ReliabilityLog.Row("Config inputs", 97,
                "can loading execute code, open connections or write files? The reading code's compiled classes (config and mask "
                        + "packages) against " + (FORBIDDEN_CLASSES.size() + FORBIDDEN_METHODS.size()) + " forbidden APIs",
                classes.size(), "none is reachable: no data binding, reflection, class loading, processes, network or file writing",
                "nothing", ""));
    }

    @Test
    void theJsonFactoryHasNoDataBinding() throws ReflectiveOperationException {
        Field f = ConfigReader.class.getDeclaredField("FACTORY");
        f.setAccessible(true);
        JsonFactory factory = (JsonFactory) f.get(null);
        assertEquals(JsonFactory.class, factory.getClass(), "a plain streaming factory, not a MappingJsonFactory");
        assertNull(factory.getCodec(), "no ObjectMapper: nothing can bind JSON to classes it names");
    }

    @Test
    void urlsAndReferencesInAConfigOpenNoConnection() throws IOException, ConfigException {
        try (ServerSocket server = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
            String url = "http://127.0.0.1:" + server.getLocalPort() + "/mask.json";
            String ok = "{ \"schema\": \"saw.mask/1\", \"name\": \"" + url + "\", \"description\": \"see " + url + "\", "
                    + "\"seq_len_q\": 64, \"seq_len_kv\": 64, \"mask\": { \"full\": {} } }";
            MaskConfig c = ConfigReader.parse("url.json", ok);
            assertEquals(url, c.name());
            for (String ref : List.of("\"$ref\": \"" + url + "\"", "\"$schema\": \"" + url + "\"", "\"include\": \"" + url + "\"",
                    "\"mask\": { \"$ref\": \"" + url + "\" }")) {
                String doc = "{ \"schema\": \"saw.mask/1\", \"name\": \"r\", \"seq_len_q\": 64, \"seq_len_kv\": 64, " + ref
                        + (ref.startsWith("\"mask\"") ? "" : ", \"mask\": { \"full\": {} }") + " }";
                ConfigException e = assertThrows(ConfigException.class, () -> ConfigReader.parse("ref.json", doc));
                assertTrue(e.getMessage().contains("unknown"), e.getMessage());
            }
            server.setSoTimeout(300);
            assertThrows(SocketTimeoutException.class, server::accept, "loading a config connected to " + url);
        }
        ReliabilityLog.write("config-only-reads-urls", new ReliabilityLog.Row("Config inputs", 98,
                "configs naming a live local URL (as name, description, $ref, $schema, include) and files (a secret to read, a path to write)",
                6, "read the names as plain strings or refused the keys as unknown; no connection was made, no file read or written",
                "nothing", ""));
    }

    @Test
    void filesNamedInAConfigAreNeitherReadNorWritten(@TempDir Path dir) throws IOException, ConfigException {
        Path secret = dir.resolve("secret.json");
        Files.writeString(secret, "{ \"schema\": \"saw.mask/1\", \"name\": \"SECRET\", \"seq_len_q\": 8, \"seq_len_kv\": 8, "
                + "\"mask\": { \"full\": {} } }", StandardCharsets.UTF_8);
        Path wouldBeWritten = dir.resolve("pwned");
        String doc = "{ \"schema\": \"saw.mask/1\", \"name\": " + quoted(wouldBeWritten.toString()) + ", \"description\": "
                + quoted("file:" + secret + " " + secret.toUri()) + ", \"seq_len_q\": 64, \"seq_len_kv\": 64, \"mask\": { \"causal\": {} } }";
        Path config = dir.resolve("config.json");
        Files.writeString(config, doc, StandardCharsets.UTF_8);
        MaskConfig c = ConfigReader.read(config);
        assertEquals(wouldBeWritten.toString(), c.name());
        assertFalse(c.description().contains("SECRET"));
        assertFalse(Files.exists(wouldBeWritten));
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of("config.json", "secret.json"), files.map(p -> p.getFileName().toString()).sorted().toList());
        }
    }

    private static String quoted(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
