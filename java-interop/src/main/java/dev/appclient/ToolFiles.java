package dev.appclient;

import com.google.gson.JsonElement;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Loads tools from JSON files: the format the AppBuilder Java and Go examples read and that
 * {@code appclient manifest -o DIR} writes.
 *
 * <p>A file holds one tool object or a list of them, in UTF-8. A folder contributes every
 * {@code *.json} file directly inside it (not sub-folders, not hidden files), in file-name order,
 * so the order of the tools does not depend on the file system. Tool names must be unique across
 * everything loaded at once.
 */
public final class ToolFiles {
    private ToolFiles() {}

    /**
     * Loads the tools of a file or of every {@code *.json} file in a folder.
     *
     * @param path a {@code .json} file, or a folder of them
     * @return the tools, in file-name order and then in each file's order
     * @throws ToolFileException naming the file and the problem: missing, unreadable, not JSON,
     *     not a tool, a duplicate name, or a folder without tool files
     */
    public static List<Tool> load(Path path) {
        if (Files.isDirectory(path)) {
            List<Path> files = jsonFilesIn(path);
            if (files.isEmpty()) {
                throw new ToolFileException(path, "the folder holds no *.json tool files", null);
            }
            return loadAll(files);
        }
        if (!Files.isRegularFile(path)) {
            throw new ToolFileException(path, "no such file or folder", null);
        }
        return loadAll(List.of(path));
    }

    private static List<Path> jsonFilesIn(Path folder) {
        try (Stream<Path> entries = Files.list(folder)) {
            return entries
                    .filter(Files::isRegularFile)
                    .filter(file -> !file.getFileName().toString().startsWith("."))
                    .filter(file -> file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".json"))
                    .sorted((a, b) -> a.getFileName().toString().compareTo(b.getFileName().toString()))
                    .toList();
        } catch (IOException error) {
            throw new ToolFileException(folder, "cannot list the folder: " + error.getMessage(), error);
        }
    }

    private static List<Tool> loadAll(List<Path> files) {
        List<Tool> tools = new ArrayList<>();
        Map<String, Path> seen = new HashMap<>();
        for (Path file : files) {
            for (Tool tool : loadFile(file)) {
                Path first = seen.putIfAbsent(tool.name(), file);
                if (first != null && !tool.name().isEmpty()) {
                    throw new ToolFileException(
                            file, "tool name \"" + tool.name() + "\" is already defined in " + first, null);
                }
                tools.add(tool);
            }
        }
        return tools;
    }

    private static List<Tool> loadFile(Path file) {
        JsonElement root = parse(file);
        List<Tool> tools = new ArrayList<>();
        if (root.isJsonObject()) {
            tools.add(toTool(file, root, "the tool"));
        } else if (root.isJsonArray()) {
            int index = 0;
            for (JsonElement item : root.getAsJsonArray()) {
                tools.add(toTool(file, item, "tool [" + index++ + "]"));
            }
        } else {
            throw new ToolFileException(
                    file, "expected a tool object or a list of tools, got " + Json.kind(root), null);
        }
        return tools;
    }

    private static JsonElement parse(Path file) {
        String text;
        try {
            text = StandardCharsets.UTF_8
                    .newDecoder()
                    .decode(java.nio.ByteBuffer.wrap(Files.readAllBytes(file)))
                    .toString();
        } catch (CharacterCodingException notUtf8) {
            throw new ToolFileException(file, "not UTF-8 text", notUtf8);
        } catch (IOException error) {
            throw new ToolFileException(file, "cannot read: " + error.getMessage(), error);
        }
        if (text.startsWith("\uFEFF")) {
            text = text.substring(1); // a byte-order mark some editors write
        }
        try {
            return JsonParser.parseString(text);
        } catch (JsonParseException invalid) {
            throw new ToolFileException(file, "not valid JSON: " + invalid.getMessage(), invalid);
        }
    }

    private static Tool toTool(Path file, JsonElement element, String where) {
        if (!element.isJsonObject()) {
            throw new ToolFileException(
                    file, where + " must be a JSON object, got " + Json.kind(element), null);
        }
        try {
            return Tool.fromJson(element.getAsJsonObject());
        } catch (InvalidRequestException invalid) {
            throw new ToolFileException(file, where + ": " + invalid.serverMessage(), invalid);
        }
    }
}
