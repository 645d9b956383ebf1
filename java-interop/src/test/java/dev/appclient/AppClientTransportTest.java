package dev.appclient;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The client's HTTP behaviour against a scripted loopback stub. */
class AppClientTransportTest {
    private static final String TOKEN = "secret-token-123";
    private static final String SUCCESS = "{\"answer\":\"\",\"is_completion\":true,\"content\":"
            + "[{\"event_status\":\"success\",\"content_type\":\"status\",\"outputs\":{}}]}";

    private StubServer stub;
    private AppClient client;

    @BeforeEach
    void start() throws IOException {
        stub = new StubServer();
        client = stub.client(TOKEN);
    }

    @AfterEach
    void stop() {
        stub.close();
    }

    private static String sse(String json) {
        return "data: " + json + "\n\n";
    }

    private static RunRequest query(String text) {
        return RunRequest.builder("conv").query(text).build();
    }

    /** Create conversation posts the app id with the bearer token and returns the id. */
    @Test
    void createConversationSendsAppIdAndToken() {
        stub.handle(exchange -> StubServer.respond(exchange, 200,
                "{\"request_id\":\"r\",\"conversation_id\":\"conv-1\"}"));
        assertEquals("conv-1", client.createConversation());
        StubServer.Recorded request = stub.requests().get(0);
        assertEquals("POST", request.method());
        assertEquals("/v2/app/conversation", request.path());
        assertEquals("Bearer " + TOKEN, request.authorization());
        assertEquals(JsonParser.parseString("{\"app_id\":\"stub-app\"}"), JsonParser.parseString(request.body()));
    }

    /** A 401 becomes AuthenticationException with code, message and the header's request id; no token in it. */
    @Test
    void maps401ToAuthenticationException() {
        stub.handle(exchange -> {
            exchange.getResponseHeaders().set("X-Appbuilder-Request-Id", "req-401");
            StubServer.respond(exchange, 401, "{\"request_id\":\"req-401\",\"code\":\"Unauthorized\","
                    + "\"message\":\"bad token\"}");
        });
        AuthenticationException error =
                assertThrows(AuthenticationException.class, () -> client.createConversation());
        assertEquals(401, error.status());
        assertEquals("Unauthorized", error.code());
        assertEquals("bad token", error.serverMessage());
        assertEquals("req-401", error.requestId());
        assertFalse(error.getMessage().contains(TOKEN));
        assertFalse(client.toString().contains(TOKEN));
    }

    /** A token the server echoes back in an error (status body, top-level error, error event) is masked as ***. */
    @Test
    void masksAnEchoedTokenInErrors() {
        stub.handle(exchange -> StubServer.respond(exchange, 401,
                "{\"code\":\"Unauthorized\",\"message\":\"token " + TOKEN + " expired\"}"));
        AuthenticationException status = assertThrows(AuthenticationException.class, () -> client.createConversation());
        assertEquals("token *** expired", status.serverMessage());
        assertFalse(status.getMessage().contains(TOKEN));
        stub.handle(exchange -> StubServer.respond(exchange, 200,
                "{\"code\":\"" + TOKEN + "\",\"message\":\"bad " + TOKEN + "\"}"));
        RunException topLevel = assertThrows(RunException.class, () -> client.run(query("hi")));
        assertFalse(topLevel.getMessage().contains(TOKEN), topLevel.getMessage());
        stub.handle(exchange -> StubServer.stream(exchange, List.of(sse("{\"content\":[{\"event_code\":7,"
                + "\"event_status\":\"error\",\"event_message\":\"Bearer " + TOKEN + " refused\"}]}"))));
        try (RunStream stream = client.runStream(query("hi"))) {
            RunException event = assertThrows(RunException.class, stream::collect);
            assertEquals("Bearer *** refused", event.serverMessage());
        }
    }

    /** A 503 is raised at once, never retried, with its Retry-After. */
    @Test
    void doesNotRetryServerErrors() {
        stub.handle(exchange -> {
            exchange.getResponseHeaders().set("Retry-After", "7");
            StubServer.respond(exchange, 503, "{\"code\":\"Unavailable\",\"message\":\"busy\"}");
        });
        ServerException error = assertThrows(ServerException.class, () -> client.run(query("hi")));
        assertEquals(503, error.status());
        assertEquals(7, error.retryAfterSeconds());
        assertEquals(1, stub.requests().size());
    }

    /** A stream delivered one byte at a time, CRLF-framed, gives every message and the joined answer. */
    @Test
    void streamsAnyChunkingAndCrLf() {
        String body = sse("{\"answer\":\"北京\",\"message_id\":\"m\",\"content\":[{\"event_status\":\"running\"}]}")
                .replace("\n", "\r\n")
                + sse("{\"answer\":\"今天25度\",\"content\":[{\"event_status\":\"running\"}]}")
                + sse(SUCCESS);
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        stub.handle(exchange -> {
            List<String> pieces = new ArrayList<>();
            for (byte b : bytes) {
                pieces.add(new String(new byte[] {b}, StandardCharsets.ISO_8859_1));
            }
            exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            for (String piece : pieces) {
                exchange.getResponseBody().write(piece.getBytes(StandardCharsets.ISO_8859_1));
                exchange.getResponseBody().flush();
            }
        });
        try (RunStream stream = client.runStream(query("weather"))) {
            RunAnswer whole = stream.collect();
            assertEquals("北京今天25度", whole.answer());
            assertEquals(3, stream.messageCount());
            assertEquals(3, whole.events().size());
            assertTrue(whole.isCompletion());
        }
        assertTrue(stub.requests().get(0).body().contains("\"stream\":true"));
    }

    /** A stream that closes before its final event raises StreamInterruptedException after the messages it had. */
    @Test
    void raisesWhenTheStreamIsCut() {
        stub.handle(exchange -> StubServer.stream(exchange,
                List.of(sse("{\"answer\":\"part\",\"content\":[{\"event_status\":\"running\"}]}"))));
        RunStream stream = client.runStream(query("hi"));
        assertEquals("part", stream.next().answer());
        StreamInterruptedException error = assertThrows(StreamInterruptedException.class, stream::hasNext);
        assertTrue(error.getMessage().contains("after 1 message"), error.getMessage());
    }

    /** An error event in a stream raises RunException with its code and message. */
    @Test
    void raisesOnStreamErrorEvent() {
        stub.handle(exchange -> StubServer.stream(exchange, List.of(
                sse("{\"content\":[{\"event_code\":42,\"event_status\":\"error\",\"event_message\":\"boom\"}]}"))));
        try (RunStream stream = client.runStream(query("hi"))) {
            RunException error = assertThrows(RunException.class, stream::collect);
            assertEquals("42", error.code());
            assertEquals("boom", error.serverMessage());
        }
    }

    /** Messages that arrive in the same chunk before an error event are delivered, then the error is raised. */
    @Test
    void deliversTheMessagesBeforeAnErrorEventOfTheSameChunk() {
        stub.handle(exchange -> StubServer.stream(exchange, List.of(
                sse("{\"answer\":\"part\",\"content\":[{\"event_status\":\"running\"}]}")
                        + sse("{\"content\":[{\"event_code\":42,\"event_status\":\"error\",\"event_message\":\"boom\"}]}"))));
        try (RunStream stream = client.runStream(query("hi"))) {
            assertEquals("part", stream.next().answer());
            RunException error = assertThrows(RunException.class, stream::hasNext);
            assertEquals("boom", error.serverMessage());
            assertFalse(stream.hasNext());
        }
    }

    /** A cut stream's last message without its blank line is delivered before StreamInterruptedException. */
    @Test
    void deliversTheLastMessageOfACutStream() {
        stub.handle(exchange -> StubServer.stream(exchange,
                List.of("data: {\"answer\":\"part\",\"content\":[{\"event_status\":\"running\"}]}")));
        try (RunStream stream = client.runStream(query("hi"))) {
            assertEquals("part", stream.next().answer());
            assertThrows(StreamInterruptedException.class, stream::hasNext);
        }
    }

    /** A JSON answer to a stream request (e.g. a gateway error with status 200) is read, not lost. */
    @Test
    void readsAJsonAnswerToAStreamRequest() {
        stub.handle(exchange -> StubServer.respond(exchange, 200, "{\"code\":\"Quota\",\"message\":\"no quota\"}"));
        try (RunStream stream = client.runStream(query("hi"))) {
            RunException error = assertThrows(RunException.class, stream::collect);
            assertEquals("Quota", error.code());
        }
    }

    /** A stream whose server goes silent raises RequestTimeoutException after the read timeout. */
    @Test
    void timesOutASilentStream() {
        stub.handle(exchange -> {
            StubServer.stream(exchange, List.of(sse("{\"answer\":\"a\",\"content\":[]}")));
            stub.stall();
        });
        AppClient impatient = AppClient.builder().baseUrl(stub.url()).token(TOKEN).appId("a")
                .readTimeout(Duration.ofMillis(300)).build();
        try (RunStream stream = impatient.runStream(query("hi"))) {
            assertThrows(RequestTimeoutException.class, stream::collect);
        }
    }

    /** A server that never answers raises RequestTimeoutException for a non-stream run. */
    @Test
    void timesOutASilentServer() {
        stub.handle(exchange -> stub.stall());
        AppClient impatient = AppClient.builder().baseUrl(stub.url()).token(TOKEN).appId("a")
                .readTimeout(Duration.ofMillis(300)).build();
        assertThrows(RequestTimeoutException.class, () -> impatient.run(query("hi")));
    }

    /** Nothing listening is a TransportException, not a hang. */
    @Test
    void reportsRefusedConnections() {
        String url = stub.url();
        stub.close();
        AppClient nowhere = AppClient.builder().baseUrl(url).token(TOKEN).appId("a").build();
        TransportException error = assertThrows(TransportException.class, nowhere::createConversation);
        assertFalse(error.getMessage().contains(TOKEN));
    }

    /** An upload sends a multipart form with the app, the conversation and the file. */
    @Test
    void uploadsAFileAsMultipart(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("报告.txt"), "hello", StandardCharsets.UTF_8);
        stub.handle(exchange -> StubServer.respond(exchange, 200, "{\"id\":\"file-1\",\"conversation_id\":\"c\"}"));
        assertEquals("file-1", client.uploadFile("conv", file));
        String body = stub.requests().get(0).body();
        assertTrue(body.contains("name=\"conversation_id\"\r\n\r\nconv\r\n"), body);
        assertTrue(body.contains("filename=\"报告.txt\""), body);
        assertTrue(body.contains("\r\n\r\nhello\r\n"), body);
    }

    /** An upload without a conversation id, file or URL is refused by name, before any request. */
    @Test
    void rejectsUploadsWithoutTheirInputs(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("a.txt"), "hello", StandardCharsets.UTF_8);
        InvalidRequestException noConversation =
                assertThrows(InvalidRequestException.class, () -> client.uploadFile(null, file));
        assertTrue(noConversation.getMessage().contains("conversationId"));
        assertThrows(InvalidRequestException.class, () -> client.uploadFile("conv", null));
        InvalidRequestException noUrl =
                assertThrows(InvalidRequestException.class, () -> client.uploadFileUrl("conv", null));
        assertTrue(noUrl.getMessage().contains("fileUrl"));
        assertTrue(stub.requests().isEmpty());
    }

    /** Settings are checked when the client is built, naming the bad one. */
    @Test
    void rejectsBadSettings() {
        assertThrows(InvalidRequestException.class,
                () -> AppClient.builder().baseUrl("ftp://x").token("t").appId("a").build());
        assertThrows(InvalidRequestException.class,
                () -> AppClient.builder().baseUrl(stub.url()).token("t").appId("").build());
        assertThrows(InvalidRequestException.class,
                () -> AppClient.builder().baseUrl(stub.url()).token(" ").appId("a").build());
        assertThrows(InvalidRequestException.class,
                () -> AppClient.builder().baseUrl(stub.url()).token("t").appId("a").readTimeout(Duration.ZERO));
    }

    /** A token with a control or non-ASCII character is an InvalidRequestException that does not repeat it (it was an IllegalArgumentException quoting the token). */
    @Test
    void rejectsAnUnsendableTokenWithoutRepeatingIt() {
        for (String token : List.of("abc\u0000secret", "abc\u007fsecret", "密钥secret", "abc\nsecret")) {
            InvalidRequestException error = assertThrows(InvalidRequestException.class,
                    () -> AppClient.builder().baseUrl(stub.url()).token(token).appId("a").build());
            assertFalse(error.getMessage().contains("secret"), error.getMessage());
        }
    }

    /** Spaces around a token are dropped, as with APPBUILDER_TOKEN. */
    @Test
    void trimsTheToken() {
        stub.handle(exchange -> StubServer.respond(exchange, 200, "{\"conversation_id\":\"c\"}"));
        AppClient.builder().baseUrl(stub.url()).token("  abc \t").appId("a").build().createConversation();
        assertEquals("Bearer abc", stub.requests().get(0).authorization());
    }

    /** A token already starting with "Bearer" is sent as is. */
    @Test
    void keepsAnExplicitBearerPrefix() {
        stub.handle(exchange -> StubServer.respond(exchange, 200, "{\"conversation_id\":\"c\"}"));
        AppClient bearer = AppClient.builder().baseUrl(stub.url()).token("Bearer abc").appId("a").build();
        bearer.createConversation();
        assertEquals("Bearer abc", stub.requests().get(0).authorization());
    }

    /** A non-stream run answers the whole RunAnswer with its events. */
    @Test
    void runReturnsTheWholeAnswer() {
        stub.handle(exchange -> StubServer.respond(exchange, 200, ResponsesTest.TOOL_CALL_BODY));
        RunAnswer answer = client.run(query("weather"));
        assertEquals("get_current_weather", answer.toolCalls().get(0).name());
        JsonObject sent = JsonParser.parseString(stub.requests().get(0).body()).getAsJsonObject();
        assertFalse(sent.get("stream").getAsBoolean());
    }

    /** Every run carries an Idempotency-Key, the same one each time the same RunRequest is sent, so a repeat is deduplicated. */
    @Test
    void sendsTheRequestsIdempotencyKeyOnEverySend() {
        stub.handle(exchange -> StubServer.respond(exchange, 503, "{\"code\":\"Unavailable\",\"message\":\"busy\"}"));
        RunRequest outputs = RunRequest.builder("conv").toolOutput("call-1", "25 degrees").build();
        assertThrows(ServerException.class, () -> client.run(outputs));
        assertThrows(ServerException.class, () -> client.run(outputs));
        assertThrows(ServerException.class, () -> client.run(query("another run")));
        String first = stub.requests().get(0).headers().getFirst("Idempotency-Key");
        assertFalse(first == null || first.isEmpty());
        assertEquals(outputs.idempotencyKey(), first);
        assertEquals(first, stub.requests().get(1).headers().getFirst("Idempotency-Key"));
        assertFalse(first.equals(stub.requests().get(2).headers().getFirst("Idempotency-Key")));
    }

    /** Feedback posts the official client's body (type as its wire value, flag and reason) and returns the request id. */
    @Test
    void feedbackPostsTheRatingAndReturnsTheRequestId() {
        stub.handle(exchange -> StubServer.respond(exchange, 200, "{\"request_id\":\"req-fb\"}"));
        assertEquals("req-fb", client.feedback("conv", "msg-1", FeedbackType.DOWNVOTE, List.of("答非所问"), "测试"));
        assertEquals("req-fb", client.feedback("conv", "msg-1", FeedbackType.UPVOTE));
        assertEquals("/v2/app/conversation/feedback", stub.requests().get(0).path());
        assertEquals(JsonParser.parseString("{\"app_id\":\"stub-app\",\"conversation_id\":\"conv\","
                + "\"message_id\":\"msg-1\",\"type\":\"downvote\",\"flag\":[\"答非所问\"],\"reason\":\"测试\"}"),
                JsonParser.parseString(stub.requests().get(0).body()));
        assertEquals(JsonParser.parseString("{\"app_id\":\"stub-app\",\"conversation_id\":\"conv\","
                + "\"message_id\":\"msg-1\",\"type\":\"upvote\"}"),
                JsonParser.parseString(stub.requests().get(1).body()));
        assertThrows(InvalidRequestException.class, () -> client.feedback("conv", "", FeedbackType.CANCEL));
    }

    /** close() from another thread wakes a reader blocked on a silent stream, whose iteration then ends without an error. */
    @Test
    void closeFromAnotherThreadEndsABlockedRead() throws Exception {
        stub.handle(exchange -> {
            StubServer.stream(exchange, List.of(sse("{\"answer\":\"a\",\"content\":[]}")));
            stub.stall();
        });
        AppClient patient = AppClient.builder().baseUrl(stub.url()).token(TOKEN).appId("a")
                .readTimeout(Duration.ofSeconds(60)).build();
        java.util.concurrent.ExecutorService reader = java.util.concurrent.Executors.newSingleThreadExecutor();
        RunStream stream = patient.runStream(query("hi"));
        try {
            assertEquals("a", stream.next().answer());
            java.util.concurrent.atomic.AtomicReference<Thread> readingThread =
                    new java.util.concurrent.atomic.AtomicReference<>();
            java.util.concurrent.Future<Boolean> more = reader.submit(() -> {
                readingThread.set(Thread.currentThread());
                return stream.hasNext();
            });
            while (readingThread.get() == null || readingThread.get().getState() != Thread.State.TIMED_WAITING) {
                Thread.onSpinWait(); // until the reader waits for the next chunk
            }
            stream.close();
            assertFalse(more.get(10, java.util.concurrent.TimeUnit.SECONDS));
        } finally {
            reader.shutdownNow();
            stream.close();
        }
    }
}
