package saw.app.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** UTF-8 bytes into a {@link Writer}: how byte-writing exports reach the command's (character) stdout. */
final class WriterOutputStream extends OutputStream {
    private final Writer out;
    private final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPLACE)
            .onUnmappableCharacter(CodingErrorAction.REPLACE);
    private final ByteBuffer bytes = ByteBuffer.allocate(1 << 13);
    private final CharBuffer chars = CharBuffer.allocate(1 << 13);

    WriterOutputStream(Writer out) {
        this.out = out;
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        while (len > 0) {
            int n = Math.min(len, bytes.remaining());
            bytes.put(b, off, n);
            off += n;
            len -= n;
            decode(false);
        }
    }

    /** Writes out what has been decoded; a character split across writes waits for its last bytes. */
    @Override
    public void flush() throws IOException {
        out.flush();
    }

    /** Ends the byte stream: decodes what is left (an incomplete character becomes U+FFFD). Does not close the writer. */
    @Override
    public void close() throws IOException {
        decode(true);
        decoder.flush(chars);
        drain();
        out.flush();
    }

    private void decode(boolean end) throws IOException {
        bytes.flip();
        while (true) {
            boolean overflow = decoder.decode(bytes, chars, end).isOverflow();
            drain();
            if (!overflow) {
                break;
            }
        }
        bytes.compact();
    }

    private void drain() throws IOException {
        chars.flip();
        out.write(chars.array(), chars.arrayOffset() + chars.position(), chars.remaining());
        chars.clear();
    }
}
