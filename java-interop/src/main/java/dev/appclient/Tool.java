package dev.appclient;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A local tool the agent may call: {@code {"type": "function", "function": {"name",
 * "description", "parameters"}}} (docs/protocol.md section 3).
 *
 * <p>A tool keeps the JSON it was made from and sends it unchanged, so fields this client does
 * not know about (for instance {@code strict}) reach the server as written. Build one with
 * {@link #function}, read one with {@link #fromJson}, or load files with {@link ToolFiles}.
 */
public final class Tool {
    /** The rule every tool name must follow: 1 to 64 of A-Z, a-z, 0-9, '_' and '-'. */
    public static final Pattern NAME_PATTERN = Pattern.compile("^[A-Za-z0-9_-]{1,64}$");

    private final JsonObject json;

    private Tool(JsonObject json) {
        this.json = json;
    }

    /**
     * Builds a function tool.
     *
     * @param name the tool's name (see {@link #NAME_PATTERN})
     * @param description what the tool does, for the agent
     * @param parameters the JSON Schema of its arguments (an {@code "object"} schema)
     * @return the tool
     * @throws InvalidRequestException when the name breaks the rule or parameters is null
     */
    public static Tool function(String name, String description, JsonObject parameters) {
        JsonObject function = new JsonObject();
        function.addProperty("name", name);
        function.addProperty("description", description == null ? "" : description);
        function.add("parameters", Objects.requireNonNull(parameters, "parameters").deepCopy());
        JsonObject json = new JsonObject();
        json.addProperty("type", "function");
        json.add("function", function);
        return fromJson(json);
    }

    /**
     * Reads a tool from its JSON object, checking its shape.
     *
     * @param json the tool object ({@code type} defaults to {@code "function"})
     * @return the tool
     * @throws InvalidRequestException naming the field that is wrong
     */
    public static Tool fromJson(JsonObject json) {
        JsonObject copy = json.deepCopy();
        JsonElement type = copy.get("type");
        if (type == null || type.isJsonNull()) {
            copy.addProperty("type", "function");
        } else if (!type.isJsonPrimitive() || !type.getAsJsonPrimitive().isString()) {
            throw new InvalidRequestException("tool.type must be a string, got " + Json.kind(type));
        }
        if (!"function".equals(copy.get("type").getAsString())) {
            return new Tool(copy); // platform tools such as code_interpreter have no function
        }
        JsonElement function = copy.get("function");
        if (function == null || !function.isJsonObject()) {
            throw new InvalidRequestException(
                    "a tool of type \"function\" needs a \"function\" object, got " + Json.kind(function));
        }
        JsonObject spec = function.getAsJsonObject();
        String name = Json.string(spec, "name", null);
        if (name == null || !NAME_PATTERN.matcher(name).matches()) {
            throw new InvalidRequestException(
                    "tool.function.name must be 1 to 64 characters from A-Z, a-z, 0-9, '_' and '-', got "
                            + (name == null ? "none" : "\"" + Json.preview(name) + "\""));
        }
        JsonElement parameters = spec.get("parameters");
        if (parameters != null && !parameters.isJsonNull() && !parameters.isJsonObject()) {
            throw new InvalidRequestException(
                    "tool " + name + ": function.parameters must be a JSON Schema object, got "
                            + Json.kind(parameters));
        }
        return new Tool(copy);
    }

    /** @return the tool's type, {@code "function"} for local tools */
    public String type() {
        return json.get("type").getAsString();
    }

    /** @return the function's name, or {@code ""} for a tool that is not a function */
    public String name() {
        return Json.string(Json.object(json, "function"), "name", "");
    }

    /** @return the function's description, or {@code ""} */
    public String description() {
        return Json.string(Json.object(json, "function"), "description", "");
    }

    /** @return a copy of the function's JSON Schema parameters (empty object when absent) */
    public JsonObject parameters() {
        return Json.object(Json.object(json, "function"), "parameters").deepCopy();
    }

    /** @return a copy of the tool's JSON, exactly what is sent */
    public JsonObject toJson() {
        return json.deepCopy();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Tool && ((Tool) other).json.equals(json);
    }

    @Override
    public int hashCode() {
        return json.hashCode();
    }

    @Override
    public String toString() {
        return "Tool" + Json.GSON.toJson(json);
    }
}
