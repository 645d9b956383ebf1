package dev.appclient;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.reflect.TypeToken;
import java.util.Map;
import java.util.Optional;

/**
 * The function part of a tool call: which local tool to run, and with which arguments.
 *
 * <p>The protocol sends {@code arguments} as a JSON object; an OpenAI-style JSON string is parsed
 * too (docs/protocol.md section 4). Text that is not a JSON object leaves {@link #arguments()} empty and
 * is kept in {@link #argumentsError()}, so the program can answer the agent with what was wrong
 * instead of crashing.
 *
 * @param name the tool's name, as declared in the run's {@code tools}
 * @param arguments the arguments to call it with (a copy is returned on each access)
 * @param argumentsError why the arguments could not be read, or {@code null} when they could
 */
public record FunctionCall(String name, JsonObject arguments, String argumentsError) {
    /**
     * Creates the record; copies the arguments, so the record stays immutable.
     *
     * @param name see the class description
     * @param arguments see the class description
     * @param argumentsError see the class description
     */
    public FunctionCall {
        arguments = arguments == null ? new JsonObject() : arguments.deepCopy();
    }

    /** @return a copy of the arguments, a JSON object (empty when there are none) */
    @Override
    public JsonObject arguments() {
        return arguments.deepCopy();
    }

    /** @return the arguments as compact JSON text, e.g. {@code {"location":"Tokyo"}} */
    public String argumentsJson() {
        return Json.GSON.toJson(arguments);
    }

    /**
     * Returns the arguments as plain Java values (String, Double, Boolean, List, Map).
     *
     * @return a new mutable map
     */
    public Map<String, Object> argumentsAsMap() {
        return Json.GSON.fromJson(arguments, new TypeToken<Map<String, Object>>() {}.getType());
    }

    /**
     * Returns one argument as text.
     *
     * @param key the parameter name
     * @return the value (JSON text for objects and arrays), or empty when absent or null
     */
    public Optional<String> argument(String key) {
        return Optional.ofNullable(Json.string(arguments, key, null));
    }

    static FunctionCall fromJson(JsonObject json) {
        String name = Json.string(json, "name", "");
        JsonElement raw = json.get("arguments");
        if (raw == null || raw.isJsonNull()) {
            return new FunctionCall(name, new JsonObject(), null);
        }
        if (raw.isJsonObject()) {
            return new FunctionCall(name, raw.getAsJsonObject(), null);
        }
        if (raw.isJsonPrimitive() && raw.getAsJsonPrimitive().isString()) {
            String text = raw.getAsString();
            if (text.isBlank()) {
                return new FunctionCall(name, new JsonObject(), null);
            }
            try {
                return new FunctionCall(name, Json.parseObject(text), null);
            } catch (JsonParseException | IllegalStateException notAnObject) {
                return new FunctionCall(
                        name,
                        new JsonObject(),
                        "arguments are not a JSON object: " + Json.preview(text));
            }
        }
        return new FunctionCall(
                name, new JsonObject(), "arguments are " + Json.kind(raw) + ", not a JSON object");
    }
}
