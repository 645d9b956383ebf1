package dev.appclient;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Loading tools from JSON files and folders. */
class ToolFilesTest {
    /** The seed's Java example tool file, verbatim. */
    static final String SEED_TOOL = "{\n  \"type\": \"function\",\n  \"function\": {\n"
            + "    \"name\": \"get_cur_whether\",\n    \"description\": \"这是一个获得指定地点天气的工具\",\n"
            + "    \"parameters\": {\n      \"type\": \"object\",\n      \"properties\": {\n"
            + "        \"location\": {\"type\": \"string\", \"description\": \"省，市名，例如：河北省\"},\n"
            + "        \"unit\": {\"type\": \"string\", \"enum\": [\"摄氏度\", \"华氏度\"]}\n      },\n"
            + "      \"required\": [\"location\"]\n    }\n  }\n}\n";

    @TempDir Path dir;

    private Path write(String name, String text) throws IOException {
        return Files.writeString(dir.resolve(name), text, StandardCharsets.UTF_8);
    }

    private static String tool(String name) {
        return "{\"type\":\"function\",\"function\":{\"name\":\"" + name + "\",\"description\":\"d\","
                + "\"parameters\":{\"type\":\"object\",\"properties\":{}}}}";
    }

    /** The seed's file loads as one tool with its name, description and schema. */
    @Test
    void loadsTheSeedToolFile() throws IOException {
        List<Tool> tools = ToolFiles.load(write("weather.json", SEED_TOOL));
        assertEquals(1, tools.size());
        Tool tool = tools.get(0);
        assertEquals("get_cur_whether", tool.name());
        assertEquals("这是一个获得指定地点天气的工具", tool.description());
        assertEquals("string", tool.parameters().getAsJsonObject("properties")
                .getAsJsonObject("location").get("type").getAsString());
    }

    /** A file may hold a list of tools. */
    @Test
    void loadsAListPerFile() throws IOException {
        List<Tool> tools = ToolFiles.load(write("all.json", "[" + tool("a") + "," + tool("b") + "]"));
        assertEquals(List.of("a", "b"), tools.stream().map(Tool::name).toList());
    }

    /** A folder gives the tools of its *.json files in file-name order, other files ignored. */
    @Test
    void loadsAFolderInNameOrder() throws IOException {
        write("b.json", tool("second"));
        write("a.json", "[" + tool("first") + "]");
        write("notes.txt", "not a tool");
        write(".hidden.json", "broken");
        Files.createDirectory(dir.resolve("sub.json"));
        assertEquals(List.of("first", "second"), ToolFiles.load(dir).stream().map(Tool::name).toList());
    }

    /** A tool is sent exactly as written, unknown fields included. */
    @Test
    void keepsUnknownFields() throws IOException {
        String text = "{\"type\":\"function\",\"function\":{\"name\":\"t\",\"strict\":true,\"parameters\":{}}}";
        Tool tool = ToolFiles.load(write("t.json", text)).get(0);
        assertTrue(tool.toJson().getAsJsonObject("function").get("strict").getAsBoolean());
    }

    /** Invalid JSON is an error naming the file. */
    @Test
    void rejectsInvalidJsonNamingTheFile() throws IOException {
        Path file = write("broken.json", "{\"type\": ");
        ToolFileException error = assertThrows(ToolFileException.class, () -> ToolFiles.load(file));
        assertEquals(file, error.path());
        assertTrue(error.getMessage().contains("broken.json"));
    }

    /** A name that breaks the rule is an error that states the rule. */
    @Test
    void rejectsBadToolNames() throws IOException {
        Path file = write("bad.json", tool("has space"));
        ToolFileException error = assertThrows(ToolFileException.class, () -> ToolFiles.load(file));
        assertTrue(error.getMessage().contains("1 to 64 characters"), error.getMessage());
    }

    /** Two files defining the same tool name are an error naming both. */
    @Test
    void rejectsDuplicateNamesAcrossFiles() throws IOException {
        write("a.json", tool("same"));
        write("b.json", tool("same"));
        ToolFileException error = assertThrows(ToolFileException.class, () -> ToolFiles.load(dir));
        assertTrue(error.getMessage().contains("a.json") && error.getMessage().contains("b.json"));
    }

    /** A file holding neither an object nor a list is an error. */
    @Test
    void rejectsScalars() throws IOException {
        Path file = write("n.json", "42");
        assertThrows(ToolFileException.class, () -> ToolFiles.load(file));
    }

    /** A missing path and an empty folder are errors, not an empty tool list. */
    @Test
    void rejectsMissingPathsAndEmptyFolders() {
        assertThrows(ToolFileException.class, () -> ToolFiles.load(dir.resolve("nope")));
        assertThrows(ToolFileException.class, () -> ToolFiles.load(dir));
    }
}
