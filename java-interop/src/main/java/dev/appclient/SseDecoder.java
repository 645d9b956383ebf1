package dev.appclient;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns the bytes of a {@code text/event-stream} body into the {@code data} payloads of its
 * messages (package-private, pure: no I/O).
 *
 * <p>Reading is lenient, as docs/protocol.md section 5 asks: lines end at CR, LF or CRLF (a CRLF split
 * across two chunks counts once) and nowhere else, so U+2028 inside the JSON is kept; bytes are
 * decoded as UTF-8 per complete line, so a character split across chunks survives any
 * chunking; {@code event:}, {@code id:}, {@code retry:} and {@code :} comment lines are
 * ignored; a byte-order mark opening the stream is dropped; several {@code data:} lines of one message are joined with {@code "\n"}; a blank line
 * ends a message; a last message not followed by a blank line is still delivered at the end.
 */
final class SseDecoder {
    private final int maxLineBytes;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();
    private StringBuilder data;
    private boolean afterCarriageReturn;
    private boolean firstLine = true;

    /**
     * Creates a decoder.
     *
     * @param maxLineBytes the longest line accepted; a longer one means a broken stream
     */
    SseDecoder(int maxLineBytes) {
        this.maxLineBytes = maxLineBytes;
    }

    /**
     * Feeds the next chunk of the body.
     *
     * @param bytes the buffer
     * @param offset where the chunk starts
     * @param length how many bytes it holds
     * @return the payloads of the messages this chunk completed, in order (often none)
     * @throws ResponseDecodeException when a line grows past the limit
     */
    List<String> feed(byte[] bytes, int offset, int length) {
        List<String> messages = new ArrayList<>();
        for (int i = offset; i < offset + length; i++) {
            byte b = bytes[i];
            if (b == '\n' && afterCarriageReturn) {
                afterCarriageReturn = false; // the LF of a CRLF whose CR ended the line already
                continue;
            }
            afterCarriageReturn = b == '\r';
            if (b == '\r' || b == '\n') {
                endLine(messages);
            } else {
                if (line.size() >= maxLineBytes) {
                    throw new ResponseDecodeException(
                            "an SSE line is longer than " + maxLineBytes + " bytes", "", null);
                }
                line.write(b);
            }
        }
        return messages;
    }

    /**
     * Ends the body: a last line without its end of line, and a last message without its blank
     * line, are delivered rather than lost.
     *
     * @return the payload of the unfinished message, if any
     */
    List<String> finish() {
        List<String> messages = new ArrayList<>();
        if (line.size() > 0) {
            endLine(messages);
        }
        if (data != null) {
            messages.add(data.toString());
            data = null;
        }
        return messages;
    }

    private void endLine(List<String> messages) {
        String text = line.toString(StandardCharsets.UTF_8);
        line.reset();
        if (firstLine) {
            firstLine = false;
            if (text.startsWith("\uFEFF")) {
                text = text.substring(1); // a byte-order mark may open the stream (SSE spec)
            }
        }
        if (text.isEmpty()) {
            if (data != null) {
                messages.add(data.toString());
                data = null;
            }
            return;
        }
        if (text.charAt(0) == ':') {
            return; // a comment, e.g. a heartbeat
        }
        int colon = text.indexOf(':');
        String field = colon < 0 ? text : text.substring(0, colon);
        if (!"data".equals(field)) {
            return; // event:, id:, retry: and unknown fields carry nothing this protocol needs
        }
        String value = colon < 0 ? "" : text.substring(colon + 1);
        if (value.startsWith(" ")) {
            value = value.substring(1);
        }
        if (data == null) {
            data = new StringBuilder(value);
        } else {
            data.append('\n').append(value);
        }
    }
}
