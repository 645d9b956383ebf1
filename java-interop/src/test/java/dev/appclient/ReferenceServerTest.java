package dev.appclient;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The ToolCall round trip against a live server speaking the protocol: appclient's reference
 * server (started by {@code tests/java_interop/test_java_bridge.py}) or any compatible app.
 *
 * <p>Needs {@code baseUrl}, {@code token} and {@code appId} (see {@link TestSettings}); skipped
 * without a base URL. The fault tests need {@code failingBaseUrl} (a server whose next request
 * fails with 503), {@code cutStreamBaseUrl} (a server whose next stream is cut after one
 * message) and {@code hangingBaseUrl} (a server that holds its next request unanswered); all
 * servers share the token and app id.
 */
class ReferenceServerTest {
    private static final String WEATHER_TOOL = "{\"type\":\"function\",\"function\":{"
            + "\"name\":\"get_current_weather\","
            + "\"description\":\"仅支持中国城市的天气查询，参数location为中国城市名称 / current weather of a city\","
            + "\"parameters\":{\"type\":\"object\",\"properties\":{"
            + "\"location\":{\"type\":\"string\",\"description\":\"城市名，举例：北京 (city name)\"},"
            + "\"unit\":{\"type\":\"string\",\"enum\":[\"celsius\",\"fahrenheit\"]}},"
            + "\"required\":[\"location\",\"unit\"]}}}";

    private static AppClient client() {
        return clientFor(TestSettings.get("baseUrl"), token());
    }

    private static String token() {
        return TestSettings.get("token").orElse("");
    }

    private static AppClient clientFor(java.util.Optional<String> baseUrl, String token) {
        assumeTrue(baseUrl.isPresent(), "no server given (appclient.test.baseUrl / APPCLIENT_TEST_BASE_URL)");
        return AppClient.builder()
                .baseUrl(baseUrl.get())
                .token(token)
                .appId(TestSettings.get("appId").orElse("appclient-demo-app"))
                .readTimeout(Duration.ofSeconds(20))
                .build();
    }

    private static Tool weatherTool() {
        return Tool.fromJson(JsonParser.parseString(WEATHER_TOOL).getAsJsonObject());
    }

    /** What the local weather tool answers for a call. */
    private static String localWeather(ToolCall call) {
        String city = call.function().argument("location").orElse("?");
        return city + " 35 " + call.function().argument("unit").orElse("celsius");
    }

    /**
     * A run whose body goes out in chunks (Transfer-Encoding: chunked, no Content-Length), as
     * the official Go SDK and any client streaming a body of unknown length send it.
     */
    @Test
    void runWithAChunkedBody() throws Exception {
        java.util.Optional<String> baseUrl = TestSettings.get("baseUrl");
        AppClient client = client();
        String conversation = client.createConversation();
        String body = "{\"app_id\":\"" + TestSettings.get("appId").orElse("appclient-demo-app")
                + "\",\"conversation_id\":\"" + conversation + "\",\"query\":\"你好\",\"stream\":false}";
        byte[] bytes = body.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        java.net.http.HttpRequest request = java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create(baseUrl.orElseThrow() + "/v2/app/conversation/runs"))
                .header("Authorization", "Bearer " + token())
                .header("Content-Type", "application/json")
                // An InputStream has no known length, so the JDK sends the body in chunks.
                .POST(java.net.http.HttpRequest.BodyPublishers.ofInputStream(
                        () -> new java.io.ByteArrayInputStream(bytes)))
                .build();
        java.net.http.HttpResponse<String> response = java.net.http.HttpClient.newBuilder()
                .version(java.net.http.HttpClient.Version.HTTP_1_1)
                .build()
                .send(request, java.net.http.HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
        JsonObject answer = JsonParser.parseString(response.body()).getAsJsonObject();
        assertEquals(conversation, answer.get("conversation_id").getAsString());
        assertFalse(answer.get("answer").getAsString().isEmpty(), response.body());
    }

    /** Non-stream round trip: the tool call names the tool with its arguments, the outputs give the answer. */
    @Test
    void roundTripNonStream() {
        AppClient client = client();
        String conversation = client.createConversation();
        RunAnswer first = client.run(RunRequest.builder(conversation)
                .query("今天北京的天气怎么样？")
                .tools(List.of(weatherTool()))
                .endUserId("java-interop-test")
                .build());
        assertEquals(1, first.toolCalls().size(), "one tool call expected: " + first);
        ToolCall call = first.toolCalls().get(0);
        assertEquals("get_current_weather", call.name());
        assertEquals("北京", call.function().argument("location").orElseThrow());
        assertEquals("interrupt", first.lastEvent().orElseThrow().eventStatus());
        assertFalse(call.id().isEmpty());

        RunAnswer second = client.run(RunRequest.builder(conversation)
                .toolOutputs(List.of(call.output(localWeather(call))))
                .build());
        assertTrue(second.toolCalls().isEmpty());
        assertEquals("success", second.lastEvent().orElseThrow().eventStatus());
        assertTrue(second.answer().contains("35"), "the answer uses the tool output: " + second.answer());
        assertEquals(conversation, second.conversationId());
    }

    /** Sending the same tool-output RunRequest again gets the first answer back, not a second run (Idempotency-Key). */
    @Test
    void repeatedToolOutputRunIsDeduplicated() {
        AppClient client = client();
        String conversation = client.createConversation();
        RunAnswer first = client.run(RunRequest.builder(conversation)
                .query("今天北京的天气怎么样？")
                .tools(List.of(weatherTool()))
                .build());
        ToolCall call = first.toolCalls().get(0);
        RunRequest outputs = RunRequest.builder(conversation)
                .toolOutputs(List.of(call.output(localWeather(call))))
                .build();
        RunAnswer answer = client.run(outputs);
        RunAnswer repeat = client.run(outputs); // without the key: a 400 for the spent tool call id
        assertEquals(answer.messageId(), repeat.messageId());
        assertEquals(answer.answer(), repeat.answer());
    }

    /** Feedback on a real answer is acknowledged; on an unknown message it is a 400 naming message_id. */
    @Test
    void feedbackOnAnAnswer() {
        AppClient client = client();
        String conversation = client.createConversation();
        RunAnswer answer = client.run(RunRequest.builder(conversation).query("你好").build());
        assertFalse(client.feedback(conversation, answer.messageId(), FeedbackType.UPVOTE).isEmpty());
        BadRequestException unknown = assertThrows(BadRequestException.class,
                () -> client.feedback(conversation, "no-such-message", FeedbackType.DOWNVOTE, List.of("答非所问"), "测试"));
        assertTrue(unknown.serverMessage().contains("message_id"), unknown.getMessage());
    }

    /** Stream round trip: the tool round arrives as one message with the interrupt last, the answer as several deltas. */
    @Test
    void roundTripStream() {
        AppClient client = client();
        String conversation = client.createConversation();
        List<ToolCall> calls;
        try (RunStream stream = client.runStream(RunRequest.builder(conversation)
                .query("今天北京的天气怎么样？")
                .tools(List.of(weatherTool()))
                .build())) {
            for (RunAnswer message : stream) {
                // The seed's Java example reads every message's last event this way.
                Event last = message.lastEvent().orElseThrow();
                assertFalse(last.toolCalls().isEmpty(), "every message of a tool round ends with the calls");
            }
            calls = stream.toolCalls();
        }
        assertEquals("get_current_weather", calls.get(0).name());

        RunAnswer answer;
        int messages;
        try (RunStream stream = client.runStream(RunRequest.builder(conversation)
                .toolOutput(calls.get(0).id(), localWeather(calls.get(0)))
                .build())) {
            answer = stream.collect();
            messages = stream.messageCount();
        }
        assertTrue(messages > 1, "an answer streams as several messages, got " + messages);
        assertTrue(answer.isCompletion());
        assertEquals("success", answer.lastEvent().orElseThrow().eventStatus());
        assertTrue(answer.answer().contains("35"), answer.answer());
    }

    /** Two cities in one query give two parallel calls, answered together in one run. */
    @Test
    void parallelToolCalls() {
        AppClient client = client();
        String conversation = client.createConversation();
        RunAnswer first = client.run(RunRequest.builder(conversation)
                .query("What's the weather like today in celsius in Tokyo and Paris.")
                .tools(List.of(weatherTool()))
                .build());
        List<ToolCall> calls = first.toolCalls();
        assertEquals(2, calls.size(), "two calls expected: " + calls);
        Set<String> cities = calls.stream()
                .map(call -> call.function().argument("location").orElse(""))
                .collect(Collectors.toSet());
        assertEquals(Set.of("Tokyo", "Paris"), cities);
        calls.forEach(call -> assertEquals("celsius", call.function().argument("unit").orElse("")));
        assertEquals(2, calls.stream().map(ToolCall::id).distinct().count());

        List<ToolOutput> outputs = new ArrayList<>();
        calls.forEach(call -> outputs.add(call.output(localWeather(call))));
        RunAnswer answer = client.run(RunRequest.builder(conversation).toolOutputs(outputs).build());
        assertTrue(answer.answer().contains("Tokyo") && answer.answer().contains("Paris"), answer.answer());
    }

    /** A forced tool choice calls the named local tool with exactly the given input. */
    @Test
    void forcedToolChoice() {
        AppClient client = client();
        String conversation = client.createConversation();
        RunAnswer first = client.run(RunRequest.builder(conversation)
                .query("hello")
                .tools(List.of(weatherTool()))
                .toolChoice(ToolChoice.function("get_current_weather", Map.of("location", "上海", "unit", "fahrenheit")))
                .build());
        ToolCall call = first.toolCalls().get(0);
        assertEquals("get_current_weather", call.name());
        JsonObject expected = JsonParser.parseString("{\"location\":\"上海\",\"unit\":\"fahrenheit\"}").getAsJsonObject();
        assertEquals(expected, call.arguments());
    }

    /** An explicit auto tool choice (sent as {"type": "auto"}, no function) lets the agent decide. */
    @Test
    void autoToolChoiceLetsTheAgentDecide() {
        AppClient client = client();
        String conversation = client.createConversation();
        RunAnswer first = client.run(RunRequest.builder(conversation)
                .query("今天北京的天气怎么样？")
                .tools(List.of(weatherTool()))
                .toolChoice(ToolChoice.auto())
                .build());
        assertEquals("get_current_weather", first.toolCalls().get(0).name());
    }

    /** Forcing a cloud component runs it inside the run: the answer comes without local calls. */
    @Test
    void forcedCloudComponentAnswersInTheRun() {
        AppClient client = client();
        String conversation = client.createConversation();
        // As in the seed's Go example: a forced tool carries its input, so the query is empty.
        RunAnswer answer = client.run(RunRequest.builder(conversation)
                .query("")
                .toolChoice(ToolChoice.function("WeatherQuery", Map.of("city", "北京")))
                .endUserId("java-toolchoice-demo")
                .build());
        assertTrue(answer.toolCalls().isEmpty(), answer.toString());
        assertEquals("success", answer.lastEvent().orElseThrow().eventStatus());
        assertTrue(answer.answer().contains("北京"), answer.answer());
    }

    /** A wrong token is a 401 AuthenticationException carrying the server's request id. */
    @Test
    void wrongTokenIsAuthenticationException() {
        AppClient intruder = clientFor(TestSettings.get("baseUrl"), "not-the-token");
        AuthenticationException error = assertThrows(AuthenticationException.class, intruder::createConversation);
        assertEquals(401, error.status());
        assertFalse(error.requestId().isEmpty());
        assertFalse(error.getMessage().contains(token()));
    }

    /** An unknown tool_call_id is a 400 BadRequestException naming it. */
    @Test
    void unknownToolCallIdIsBadRequest() {
        AppClient client = client();
        String conversation = client.createConversation();
        BadRequestException error = assertThrows(BadRequestException.class,
                () -> client.run(RunRequest.builder(conversation).toolOutput("no-such-call", "x").build()));
        assertTrue(error.getMessage().contains("no-such-call"), error.getMessage());
    }

    /** A server failing with 503 gives ServerException at once: this client does not retry. */
    @Test
    void failingServerGivesServerException() {
        AppClient failing = clientFor(TestSettings.get("failingBaseUrl"), token());
        ServerException error = assertThrows(ServerException.class, failing::createConversation);
        assertEquals(503, error.status());
        assertFalse(error.requestId().isEmpty());
    }

    /** A stream the server cuts after one message raises StreamInterruptedException, not a short answer. */
    @Test
    void cutStreamGivesStreamInterruptedException() {
        AppClient cutting = clientFor(TestSettings.get("cutStreamBaseUrl"), token());
        String conversation = cutting.createConversation();
        try (RunStream stream = cutting.runStream(RunRequest.builder(conversation)
                .query("Hello! Please tell me something nice about the sea.")
                .build())) {
            StreamInterruptedException error = assertThrows(StreamInterruptedException.class, stream::collect);
            assertEquals(1, stream.messageCount(), error.getMessage());
        }
    }

    /** A server holding the request past the read timeout gives RequestTimeoutException. */
    @Test
    void hangingServerGivesRequestTimeoutException() {
        var baseUrl = TestSettings.get("hangingBaseUrl");
        assumeTrue(baseUrl.isPresent(), "no hanging server given");
        AppClient impatient = AppClient.builder()
                .baseUrl(baseUrl.get())
                .token(token())
                .appId(TestSettings.get("appId").orElse("appclient-demo-app"))
                .readTimeout(Duration.ofMillis(500))
                .build();
        assertThrows(RequestTimeoutException.class, impatient::createConversation);
    }
}
