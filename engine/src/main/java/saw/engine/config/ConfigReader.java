package saw.engine.config;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import saw.engine.mask.Dims;

/**
 * Reads {@code saw.mask/1} configs strictly: unknown keys, wrong types, missing or duplicate keys, out-of-range
 * values and masks that do not fit the sizes are all reported, each with its JSON pointer, line and column.
 * docs/config.md describes the format. Hostile input fails fast: the limits below bound the time and memory a
 * config can cost before it is refused.
 */
public final class ConfigReader {
    /** JSON nesting limit; a legal config with masks nested 64 deep stays under 140. */
    public static final int MAX_JSON_DEPTH = 200;
    /** Longest string (characters): a painted row of a 2^24-token sequence, written as ranges, fits easily. */
    public static final int MAX_STRING_LENGTH = 1 << 22;
    /** Longest number literal (characters); a 64-bit seed has at most 20 digits. */
    public static final int MAX_NUMBER_LENGTH = 40;
    /** Longest config file (bytes). */
    public static final long MAX_DOCUMENT_BYTES = 1L << 30;
    /** Most entries in one integer array (a segment id per token of the longest sequence). */
    public static final int MAX_ARRAY_LENGTH = Dims.MAX_SEQ;
    /** Most integers in all arrays of one config together (painted ranges counted expanded). */
    public static final long MAX_INTEGERS = 1L << 25;
    /** Reading stops after this many problems. */
    public static final int MAX_PROBLEMS = 50;

    private static final JsonFactory FACTORY = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNestingDepth(MAX_JSON_DEPTH)
                    .maxStringLength(MAX_STRING_LENGTH)
                    .maxNumberLength(MAX_NUMBER_LENGTH)
                    .maxNameLength(1000)
                    .maxDocumentLength(MAX_DOCUMENT_BYTES)
                    .maxTokenCount(2 * MAX_INTEGERS)
                    .build())
            .disable(StreamReadFeature.AUTO_CLOSE_SOURCE)
            .build();

    private ConfigReader() {}

    /**
     * Reads a config file; a missing, unreadable or oversized file is a {@link ConfigException} too.
     *
     * @throws ConfigException naming the file and every problem found
     */
    public static MaskConfig read(Path file) throws ConfigException {
        String source = file.toString();
        if (Files.isDirectory(file)) {
            throw ConfigException.of(source, "is a folder, not a config file");
        }
        try (InputStream in = Files.newInputStream(file)) {
            if (Files.size(file) > MAX_DOCUMENT_BYTES) {
                throw ConfigException.of(source, "the file is larger than " + MAX_DOCUMENT_BYTES + " bytes");
            }
            return read(source, in);
        } catch (NoSuchFileException e) {
            throw ConfigException.of(source, "no such file");
        } catch (AccessDeniedException e) {
            throw ConfigException.of(source, "cannot read the file: permission denied");
        } catch (IOException e) {
            throw ConfigException.of(source, "cannot read the file: " + e.getMessage());
        }
    }

    /**
     * Reads a config from UTF-8 JSON; {@code source} names it in messages. Does not close {@code in}.
     *
     * @throws ConfigException naming the source and every problem found
     */
    public static MaskConfig read(String source, InputStream in) throws ConfigException {
        ConfigParser parser;
        try (JsonParser json = FACTORY.createParser(in)) {
            parser = new ConfigParser(json);
            parser.parse();
        } catch (IOException e) {
            throw ConfigException.of(source, "cannot read: " + e.getMessage());
        }
        if (!parser.problemsToReport().isEmpty()) {
            throw new ConfigException(source, parser.problemsToReport());
        }
        return parser.config();
    }

    /** Reads a config from a JSON string. */
    public static MaskConfig parse(String source, String json) throws ConfigException {
        return read(source, new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)));
    }
}
