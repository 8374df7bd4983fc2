package saw.engine.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import saw.engine.mask.IntArray;

/**
 * Strict reading of JSON values from a token stream, for {@link ConfigParser}: each {@code read...} method starts
 * on the first token of its value and ends on its last, returns null when it recorded a problem, and skips what it
 * cannot use so that reading goes on and every problem is reported. The place (line, column) of each value read is
 * remembered by JSON pointer, so that problems found after reading can be pointed at too.
 */
abstract class StrictJsonReader {
    /** Thrown to stop reading: the problem that stopped it has been recorded. */
    static final class Stop extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Stop() {
            super(null, null, false, false);
        }
    }

    @FunctionalInterface
    interface FieldReader {
        void read(String key, String path) throws IOException;
    }

    /** Most values a skipped array or object may hold before reading stops. */
    static final int MAX_SKIPPED_VALUES = 1 << 16;

    final JsonParser p;
    final List<ConfigProblem> problems = new ArrayList<>();
    final Map<String, Long> places = new HashMap<>();
    /** For long arrays of arrays (block-list rows): the place of every element, by the array's pointer. */
    final Map<String, long[]> elementPlaces = new HashMap<>();
    private long integersRead;

    StrictJsonReader(JsonParser p) {
        this.p = p;
    }

    /** How many more integers the config may hold. */
    long integerBudget() {
        return ConfigReader.MAX_INTEGERS - integersRead;
    }

    /** Reads an object's fields; unknown and duplicate keys are problems. Null when the value is not an object. */
    Set<String> readObject(String path, String owner, List<String> allowed, FieldReader reader) throws IOException {
        String example = allowed.isEmpty() ? "{}" : "{\"" + allowed.get(0) + "\": ...}";
        if (!expect(JsonToken.START_OBJECT, path, owner + " takes an object such as " + example)) {
            return null;
        }
        return readFields(path, owner, allowed, reader);
    }

    /** Reads the fields of the object whose START_OBJECT is the current token. */
    Set<String> readFields(String path, String owner, List<String> allowed, FieldReader reader) throws IOException {
        Set<String> seen = new HashSet<>();
        while (next() == JsonToken.FIELD_NAME) {
            String key = p.currentName();
            String keyPath = path + "/" + pointerToken(key);
            long keyPlace = here();
            next();
            if (!seen.add(key)) {
                problem(keyPath, keyPlace, "duplicate key " + quote(key));
                skip(keyPath);
            } else if (!allowed.contains(key)) {
                seen.remove(key);
                problem(keyPath, keyPlace, "unknown key " + quote(key) + "; " + owner
                        + (allowed.isEmpty() ? " takes no keys" : " takes " + String.join(", ", allowed)));
                skip(keyPath);
            } else {
                places.put(keyPath, here());
                reader.read(key, keyPath);
            }
        }
        return seen;
    }

    /** An object of integer parameters (only those in {@code keys}); null when it had a problem. */
    Map<String, Long> readIntParams(String path, String owner, String[] keys, long[] min, long[] max) throws IOException {
        int before = problems.size();
        Map<String, Long> values = new HashMap<>();
        List<String> allowed = List.of(keys);
        readObject(path, owner, allowed, (key, keyPath) -> {
            int k = allowed.indexOf(key);
            Long v = readLong(keyPath, min[k], max[k]);
            if (v != null) {
                values.put(key, v);
            }
        });
        return problems.size() == before ? values : null;
    }

    /** An object with one required integer parameter: its value, or null when there was a problem. */
    Integer requiredInt(String path, String owner, String key, long min, long max) throws IOException {
        Map<String, Long> v = readIntParams(path, owner, keys(key), mins(min), maxs(max));
        if (v != null && !v.containsKey(key)) {
            problem(path, places.get(path), owner + " needs \"" + key + "\"");
            return null;
        }
        return v == null ? null : v.get(key).intValue();
    }

    boolean requireKeys(String path, String owner, Set<String> seen, String... required) {
        boolean ok = true;
        for (String key : required) {
            if (!seen.contains(key)) {
                problem(path, places.get(path), owner + " needs \"" + key + "\"");
                ok = false;
            }
        }
        return ok;
    }

    Integer readInt(String path, int min, int max) throws IOException {
        Long v = readLong(path, min, max);
        return v == null ? null : v.intValue();
    }

    Long readLong(String path, long min, long max) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NUMBER_INT && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
            long v = p.getLongValue();
            if (v >= min && v <= max) {
                return v;
            }
        }
        problem(path, here(), "must be an integer in " + min + ".." + max + ", got " + describe(t));
        skip(path);
        return null;
    }

    String readString(String path, int maxLength) throws IOException {
        JsonToken t = p.currentToken();
        if (t != JsonToken.VALUE_STRING) {
            problem(path, here(), "must be a string, got " + describe(t));
            skip(path);
            return null;
        }
        String s = p.getText();
        if (s.length() > maxLength) {
            problem(path, here(), "is longer than " + maxLength + " characters");
            return null;
        }
        return s;
    }

    /**
     * A string of text for people (a name, a description): no control characters, which a terminal could act on when
     * the text is printed (only tab and line breaks when {@code multiline}), and no unpaired surrogates, which UTF-8
     * cannot write back.
     */
    String readText(String path, int maxLength, boolean multiline) throws IOException {
        String s = readString(path, maxLength);
        if (s == null) {
            return null;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean control = c < 0x20 || (c >= 0x7f && c <= 0x9f);
            if (control && !(multiline && (c == '\t' || c == '\n' || c == '\r'))) {
                problem(path, here(), String.format(Locale.ROOT, "contains the control character U+%04X; %s", (int) c,
                        multiline ? "only tabs and line breaks are allowed" : "a name is one line of plain text"));
                return null;
            }
            if (Character.isSurrogate(c)) {
                boolean paired = Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1));
                if (!paired) {
                    problem(path, here(), String.format(Locale.ROOT, "contains an unpaired surrogate \\u%04X, which is not text", (int) c));
                    return null;
                }
                i++;
            }
        }
        return s;
    }

    /** An array of integers in [min, max] with at most {@code maxLength} entries ({@code whyThatMany} ends the message). */
    IntArray readIntArray(String path, long min, long max, int maxLength, String whyThatMany) throws IOException {
        long place = here();
        if (!expect(JsonToken.START_ARRAY, path, "must be an array of integers")) {
            return null;
        }
        int before = problems.size();
        int[] values = new int[16];
        int n = 0;
        JsonToken t;
        while ((t = next()) != JsonToken.END_ARRAY) {
            if (n == maxLength) {
                problem(path, place, "has more than " + maxLength + " entries" + whyThatMany);
                throw new Stop();
            }
            countIntegers(1, path);
            if (n == values.length) {
                values = Arrays.copyOf(values, Math.min(maxLength, n * 2));
            }
            if (t == JsonToken.VALUE_NUMBER_INT && p.getNumberType() == JsonParser.NumberType.INT
                    && p.getIntValue() >= min && p.getIntValue() <= max) {
                values[n] = p.getIntValue();
            } else {
                problem(path + "/" + n, here(), "must be an integer in " + min + ".." + max + ", got " + describe(t));
                skip(path + "/" + n);
            }
            n++;
        }
        return problems.size() == before ? IntArray.of(Arrays.copyOf(values, n)) : null;
    }

    void countIntegers(long count, String path) {
        integersRead += count;
        if (integersRead > ConfigReader.MAX_INTEGERS) {
            problem(path, here(), "the config holds more than " + ConfigReader.MAX_INTEGERS + " integers in its arrays");
            throw new Stop();
        }
    }

    /** Whether the current token is {@code want}; if not, records "{@code what}, got ..." and skips the value. */
    boolean expect(JsonToken want, String path, String what) throws IOException {
        JsonToken t = p.currentToken();
        if (t == want) {
            return true;
        }
        problem(path, here(), what + ", got " + describe(t));
        skip(path);
        return false;
    }

    /**
     * Skips the value whose first token is the current one, as {@code skipChildren} does, but bounded: a string is
     * read only up to the string limit (which stops reading), and reading stops once a skipped array or object has
     * held {@value #MAX_SKIPPED_VALUES} values. A huge value under a wrong key so costs no more time than one under
     * the right key, which is refused at its limit.
     */
    void skip(String path) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_STRING) {
            p.getTextLength();
        } else if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
            skipRest(path, here());
        }
    }

    /** Skips to the end of the array or object being read, bounded as {@link #skip} is; {@code place} is its start. */
    void skipRest(String path, long place) throws IOException {
        int depth = 1;
        int values = 0;
        while (depth > 0) {
            JsonToken t = next();
            if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
                depth++;
            } else if (t == JsonToken.END_OBJECT || t == JsonToken.END_ARRAY) {
                depth--;
            } else if (t == JsonToken.VALUE_STRING) {
                p.getTextLength();
            }
            if (t != JsonToken.FIELD_NAME && ++values > MAX_SKIPPED_VALUES) {
                problem(path, place, "stopped reading: this value cannot be used and holds more than " + MAX_SKIPPED_VALUES + " values");
                throw new Stop();
            }
        }
    }

    JsonToken next() throws IOException {
        JsonToken t = p.nextToken();
        if (t == null) {
            problem(p.getParsingContext().pathAsPointer().toString(), here(), "the file ends in the middle of the config");
            throw new Stop();
        }
        return t;
    }

    // ---- problems and places ----

    void problem(String path, Long place, String message) {
        problems.add(problemAt(path, place == null ? 0 : place, message));
        if (problems.size() >= ConfigReader.MAX_PROBLEMS) {
            problems.add(new ConfigProblem("", 0, 0, "stopped after " + ConfigReader.MAX_PROBLEMS + " problems"));
            throw new Stop();
        }
    }

    static ConfigProblem problemAt(String path, long place, String message) {
        return new ConfigProblem(path, (int) (place >>> 32), (int) place, message);
    }

    void parserProblem(String message, JsonLocation location) {
        String path = p.getParsingContext() == null ? "" : p.getParsingContext().pathAsPointer().toString();
        JsonLocation at = location != null && location.getLineNr() > 0 ? location : p.currentLocation();
        long place = at == null ? 0 : pack(at.getLineNr(), at.getColumnNr());
        problems.add(problemAt(path, place, message));
    }

    /** The place of the nearest value at or above {@code path} that was seen while reading. */
    long placeOf(String path) {
        String at = path;
        while (true) {
            Long place = places.get(at);
            if (place != null) {
                return place;
            }
            int slash = at.lastIndexOf('/');
            if (slash < 0) {
                return pack(1, 1);
            }
            long[] elements = elementPlaces.get(at.substring(0, slash));
            if (elements != null) {
                try {
                    int index = Integer.parseInt(at.substring(slash + 1));
                    if (index >= 0 && index < elements.length) {
                        return elements[index];
                    }
                } catch (NumberFormatException e) {
                    // not an element index: go up
                }
            }
            at = at.substring(0, slash);
        }
    }

    long here() {
        JsonLocation l = p.currentTokenLocation();
        return pack(l.getLineNr(), l.getColumnNr());
    }

    static long pack(int line, int column) {
        return ((long) Math.max(line, 0) << 32) | (Math.max(column, 0) & 0xffffffffL);
    }

    String describe(JsonToken t) throws IOException {
        if (t == null) {
            return "nothing";
        }
        switch (t) {
            case START_OBJECT: return "an object";
            case START_ARRAY: return "an array";
            case VALUE_STRING: return "a string";
            case VALUE_NUMBER_INT: return p.getText();
            case VALUE_NUMBER_FLOAT: return p.getText() + " (not an integer)";
            case VALUE_TRUE: return "true";
            case VALUE_FALSE: return "false";
            case VALUE_NULL: return "null";
            default: return t.asString() == null ? t.name() : t.asString();
        }
    }

    /** A short, printable rendering of a key or value taken from the input. */
    static String quote(String s) {
        StringBuilder q = new StringBuilder("\"");
        for (int i = 0; i < s.length() && i < 40; i++) {
            char c = s.charAt(i);
            q.append(c < 0x20 || c == 0x7f ? '?' : c);
        }
        return q.append(s.length() > 40 ? "...\"" : "\"").toString();
    }

    static String pointerToken(String key) {
        return key.replace("~", "~0").replace("/", "~1");
    }

    /** Turns a Jackson limit message into a sentence naming saw's limit. */
    static String limitMessage(String original) {
        String m = original == null ? "" : original;
        if (m.startsWith("Document nesting depth")) {
            return "the JSON nests deeper than " + ConfigReader.MAX_JSON_DEPTH + " levels";
        } else if (m.startsWith("String value length") || m.startsWith("String length")) {
            return "a string is longer than " + ConfigReader.MAX_STRING_LENGTH + " characters";
        } else if (m.startsWith("Number value length") || m.startsWith("Number length")) {
            return "a number is longer than " + ConfigReader.MAX_NUMBER_LENGTH + " characters";
        } else if (m.startsWith("Name length")) {
            return "a key is longer than 1000 characters";
        } else if (m.startsWith("Document length") || m.startsWith("Document size")) {
            return "the file is longer than " + ConfigReader.MAX_DOCUMENT_BYTES + " bytes";
        } else if (m.startsWith("Token count")) {
            return "the config has too many JSON values (more than " + 2 * ConfigReader.MAX_INTEGERS + ")";
        }
        return cleanMessage(m);
    }

    /** Jackson's message without its advice on parser features and its source excerpts. */
    static String cleanMessage(String original) {
        String m = original == null ? "not valid JSON" : original;
        int cut = m.indexOf('\n');
        m = cut >= 0 ? m.substring(0, cut) : m;
        for (String tail : new String[] {": enable", " (start marker at", ", from `"}) {
            cut = m.indexOf(tail);
            m = cut >= 0 ? m.substring(0, cut) : m;
        }
        if (m.startsWith("Non-standard token")) {
            return "not valid JSON: " + m.substring("Non-standard token ".length())
                    + " is not a JSON number (NaN and Infinity are not allowed)";
        }
        return "not valid JSON: " + m;
    }

    static String[] keys(String... k) {
        return k;
    }

    static long[] mins(long... v) {
        return v;
    }

    static long[] maxs(long... v) {
        return v;
    }
}
