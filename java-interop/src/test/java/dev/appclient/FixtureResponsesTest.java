package dev.appclient;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The recorded response bodies of {@code tests/fixtures/official-sdk/responses/}, served
 * byte for byte by a loopback stub and read by the client.
 *
 * <p>Needs {@code fixturesDir} (that folder; the bridge passes it); skipped without it.
 */
class FixtureResponsesTest {
    private StubServer stub;
    private AppClient client;

    @BeforeEach
    void start() throws IOException {
        stub = new StubServer();
        client = stub.client("fixture-token");
    }

    @AfterEach
    void stop() {
        stub.close();
    }

    private static Path fixture(String name) {
        var dir = TestSettings.get("fixturesDir");
        assumeTrue(dir.isPresent(), "no fixtures folder given (appclient.test.fixturesDir)");
        Path file = Path.of(dir.get()).resolve(name);
        assertTrue(Files.isRegularFile(file), "missing fixture " + file);
        return file;
    }

    private void serve(String name) throws IOException {
        byte[] body = Files.readAllBytes(fixture(name));
        String type = name.endsWith(".sse") ? "text/event-stream" : "application/json";
        stub.handle(exchange -> {
            exchange.getResponseHeaders().set("Content-Type", type);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
        });
    }

    private static RunRequest query() {
        return RunRequest.builder("conv").query("今天北京的天气怎么样？").build();
    }

    /** Both create-conversation fixtures give their conversation id. */
    @Test
    void createConversationFixtures() throws IOException {
        serve("create_conversation_realistic.json");
        assertEquals("9a3b1f2e-2222-4c7e-9d7e-000000000002", client.createConversation());
        serve("create_conversation_minimal.json");
        assertEquals("conv-xyz", client.createConversation());
    }

    /** The non-stream tool-call fixtures give the call with its name and arguments. */
    @Test
    void nonStreamToolCallFixtures() throws IOException {
        for (String name : List.of("run_nonstream_tool_call_realistic.json", "run_nonstream_tool_call_minimal.json")) {
            serve(name);
            ToolCall call = client.run(query()).toolCalls().get(0);
            assertEquals("get_current_weather", call.name(), name);
            assertEquals(Map.of("location", "北京", "unit", "celsius"), call.function().argumentsAsMap(), name);
        }
    }

    /** The non-stream answer fixtures give the answer text. */
    @Test
    void nonStreamAnswerFixtures() throws IOException {
        for (String name : List.of("run_nonstream_final_realistic.json", "run_nonstream_final_minimal.json")) {
            serve(name);
            assertEquals("北京今天25度，晴。", client.run(query()).answer(), name);
        }
    }

    /** The realistic answer stream joins to the whole answer and ends with success. */
    @Test
    void realisticAnswerStream() throws IOException {
        serve("run_stream_final_realistic.sse");
        try (RunStream stream = client.runStream(query())) {
            RunAnswer answer = stream.collect();
            assertEquals("北京今天25度，晴。", answer.answer());
            assertEquals("success", answer.lastEvent().orElseThrow().eventStatus());
            assertEquals(6, stream.messageCount());
        }
    }

    /** Both tool-call streams end with the call (the realistic one in its second message). */
    @Test
    void toolCallStreams() throws IOException {
        for (String name : List.of("run_stream_tool_call_realistic.sse", "run_stream_tool_call_minimal.sse")) {
            serve(name);
            try (RunStream stream = client.runStream(query())) {
                stream.collect();
                assertEquals("get_current_weather", stream.toolCalls().get(0).name(), name);
            }
        }
    }

    /** The minimal answer stream has no final event at all, so it reads as interrupted. */
    @Test
    void minimalAnswerStreamHasNoFinalEvent() throws IOException {
        serve("run_stream_final_minimal.sse");
        try (RunStream stream = client.runStream(query())) {
            assertThrows(StreamInterruptedException.class, stream::collect);
            assertEquals(2, stream.messageCount());
        }
    }

    /** Both upload fixtures give the file id. */
    @Test
    void uploadFixtures() throws IOException {
        Path file = Files.writeString(Files.createTempFile("fixture", ".txt"), "x", StandardCharsets.UTF_8);
        try {
            for (String name : List.of("upload_file_realistic.json", "upload_file_minimal.json")) {
                serve(name);
                assertEquals("file-1", client.uploadFile("conv", file), name);
            }
        } finally {
            Files.delete(file);
        }
    }
}
