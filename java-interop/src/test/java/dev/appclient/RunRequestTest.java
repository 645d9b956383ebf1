package dev.appclient;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The JSON body a run sends. */
class RunRequestTest {
    private static Tool weather() {
        JsonObject parameters = JsonParser.parseString(
                "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]}")
                .getAsJsonObject();
        return Tool.function("get_weather", "Weather of a city", parameters);
    }

    /** A first run sends query, tools and stream; unset options are left out. */
    @Test
    void firstRunBody() {
        RunRequest request = RunRequest.builder("conv").query("天气?").tools(List.of(weather())).build();
        JsonObject body = request.toJson("app", true);
        assertEquals("app", body.get("app_id").getAsString());
        assertEquals("conv", body.get("conversation_id").getAsString());
        assertEquals("天气?", body.get("query").getAsString());
        assertEquals(true, body.get("stream").getAsBoolean());
        assertEquals("get_weather",
                body.getAsJsonArray("tools").get(0).getAsJsonObject()
                        .getAsJsonObject("function").get("name").getAsString());
        assertFalse(body.has("tool_outputs") || body.has("tool_choice") || body.has("end_user_id"));
    }

    /** A tool-output run sends all outputs, an empty query, and no tools. */
    @Test
    void toolOutputRunBody() {
        RunRequest request = RunRequest.builder("conv")
                .toolOutput("call-1", "25 degrees")
                .toolOutputs(List.of(new ToolOutput("call-2", "{\"t\": 18}")))
                .build();
        JsonObject body = request.toJson("app", false);
        assertEquals("", body.get("query").getAsString());
        assertEquals(
                JsonParser.parseString("[{\"tool_call_id\":\"call-1\",\"output\":\"25 degrees\"},"
                        + "{\"tool_call_id\":\"call-2\",\"output\":\"{\\\"t\\\": 18}\"}]"),
                body.get("tool_outputs"));
        assertFalse(body.has("tools"));
    }

    /** Tool choice, end user and file ids take the protocol's shape. */
    @Test
    void optionsBody() {
        RunRequest request = RunRequest.builder("conv")
                .toolChoice(ToolChoice.function("get_weather", Map.of("city", "Paris")))
                .endUserId("user-1")
                .fileIds(List.of("file-1"))
                .build();
        JsonObject body = request.toJson("app", false);
        assertEquals(
                JsonParser.parseString("{\"type\":\"function\",\"function\":{\"name\":\"get_weather\","
                        + "\"input\":{\"city\":\"Paris\"}}}"),
                body.get("tool_choice"));
        assertEquals("user-1", body.get("end_user_id").getAsString());
        assertEquals("file-1", body.getAsJsonArray("file_ids").get(0).getAsString());
        assertEquals(JsonParser.parseString("{\"type\":\"auto\"}"), ToolChoice.auto().toJson());
    }

    /** action, parameters, custom_metadata and mcp_authorization are sent as given, like the Python client sends them. */
    @Test
    void passesTheOpaqueObjectsThrough() {
        JsonObject action = JsonParser.parseString("{\"action_type\":\"resume\",\"parameters\":"
                + "{\"interrupt_event\":{\"id\":\"e1\",\"type\":\"chat\"}}}").getAsJsonObject();
        JsonObject metadata = JsonParser.parseString("{\"override_role_instruction\":\"be brief\"}").getAsJsonObject();
        JsonObject auth = JsonParser.parseString("{\"server_url\":\"http://mcp\",\"token\":\"t\"}").getAsJsonObject();
        RunRequest request = RunRequest.builder("conv")
                .action(action)
                .parameters(Map.of("city", "Paris"))
                .customMetadata(metadata)
                .mcpAuthorization(List.of(auth))
                .build();
        action.addProperty("action_type", "changed later");
        JsonObject body = request.toJson("app", false);
        assertEquals("resume", body.getAsJsonObject("action").get("action_type").getAsString());
        assertEquals(JsonParser.parseString("{\"city\":\"Paris\"}"), body.get("parameters"));
        assertEquals(metadata, body.get("custom_metadata"));
        assertEquals(auth, body.getAsJsonArray("mcp_authorization").get(0));
        JsonObject plain = RunRequest.builder("conv").build().toJson("app", false);
        assertFalse(plain.has("action") || plain.has("parameters") || plain.has("custom_metadata")
                || plain.has("mcp_authorization"));
    }

    /** Bad arguments fail before anything is sent, naming what was wrong. */
    @Test
    void rejectsBadArguments() {
        assertThrows(InvalidRequestException.class, () -> RunRequest.builder(""));
        assertThrows(InvalidRequestException.class, () -> new ToolOutput("", "x"));
        assertThrows(InvalidRequestException.class, () -> new ToolOutput("id", null));
        assertThrows(InvalidRequestException.class, () -> ToolChoice.function("", Map.of()));
        assertThrows(InvalidRequestException.class,
                () -> RunRequest.builder("c").tools(List.of(weather(), weather())).build());
    }

    /** An idempotency key given to the builder is kept; a bad one is refused before anything is sent. */
    @Test
    void idempotencyKeyIsKeptOrRefused() {
        assertEquals("order-7-round-2",
                RunRequest.builder("conv").idempotencyKey("order-7-round-2").build().idempotencyKey());
        assertThrows(InvalidRequestException.class,
                () -> RunRequest.builder("conv").idempotencyKey("two\nlines").build());
        assertThrows(InvalidRequestException.class,
                () -> RunRequest.builder("conv").idempotencyKey("k".repeat(256)).build());
    }

    /** A forced tool choice with a null Map input sends an empty input, as with a null JsonObject (it threw IllegalStateException). */
    @Test
    void forcedChoiceWithNullMapInputIsEmpty() {
        Map<String, Object> none = null;
        assertEquals(new JsonObject(), ToolChoice.function("get_weather", none).input());
    }
}
