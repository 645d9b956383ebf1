package dev.appclient;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The SSE decoder: line ends, fields, and any chunking of the bytes. */
class SseDecoderTest {
    private static List<String> decodeWhole(String body) {
        return decodeInChunks(body.getBytes(StandardCharsets.UTF_8), Integer.MAX_VALUE);
    }

    private static List<String> decodeInChunks(byte[] bytes, int chunkSize) {
        SseDecoder decoder = new SseDecoder(1024);
        List<String> messages = new ArrayList<>();
        for (int start = 0; start < bytes.length; start += chunkSize) {
            int length = Math.min(chunkSize, bytes.length - start);
            messages.addAll(decoder.feed(bytes, start, length));
        }
        messages.addAll(decoder.finish());
        return messages;
    }

    /** Messages end at a blank line whatever the line ending: LF, CRLF or CR. */
    @ParameterizedTest
    @ValueSource(strings = {"\n", "\r\n", "\r"})
    void splitsOnEveryLineEnding(String eol) {
        String body = "data: {\"a\":1}" + eol + eol + "data: {\"b\":2}" + eol + eol;
        assertEquals(List.of("{\"a\":1}", "{\"b\":2}"), decodeWhole(body));
    }

    /** Every split of the bytes, including inside a CRLF and a UTF-8 character, gives the same messages. */
    @Test
    void anyChunkingGivesTheSameMessages() {
        String body = "data: {\"answer\":\"北京今天25度\"}\r\n\r\n"
                + "event: message\r\nid: 7\r\ndata: {\"answer\":\"晴。\"}\r\n\r\n";
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        List<String> expected = List.of("{\"answer\":\"北京今天25度\"}", "{\"answer\":\"晴。\"}");
        for (int size = 1; size <= bytes.length; size++) {
            assertEquals(expected, decodeInChunks(bytes, size), "chunk size " + size);
        }
    }

    /** U+2028 and U+2029 are characters of the JSON, not line ends. */
    @Test
    void keepsUnicodeLineSeparatorsInsideData() {
        String body = "data: {\"answer\":\"a\u2028b\u2029c\u0085d\"}\n\n";
        assertEquals(List.of("{\"answer\":\"a\u2028b\u2029c\u0085d\"}"), decodeWhole(body));
    }

    /** Comments, event, id and retry lines carry nothing for this protocol. */
    @Test
    void ignoresFieldsOtherThanData() {
        String body = ": heartbeat\nevent: answer\nid: 3\nretry: 10\ndata: {}\n\n: bye\n\n";
        assertEquals(List.of("{}"), decodeWhole(body));
    }

    /** Several data lines of one message are joined with a newline. */
    @Test
    void joinsMultilineData() {
        assertEquals(List.of("{\n\"a\": 1\n}"), decodeWhole("data: {\ndata: \"a\": 1\ndata:}\n\n"));
    }

    /** Only one space after the colon is part of the syntax; "data:" without space works too. */
    @Test
    void stripsOneLeadingSpaceOnly() {
        assertEquals(List.of("x", "  y"), decodeWhole("data:x\n\ndata:   y\n\n"));
    }

    /** A last message whose blank line never came is still delivered at the end of the body. */
    @Test
    void deliversAnUnterminatedLastMessage() {
        assertEquals(List.of("{\"a\":1}", "{\"b\":2}"), decodeWhole("data: {\"a\":1}\n\ndata: {\"b\":2}"));
    }

    /** A line past the limit means a broken stream, reported as a decode error. */
    @Test
    void rejectsOverlongLines() {
        SseDecoder decoder = new SseDecoder(8);
        byte[] line = "data: 0123456789".getBytes(StandardCharsets.UTF_8);
        assertThrows(ResponseDecodeException.class, () -> decoder.feed(line, 0, line.length));
    }

    /** A byte-order mark opening the stream is dropped (SSE spec), so the first message is not lost. */
    @Test
    void dropsALeadingByteOrderMark() {
        byte[] bytes = "\uFEFFdata: {\"a\":1}\n\ndata: \uFEFF\n\n".getBytes(StandardCharsets.UTF_8);
        assertEquals(List.of("{\"a\":1}", "\uFEFF"), decodeInChunks(bytes, 1));
    }
}
