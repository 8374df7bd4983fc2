package saw.engine.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Inputs built to hurt: each must end in a {@link ConfigException} whose first problem says what is wrong and
 * where, without running out of memory or throwing anything else. The large ones are streamed, never held.
 */
class HostileInputTest {
    private static final String HEAD = "{ \"schema\": \"saw.mask/1\", \"name\": \"h\", \"seq_len_q\": 1024, \"seq_len_kv\": 1024, ";

    /** {@code prefix}, then {@code unit} repeated {@code times}, then {@code suffix}, produced as it is read. */
    private static InputStream repeated(String prefix, String unit, long times, String suffix) {
        byte[] u = unit.getBytes(StandardCharsets.UTF_8);
        InputStream middle = new InputStream() {
            private long left = times * u.length;

            @Override
            public int read() {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (left == 0) {
                    return -1;
                }
                int n = (int) Math.min(len, left);
                for (int i = 0; i < n; i++) {
                    long pos = times * u.length - left + i;
                    b[off + i] = u[(int) (pos % u.length)];
                }
                left -= n;
                return n;
            }
        };
        return new SequenceInputStream(new SequenceInputStream(bytes(prefix), middle), bytes(suffix));
    }

    private static InputStream bytes(String s) {
        return new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8));
    }

    private static ConfigProblem rejected(InputStream in) {
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigReader.read("hostile.json", in));
        ConfigProblem first = e.problems().get(0);
        assertTrue(first.line() > 0, "no line in: " + e.getMessage());
        return first;
    }

    @Test
    void aHundredMegabyteStringIsRefusedAtTheLimit() {
        ConfigProblem p = rejected(repeated(HEAD + "\"description\": \"", "a", 100_000_000L, "\" }"));
        assertEquals("/description", p.path());
        assertTrue(p.message().contains("a string is longer than " + ConfigReader.MAX_STRING_LENGTH), p.message());
    }

    @Test
    void nestingAHundredThousandDeepIsRefused() {
        ConfigProblem p = rejected(repeated(HEAD + "\"mask\": ", "{ \"not\": ", 100_000, "{ \"full\": {} }" + " }".repeat(100_000) + " }"));
        assertEquals("/mask" + "/not".repeat(64), p.path());
        assertTrue(p.message().contains("masks nest deeper than 64 levels"), p.message());
        ConfigException e = assertThrows(ConfigException.class,
                () -> ConfigReader.read("deep.json", repeated(HEAD + "\"x\": ", "[", 100_000, "]".repeat(100_000) + " }")));
        assertEquals("/x", e.problems().get(0).path());
        ConfigProblem raw = e.problems().get(1);
        assertTrue(raw.message().contains("nests deeper than " + ConfigReader.MAX_JSON_DEPTH), raw.message());
        assertTrue(raw.line() > 0);
    }

    @Test
    void anArrayOfAHundredMillionEntriesIsRefusedAtTheLimit() {
        ConfigProblem p = rejected(repeated(HEAD + "\"mask\": { \"documents\": { \"lengths\": [", "1,", 100_000_000L, "1] } } }"));
        assertEquals("/mask/documents/lengths", p.path());
        assertEquals("has more than 1024 entries, more than the longest sequence has tokens", p.message());
        String maskFirst = "{ \"schema\": \"saw.mask/1\", \"name\": \"h\", \"mask\": { \"documents\": { \"segment_ids\": [";
        ConfigProblem unknownLength = rejected(repeated(maskFirst, "1,", 100_000_000L, "1] } }, \"seq_len_q\": 8, \"seq_len_kv\": 8 }"));
        assertEquals("/mask/documents/segment_ids", unknownLength.path());
        assertEquals("has more than 16777216 entries", unknownLength.message());
        ConfigProblem rows = rejected(repeated(HEAD + "\"mask\": { \"block_list\": { \"block\": [16, 16], \"rows\": [", "[],", 100_000_000L, "[]] } } }"));
        assertEquals("/mask/block_list/rows", rows.path());
        assertTrue(rows.message().contains("q-block rows"), rows.message());
    }

    @Test
    void paintedRangesCannotExpandPastTheBudget() {
        ConfigProblem p = rejected(repeated(HEAD + "\"mask\": { \"painted\": { \"block\": [16, 16], \"cells\": [", "\"0-1048575\",", 100, "\"\"] } } }"));
        assertTrue(p.path().startsWith("/mask/painted/cells/"), p.path());
        assertTrue(p.message().contains("more kv-block indices than the config may hold")
                || p.message().contains("integers in its arrays"), p.message());
    }

    @Test
    void invalidUtf8IsRefused() {
        byte[] head = (HEAD + "\"description\": \"caf").getBytes(StandardCharsets.UTF_8);
        for (byte[] bad : new byte[][] {{(byte) 0xff}, {(byte) 0xc3}, {(byte) 0xc0, (byte) 0x80}, {(byte) 0xed, (byte) 0xa0, (byte) 0x80}}) {
            byte[] doc = Arrays.copyOf(head, head.length + bad.length + 4);
            System.arraycopy(bad, 0, doc, head.length, bad.length);
            System.arraycopy("\" }".getBytes(StandardCharsets.UTF_8), 0, doc, head.length + bad.length, 3);
            ConfigProblem p = rejected(new ByteArrayInputStream(doc, 0, head.length + bad.length + 3));
            assertTrue(p.message().startsWith("not valid JSON"), p.message());
        }
    }

    @Test
    void nonNumbersAreRefusedWherever() {
        for (String value : List.of("NaN", "Infinity", "-Infinity", "+1", "0x10", "1e400", "01")) {
            ConfigProblem p = rejected(bytes(HEAD + "\"batch\": " + value + ", \"mask\": { \"full\": {} } }"));
            assertEquals(1, p.line(), value);
        }
    }

    /** Every preset cut short at many places, and every preset mutated thousands of times, seeded. */
    @Test
    void truncatedAndMutatedPresetsLoadOrAreRejectedWithAPlace() {
        long master = Long.getLong("saw.test.seed", 0xBADL);
        SplittableRandom rnd = new SplittableRandom(master);
        List<byte[]> presets = Presets.all().stream()
                .map(p -> ConfigWriter.toJson(p.config()).getBytes(StandardCharsets.UTF_8)).toList();
        int loaded = 0;
        for (byte[] doc : presets) {
            for (int cut = 0; cut < doc.length - 2; cut += 1 + doc.length / 300) {
                byte[] head = Arrays.copyOf(doc, cut);
                ConfigException e = assertThrows(ConfigException.class,
                        () -> ConfigReader.read("cut.json", new ByteArrayInputStream(head)));
                assertFalse(e.getMessage().isBlank());
            }
        }
        for (int n = 0; n < 3000; n++) {
            long seed = rnd.nextLong();
            byte[] doc = mutate(presets.get(n % presets.size()), new SplittableRandom(seed));
            try {
                MaskConfig c = ConfigReader.read("mutant.json", new ByteArrayInputStream(doc));
                assertEquals(c, ConfigReader.parse("again.json", ConfigWriter.toJson(c)));
                loaded++;
            } catch (ConfigException e) {
                for (ConfigProblem p : e.problems()) {
                    assertFalse(p.message().isBlank(), "seed " + seed);
                    assertTrue(p.line() > 0 || p.message().startsWith("stopped after"), "no place; seed " + seed + ": " + e.getMessage());
                }
            } catch (RuntimeException | OutOfMemoryError e) {
                fail("mutant from seed " + seed + " threw " + e + "\n" + new String(doc, StandardCharsets.UTF_8), e);
            }
        }
        assertTrue(loaded > 0 && loaded < 3000, "mutants loaded: " + loaded);
    }

    private static byte[] mutate(byte[] doc, SplittableRandom rnd) {
        byte[] out = doc.clone();
        for (int edits = 1 + rnd.nextInt(3); edits > 0; edits--) {
            int at = rnd.nextInt(out.length);
            int len = Math.min(out.length - at, 1 + rnd.nextInt(12));
            switch (rnd.nextInt(6)) {
                case 0: // flip a byte
                    out[at] = (byte) rnd.nextInt(256);
                    break;
                case 1: { // delete a range
                    byte[] shorter = new byte[out.length - len];
                    System.arraycopy(out, 0, shorter, 0, at);
                    System.arraycopy(out, at + len, shorter, at, out.length - at - len);
                    out = shorter;
                    break;
                }
                case 2: { // duplicate a range
                    byte[] longer = new byte[out.length + len];
                    System.arraycopy(out, 0, longer, 0, at + len);
                    System.arraycopy(out, at, longer, at + len, out.length - at);
                    out = longer;
                    break;
                }
                default: { // put a nasty token at a digit
                    String[] nasty = {"-1", "NaN", "99999999999", "0.5", "\"x\"", "null", "[]", "{}", "2147483648", "-16777217", "1e3"};
                    byte[] t = nasty[rnd.nextInt(nasty.length)].getBytes(StandardCharsets.UTF_8);
                    int digit = at;
                    while (digit < out.length && (out[digit] < '0' || out[digit] > '9')) {
                        digit++;
                    }
                    if (digit == out.length) {
                        break;
                    }
                    byte[] put = new byte[out.length - 1 + t.length];
                    System.arraycopy(out, 0, put, 0, digit);
                    System.arraycopy(t, 0, put, digit, t.length);
                    System.arraycopy(out, digit + 1, put, digit + t.length, out.length - digit - 1);
                    out = put;
                    break;
                }
            }
            if (out.length == 0) {
                return out;
            }
        }
        return out;
    }
}
