package dev.appclient;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeoutException;

/**
 * One HTTP exchange of {@link AppClient}: sends a request, turns transport failures and non-200
 * answers into {@link AppClientException}s (the token masked), and reads 200 bodies with the
 * read timeout applied to every chunk. Immutable and thread-safe, like its client.
 */
final class Exchange {
    private final HttpClient http;
    private final String token;
    private final Duration readTimeout;

    Exchange(HttpClient http, String token, Duration readTimeout) {
        this.http = http;
        this.token = token;
        this.readTimeout = readTimeout;
    }

    /** Sends a request and reads its whole 200 body. */
    Answer send(HttpRequest.Builder request, String what) {
        Opened opened = open(request, what);
        return new Answer(readAll(opened.body(), what, opened.requestId()), opened.requestId());
    }

    /** Sends a request and returns once a 200 answer's headers are in; errors raise. */
    Opened open(HttpRequest.Builder builder, String what) {
        HttpRequest request = builder.build();
        String sentId = request.headers().firstValue(AppClient.HEADER_REQUEST_ID).orElse("");
        String where = what + " " + request.uri();
        HttpResponse<Flow.Publisher<List<ByteBuffer>>> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofPublisher());
        } catch (HttpConnectTimeoutException timeout) {
            throw new RequestTimeoutException(where + ": no connection within the connect timeout", timeout);
        } catch (HttpTimeoutException timeout) {
            throw new RequestTimeoutException(
                    where + ": no answer within " + readTimeout.toMillis() + " ms", timeout);
        } catch (IOException failed) {
            throw new TransportException(where + ": " + describe(failed), failed);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new TransportException(where + ": interrupted", interrupted);
        }
        BodyChunks body = new BodyChunks();
        response.body().subscribe(body);
        String requestId = response.headers().firstValue(AppClient.HEADER_REQUEST_ID).orElse(sentId);
        if (response.statusCode() != 200) {
            String text;
            try {
                text = readAll(body, where, requestId);
            } catch (AppClientException unreadable) {
                text = ""; // the status alone still says what happened
            }
            String headerId = response.headers().firstValue(AppClient.HEADER_REQUEST_ID).orElse("");
            throw Responses.statusError(
                    response.statusCode(), Responses.redact(text, token), headerId, retryAfter(response));
        }
        return new Opened(response, body, requestId);
    }

    private String readAll(BodyChunks body, String where, String requestId) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            for (byte[] chunk = body.next(readTimeout); chunk != null; chunk = body.next(readTimeout)) {
                bytes.write(chunk, 0, chunk.length);
                if (bytes.size() > RunStream.MAX_LINE_BYTES) {
                    body.cancel();
                    throw new ResponseDecodeException(
                            where + ": the answer is longer than " + RunStream.MAX_LINE_BYTES + " bytes",
                            requestId,
                            null);
                }
            }
        } catch (TimeoutException silent) {
            body.cancel();
            throw new RequestTimeoutException(
                    where + ": the body stalled for " + readTimeout.toMillis() + " ms", silent);
        } catch (IOException failed) {
            throw new TransportException(where + ": reading the answer failed: " + describe(failed), failed);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            body.cancel();
            throw new TransportException(where + ": interrupted", interrupted);
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static long retryAfter(HttpResponse<?> response) {
        // A date is compared with the server's own Date header, so the two clocks compared agree.
        Instant now = response.headers().firstValue("Date").map(Responses::httpDate).orElse(null);
        return Responses.retryAfterSeconds(
                response.headers().firstValue("Retry-After").orElse(""), now == null ? Instant.now() : now);
    }

    private static String describe(IOException error) {
        String message = error.getMessage();
        return error.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }

    record Opened(HttpResponse<?> response, BodyChunks body, String requestId) {}

    record Answer(String text, String requestId) {}
}
