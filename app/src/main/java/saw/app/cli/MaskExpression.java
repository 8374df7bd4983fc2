package saw.app.cli;

import java.util.ArrayList;
import java.util.List;
import saw.engine.mask.Mask;

/**
 * A one-line mask for the command line, e.g. {@code and(causal,window(1024))} or {@code docs(3000,2000)}:
 * <pre>
 *   full | causal | causal(OFFSET) | window(LEFT) | window(LEFT,RIGHT) | chunked(CHUNK) | prefix(N) | sinks(N)
 *   | dilated(STRIDE) | global(N) | docs(LEN,...) | random(BQ,BKV,PER_ROW,SEED)
 *   | and(M,...) | or(M,...) | not(M) | heads(M,...)
 * </pre>
 * {@code window(LEFT)} is causal with LEFT tokens of look-back; -1 means unbounded. {@code global(N)} makes the first
 * N tokens global; {@code docs} lengths leave the rest of the sequence as padding; {@code heads} is a per-head mix.
 */
final class MaskExpression {
    private final String text;
    private int pos;

    private MaskExpression(String text) {
        this.text = text;
    }

    /** @throws IllegalArgumentException naming the position and what was expected */
    static Mask parse(String text) {
        MaskExpression p = new MaskExpression(text.replace(" ", ""));
        Mask m = p.mask();
        if (p.pos != p.text.length()) {
            throw p.error("unexpected '" + p.text.substring(p.pos) + "'");
        }
        return m;
    }

    private Mask mask() {
        int start = pos;
        while (pos < text.length() && (Character.isLetter(text.charAt(pos)) || text.charAt(pos) == '_')) {
            pos++;
        }
        String name = text.substring(start, pos);
        switch (name) {
            case "full": return new Mask.Full();
            case "causal": {
                int[] a = pos < text.length() && text.charAt(pos) == '(' ? ints(1, 1) : new int[] {0};
                return new Mask.Causal(a[0]);
            }
            case "window": {
                int[] a = ints(1, 2);
                return new Mask.SlidingWindow(a[0], a.length > 1 ? a[1] : 0);
            }
            case "chunked": return new Mask.ChunkedCausal(ints(1, 1)[0]);
            case "prefix": return new Mask.PrefixLm(ints(1, 1)[0]);
            case "sinks": return new Mask.Sinks(ints(1, 1)[0]);
            case "dilated": return new Mask.Dilated(ints(1, 1)[0]);
            case "global": return Mask.GlobalTokens.first(ints(1, 1)[0]);
            case "docs": return Mask.Documents.ofLengths(ints(1, Integer.MAX_VALUE));
            case "random": {
                int[] a = ints(4, 4);
                return new Mask.RandomBlocks(a[0], a[1], a[2], a[3]);
            }
            case "and": return new Mask.And(masks(1));
            case "or": return new Mask.Or(masks(1));
            case "not": return new Mask.Not(masks(1).get(0));
            case "heads": return new Mask.PerHead(masks(1));
            default:
                pos = start;
                throw error(name.isEmpty() ? "expected a mask name" : "unknown mask '" + name + "'");
        }
    }

    private int[] ints(int min, int max) {
        expect('(');
        List<Integer> values = new ArrayList<>();
        do {
            int start = pos;
            if (pos < text.length() && text.charAt(pos) == '-') {
                pos++;
            }
            while (pos < text.length() && Character.isDigit(text.charAt(pos))) {
                pos++;
            }
            try {
                values.add(Integer.parseInt(text.substring(start, pos)));
            } catch (NumberFormatException e) {
                pos = start;
                throw error("expected an integer");
            }
        } while (accept(','));
        expect(')');
        if (values.size() < min || values.size() > max) {
            throw error("expected " + (min == max ? min : min + ".." + (max == Integer.MAX_VALUE ? "n" : max)) + " numbers, got "
                    + values.size());
        }
        return values.stream().mapToInt(Integer::intValue).toArray();
    }

    private List<Mask> masks(int min) {
        expect('(');
        List<Mask> out = new ArrayList<>();
        do {
            out.add(mask());
        } while (accept(','));
        expect(')');
        if (out.size() < min) {
            throw error("expected at least " + min + " masks");
        }
        return out;
    }

    private boolean accept(char c) {
        if (pos < text.length() && text.charAt(pos) == c) {
            pos++;
            return true;
        }
        return false;
    }

    private void expect(char c) {
        if (!accept(c)) {
            throw error("expected '" + c + "'");
        }
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("mask expression '" + text + "', at character " + (pos + 1) + ": " + what);
    }
}
