package dev.appclient;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * A {@code multipart/form-data} body for file uploads (package-private).
 *
 * <p>File names are written as raw UTF-8, as the official clients do (docs/protocol.md section 2).
 */
final class Multipart {
    private final String boundary = "appclient-" + UUID.randomUUID();
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();

    Multipart field(String name, String value) {
        part("Content-Disposition: form-data; name=\"" + quoted(name) + "\"\r\n\r\n");
        write(value.getBytes(StandardCharsets.UTF_8));
        write("\r\n".getBytes(StandardCharsets.UTF_8));
        return this;
    }

    Multipart file(String name, String fileName, byte[] content) {
        part("Content-Disposition: form-data; name=\"" + quoted(name) + "\"; filename=\""
                + quoted(fileName) + "\"\r\nContent-Type: application/octet-stream\r\n\r\n");
        write(content);
        write("\r\n".getBytes(StandardCharsets.UTF_8));
        return this;
    }

    String contentType() {
        return "multipart/form-data; boundary=" + boundary;
    }

    byte[] toBytes() {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        all.writeBytes(body.toByteArray());
        all.writeBytes(("--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
        return all.toByteArray();
    }

    private void part(String headers) {
        write(("--" + boundary + "\r\n" + headers).getBytes(StandardCharsets.UTF_8));
    }

    private void write(byte[] bytes) {
        body.writeBytes(bytes);
    }

    /** Quotes and line breaks would end the header early; they cannot be in a part name. */
    private static String quoted(String text) {
        return text.replace("\"", "%22").replace("\r", "%0D").replace("\n", "%0A");
    }
}
