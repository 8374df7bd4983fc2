package saw.engine.config;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import saw.engine.mask.IntArray;

/**
 * A small JSON tree and the one way saw prints it: 2-space indents; a value that fits in {@value #WIDTH}
 * characters goes on one line ({@code { "causal": { "offset": 0 } }}); integer arrays and strings always do.
 */
final class PrettyJson {
    static final int WIDTH = 80;

    private PrettyJson() {}

    sealed interface Value {}

    /** An object; keys in the order they were added. */
    static final class Obj implements Value {
        final List<String> keys = new ArrayList<>();
        final List<Value> values = new ArrayList<>();

        Obj put(String key, Value value) {
            keys.add(key);
            values.add(value);
            return this;
        }

        Obj put(String key, long number) {
            return put(key, new Literal(Long.toString(number)));
        }

        Obj put(String key, String text) {
            return put(key, new Str(text));
        }
    }

    record Arr(List<Value> items) implements Value {}

    record Ints(IntArray values) implements Value {}

    /** A number written as given. */
    record Literal(String text) implements Value {}

    record Str(String text) implements Value {}

    static void print(Value v, Appendable out) throws IOException {
        print(v, 0, 0, out);
        out.append('\n');
    }

    /** Prints {@code v} at {@code column} of a line whose nested lines are indented by {@code indent}. */
    private static void print(Value v, int indent, int column, Appendable out) throws IOException {
        boolean container = v instanceof Obj || v instanceof Arr;
        if (!container || inlineLength(v, WIDTH - column) <= WIDTH - column) {
            printInline(v, out);
        } else if (v instanceof Obj o) {
            out.append("{\n");
            for (int i = 0; i < o.keys.size(); i++) {
                pad(indent + 2, out);
                string(o.keys.get(i), out);
                out.append(": ");
                print(o.values.get(i), indent + 2, indent + 4 + o.keys.get(i).length(), out);
                out.append(i + 1 < o.keys.size() ? ",\n" : "\n");
            }
            pad(indent, out);
            out.append('}');
        } else {
            Arr a = (Arr) v;
            out.append("[\n");
            for (int i = 0; i < a.items().size(); i++) {
                pad(indent + 2, out);
                print(a.items().get(i), indent + 2, indent + 2, out);
                out.append(i + 1 < a.items().size() ? ",\n" : "\n");
            }
            pad(indent, out);
            out.append(']');
        }
    }

    /** Characters {@code v} takes on one line, or some number past {@code limit} once it is known not to fit. */
    private static long inlineLength(Value v, long limit) {
        if (v instanceof Ints ints) {
            long n = 2;
            for (int i = 0; i < ints.values().size() && n <= limit; i++) {
                n += 2 + digits(ints.values().get(i));
            }
            return n;
        } else if (v instanceof Literal l) {
            return l.text().length();
        } else if (v instanceof Str s) {
            return s.text().length() + 2L;
        } else if (v instanceof Obj o) {
            if (o.keys.isEmpty()) {
                return 2;
            }
            long n = 2;
            for (int i = 0; i < o.keys.size() && n <= limit; i++) {
                n += o.keys.get(i).length() + 6 + inlineLength(o.values.get(i), limit - n);
            }
            return n;
        }
        Arr a = (Arr) v;
        long n = 2;
        for (int i = 0; i < a.items().size() && n <= limit; i++) {
            n += 2 + inlineLength(a.items().get(i), limit - n);
        }
        return n;
    }

    private static int digits(int v) {
        return Integer.toString(v).length();
    }

    private static void printInline(Value v, Appendable out) throws IOException {
        if (v instanceof Ints ints) {
            out.append('[');
            IntArray values = ints.values();
            for (int i = 0; i < values.size(); i++) {
                if (i > 0) {
                    out.append(", ");
                }
                out.append(Integer.toString(values.get(i)));
            }
            out.append(']');
        } else if (v instanceof Literal l) {
            out.append(l.text());
        } else if (v instanceof Str s) {
            string(s.text(), out);
        } else if (v instanceof Obj o) {
            if (o.keys.isEmpty()) {
                out.append("{}");
                return;
            }
            out.append("{ ");
            for (int i = 0; i < o.keys.size(); i++) {
                string(o.keys.get(i), out);
                out.append(": ");
                printInline(o.values.get(i), out);
                out.append(i + 1 < o.keys.size() ? ", " : " }");
            }
        } else {
            Arr a = (Arr) v;
            out.append('[');
            for (int i = 0; i < a.items().size(); i++) {
                printInline(a.items().get(i), out);
                out.append(i + 1 < a.items().size() ? ", " : "");
            }
            out.append(']');
        }
    }

    private static void string(String s, Appendable out) throws IOException {
        out.append('"').append(new String(JsonStringEncoder.getInstance().quoteAsString(s))).append('"');
    }

    private static void pad(int n, Appendable out) throws IOException {
        for (int i = 0; i < n; i++) {
            out.append(' ');
        }
    }
}
