package dev.appclient;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Decoding answer bodies into models and typed errors, on plain strings. */
class ResponsesTest {
    /** The realistic tool-call answer of the official SDK fixtures (one line). */
    static final String TOOL_CALL_BODY = "{\"request_id\":\"r1\",\"date\":\"2024-09-23T08:05:00Z\","
            + "\"answer\":\"\",\"conversation_id\":\"c1\",\"message_id\":\"m1\",\"is_completion\":false,"
            + "\"content\":[{\"event_code\":0,\"event_message\":\"\",\"event_type\":\"function_call\","
            + "\"event_id\":\"e1\",\"event_status\":\"done\",\"content_type\":\"function_call\","
            + "\"outputs\":{\"text\":{\"arguments\":{\"location\":\"北京\",\"unit\":\"celsius\"},"
            + "\"component_code\":\"get_current_weather\",\"component_name\":\"get_current_weather\"}},"
            + "\"usage\":{\"prompt_tokens\":513,\"completion_tokens\":37,\"total_tokens\":550,"
            + "\"name\":\"ERNIE-4.0-Turbo-8K\"}},"
            + "{\"event_code\":0,\"event_message\":\"\",\"event_type\":\"Interrupt\",\"event_id\":\"e2\","
            + "\"event_status\":\"interrupt\",\"content_type\":\"contexts\",\"outputs\":{\"text\":{"
            + "\"function_call\":{\"name\":\"get_current_weather\",\"arguments\":{\"location\":\"北京\"},"
            + "\"tool_call_id\":\"call-9\"},\"used_tool\":[]}},"
            + "\"tool_calls\":[{\"id\":\"call-9\",\"type\":\"function\",\"function\":{"
            + "\"name\":\"get_current_weather\",\"arguments\":{\"location\":\"北京\",\"unit\":\"celsius\"}}}],"
            + "\"future_field\":[1,2]}],\"another_future_field\":true}";

    /** A tool call keeps its id, type, function name and arguments (the official Java SDK drops the last two). */
    @Test
    void readsToolCallsWithNameAndArguments() {
        RunAnswer answer = Responses.runAnswer(TOOL_CALL_BODY, "header-id");
        ToolCall call = answer.toolCalls().get(0);
        assertEquals("call-9", call.id());
        assertEquals("function", call.type());
        assertEquals("get_current_weather", call.name());
        assertEquals(Map.of("location", "北京", "unit", "celsius"), call.function().argumentsAsMap());
        assertEquals("北京", call.function().argument("location").orElseThrow());
    }

    /** Every field of the answer and its events is read, unknown fields ignored. */
    @Test
    void readsEveryAnswerField() {
        RunAnswer answer = Responses.runAnswer(TOOL_CALL_BODY, "header-id");
        assertEquals("r1", answer.requestId());
        assertEquals("c1", answer.conversationId());
        assertEquals("m1", answer.messageId());
        assertEquals(2, answer.events().size());
        Event first = answer.events().get(0);
        assertEquals("function_call", first.contentType());
        assertEquals(new Usage(513, 37, 550, "ERNIE-4.0-Turbo-8K"), first.usage());
        Event last = answer.lastEvent().orElseThrow();
        assertEquals("interrupt", last.eventStatus());
        assertTrue(last.isTerminal());
        assertTrue(answer.requiresToolOutputs());
    }

    /** OpenAI-style arguments given as a JSON string are parsed into an object. */
    @Test
    void parsesArgumentsSentAsText() {
        String body = "{\"content\":[{\"tool_calls\":[{\"id\":\"c\",\"function\":{\"name\":\"f\","
                + "\"arguments\":\"{\\\"city\\\": \\\"Paris\\\"}\"}}]}]}";
        FunctionCall function = Responses.runAnswer(body, "").toolCalls().get(0).function();
        assertEquals("Paris", function.argument("city").orElseThrow());
        assertEquals(null, function.argumentsError());
    }

    /** Arguments that are not a JSON object are reported, not thrown. */
    @Test
    void keepsUnreadableArgumentsAsAnError() {
        String body = "{\"content\":[{\"tool_calls\":[{\"id\":\"c\",\"function\":{\"name\":\"f\","
                + "\"arguments\":\"not json\"}}]}]}";
        FunctionCall function = Responses.runAnswer(body, "").toolCalls().get(0).function();
        assertEquals(0, function.arguments().size());
        assertTrue(function.argumentsError().contains("not json"));
    }

    /** Nulls and missing fields read as empty values, so minimal bodies decode. */
    @Test
    void toleratesNullsAndMissingFields() {
        RunAnswer answer = Responses.runAnswer(
                "{\"answer\":null,\"content\":[{\"event_code\":null,\"outputs\":null,\"tool_calls\":null}]}", "");
        assertEquals("", answer.answer());
        Event event = answer.events().get(0);
        assertEquals(0, event.eventCode());
        assertEquals(0, event.outputs().size());
        assertEquals(List.of(), event.toolCalls());
        assertEquals(null, event.usage());
    }

    /** An error event raises RunException with the event's code and message. */
    @Test
    void raisesOnErrorEvent() {
        String body = "{\"request_id\":\"r7\",\"content\":[{\"event_code\":500,\"event_status\":\"error\","
                + "\"event_message\":\"component failed\"}]}";
        RunException error = assertThrows(RunException.class, () -> Responses.runAnswer(body, ""));
        assertEquals("500", error.code());
        assertEquals("component failed", error.serverMessage());
        assertEquals("r7", error.requestId());
    }

    /** A 200 body with a top-level code and message is an error, not an empty answer. */
    @Test
    void raisesOnTopLevelErrorWithStatus200() {
        String body = "{\"request_id\":\"r8\",\"code\":\"InvalidApp\",\"message\":\"app not published\"}";
        RunException error = assertThrows(RunException.class, () -> Responses.runAnswer(body, ""));
        assertEquals("InvalidApp", error.code());
        assertEquals("r8", error.requestId());
    }

    /** A body that is not JSON is a decode error that quotes its start. */
    @Test
    void raisesDecodeErrorForNonJson() {
        ResponseDecodeException error = assertThrows(
                ResponseDecodeException.class, () -> Responses.runAnswer("<html>oops</html>", "id"));
        assertTrue(error.getMessage().contains("<html>"));
    }

    /** Each HTTP status maps to its error class, carrying code, message and request id. */
    @Test
    void mapsStatusesToTypedErrors() {
        String body = "{\"request_id\":\"body-id\",\"code\":\"C\",\"message\":\"M\"}";
        assertInstanceOf(BadRequestException.class, Responses.statusError(400, body, "", -1));
        assertInstanceOf(AuthenticationException.class, Responses.statusError(401, body, "", -1));
        assertInstanceOf(PermissionDeniedException.class, Responses.statusError(403, body, "", -1));
        assertInstanceOf(NotFoundException.class, Responses.statusError(404, body, "", -1));
        assertInstanceOf(ConflictException.class, Responses.statusError(409, body, "", -1));
        assertInstanceOf(RateLimitException.class, Responses.statusError(429, body, "", -1));
        assertInstanceOf(ServerException.class, Responses.statusError(503, body, "", -1));
        ApiStatusException other = Responses.statusError(418, body, "header-id", -1);
        assertEquals(ApiStatusException.class, other.getClass());
        assertEquals(418, other.status());
        assertEquals("C", other.code());
        assertEquals("M", other.serverMessage());
        assertEquals("header-id", other.requestId());
    }

    /** A non-JSON error body still gives a typed error whose message quotes it. */
    @Test
    void mapsNonJsonErrorBodies() {
        ApiStatusException error = Responses.statusError(502, "Bad gateway", "", 3);
        assertInstanceOf(ServerException.class, error);
        assertEquals("Bad gateway", error.serverMessage());
        assertEquals(3, ((ServerException) error).retryAfterSeconds());
    }

    /** Retry-After in its HTTP-date form gives the seconds until that date (it read as unknown, -1). */
    @Test
    void readsRetryAfterAsHttpDate() {
        java.time.Instant now = java.time.Instant.parse("2026-11-21T10:00:00Z");
        assertEquals(30, Responses.retryAfterSeconds("Sat, 21 Nov 2026 10:00:30 GMT", now));
        assertEquals(0, Responses.retryAfterSeconds("Sat, 21 Nov 2026 09:59:00 GMT", now));
        assertEquals(7, Responses.retryAfterSeconds(" 7 ", now));
        assertEquals(-1, Responses.retryAfterSeconds("soon", now));
        assertEquals(-1, Responses.retryAfterSeconds("", now));
    }

    /** An explicit success code (0) is not an error whatever its message says; a body without a code is not either. */
    @Test
    void explicitSuccessCodeIsNotAnError() {
        assertEquals("c", Responses.requiredString(
                "{\"request_id\":\"r\",\"conversation_id\":\"c\",\"code\":0,\"message\":\"success\"}",
                "conversation_id", "h"));
        assertEquals("c", Responses.requiredString(
                "{\"conversation_id\":\"c\",\"message\":\"created\"}", "conversation_id", "h"));
    }

    /** A non-zero top-level code is a RunException even when the body also has content, as in the Python client. */
    @Test
    void topLevelErrorCodeBesideContentIsARunException() {
        RunException error = assertThrows(RunException.class, () -> Responses.runAnswer(
                "{\"code\":\"QuotaExceeded\",\"message\":\"no quota\",\"content\":[]}", "h"));
        assertEquals("QuotaExceeded", error.code());
        assertEquals("no quota", error.serverMessage());
    }

    /** A long secret is masked everywhere; a short one only as a word of its own. */
    @Test
    void redactsSecrets() {
        assertEquals("a***b ***", Responses.redact("asecret-123b secret-123", "secret-123"));
        assertEquals("abcdef ***.", Responses.redact("abcdef abc.", "abc"));
        assertEquals("nothing here", Responses.redact("nothing here", ""));
    }
}
