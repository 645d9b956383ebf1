package dev.appclient;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A loopback HTTP server answering with whatever a test scripts, recording each request: lets
 * the client's transport be tested against exact bytes the reference server would never send.
 */
final class StubServer implements AutoCloseable {
    /** One recorded request. */
    record Recorded(String method, String path, String authorization, String body, Headers headers) {}

    /** What the stub does with a request. */
    @FunctionalInterface
    interface Handler {
        void handle(HttpExchange exchange) throws IOException, InterruptedException;
    }

    private final HttpServer server;
    private final List<Recorded> requests = new CopyOnWriteArrayList<>();
    /** Released when a test ends, so a stalled handler does not outlive it. */
    final CountDownLatch release = new CountDownLatch(1);
    private volatile Handler handler = exchange -> respond(exchange, 500, "{}");

    StubServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            requests.add(new Recorded(
                    exchange.getRequestMethod(),
                    exchange.getRequestURI().getPath(),
                    exchange.getRequestHeaders().getFirst("Authorization"),
                    new String(body, StandardCharsets.UTF_8),
                    exchange.getRequestHeaders()));
            try {
                handler.handle(exchange);
            } catch (InterruptedException stop) {
                Thread.currentThread().interrupt();
            } catch (IOException clientGone) {
                // the client closed the connection, which some tests do on purpose
            } finally {
                exchange.close();
            }
        });
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    void handle(Handler next) {
        this.handler = next;
    }

    List<Recorded> requests() {
        return requests;
    }

    AppClient client(String token) {
        return AppClient.builder().baseUrl(url()).token(token).appId("stub-app")
                .readTimeout(java.time.Duration.ofSeconds(5)).build();
    }

    static void respond(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    /** Sends a body as a chunked event stream, flushing after every piece. */
    static void stream(HttpExchange exchange, List<String> pieces) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
        exchange.sendResponseHeaders(200, 0);
        OutputStream out = exchange.getResponseBody();
        for (String piece : pieces) {
            out.write(piece.getBytes(StandardCharsets.UTF_8));
            out.flush();
        }
    }

    /** Holds a handler until the test ends (or 30 s pass). */
    void stall() throws InterruptedException {
        release.await(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        release.countDown();
        server.stop(0);
    }
}
