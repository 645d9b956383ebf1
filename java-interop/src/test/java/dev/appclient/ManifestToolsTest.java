package dev.appclient;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.google.gson.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Tools written by Python ({@code appclient manifest module:function -o DIR}) loaded and used by
 * Java: the tool file format is language-neutral.
 *
 * <p>Needs {@code toolsDir} (the folder the bridge generated from
 * {@code tests/java_interop/example_tools.py}); the round trip also needs {@code baseUrl}.
 */
class ManifestToolsTest {
    /** The Java implementations of the Python example tools, by tool name. */
    private static final Map<String, Function<ToolCall, String>> LOCAL_TOOLS = Map.of(
            "get_birthday", call -> call.function().argument("name").orElse("?") + "同学的生日是2008年8月8日",
            "convert_temperature", call -> "converted");

    private static List<Tool> generatedTools() {
        var dir = TestSettings.get("toolsDir");
        assumeTrue(dir.isPresent(), "no tools folder given (appclient.test.toolsDir / APPCLIENT_TEST_TOOLS_DIR)");
        return ToolFiles.load(Path.of(dir.get()));
    }

    /** The generated folder loads with every example tool, as JSON Schema. */
    @Test
    void loadsTheGeneratedFolder() {
        Map<String, Tool> tools = generatedTools().stream()
                .collect(Collectors.toMap(Tool::name, tool -> tool));
        assertEquals(LOCAL_TOOLS.keySet(), tools.keySet());
        JsonObject birthday = tools.get("get_birthday").parameters();
        assertEquals("object", birthday.get("type").getAsString());
        assertEquals("string", birthday.getAsJsonObject("properties")
                .getAsJsonObject("name").get("type").getAsString());
        assertTrue(birthday.getAsJsonArray("required").toString().contains("\"name\""));
        JsonObject unit = tools.get("convert_temperature").parameters()
                .getAsJsonObject("properties").getAsJsonObject("to_unit");
        assertTrue(unit.getAsJsonArray("enum").toString().contains("fahrenheit"), unit.toString());
        assertTrue(tools.get("get_birthday").description().toLowerCase().contains("birthday"));
    }

    /** The generated tools drive a full round trip, each call run by its Java implementation. */
    @Test
    void generatedToolsDriveARoundTrip() {
        List<Tool> tools = generatedTools();
        var baseUrl = TestSettings.get("baseUrl");
        assumeTrue(baseUrl.isPresent(), "no server given");
        AppClient client = AppClient.builder()
                .baseUrl(baseUrl.get())
                .token(TestSettings.get("token").orElse(""))
                .appId(TestSettings.get("appId").orElse("appclient-demo-app"))
                .readTimeout(Duration.ofSeconds(20))
                .build();
        String conversation = client.createConversation();
        RunAnswer answer = client.run(RunRequest.builder(conversation)
                .query("请问张三同学的生日是哪天？")
                .tools(tools)
                .build());
        int rounds = 0;
        while (answer.requiresToolOutputs() && rounds++ < 4) {
            RunRequest.Builder outputs = RunRequest.builder(conversation);
            for (ToolCall call : answer.toolCalls()) {
                assertEquals("get_birthday", call.name());
                outputs.toolOutput(call.id(), LOCAL_TOOLS.get(call.name()).apply(call));
            }
            answer = client.run(outputs.build());
        }
        assertEquals(1, rounds);
        assertTrue(answer.answer().contains("2008"), answer.answer());
    }
}
