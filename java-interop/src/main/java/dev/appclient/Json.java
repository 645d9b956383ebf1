package dev.appclient;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import java.util.List;
import java.util.Map;

/**
 * Lenient JSON reading shared by the wire models (package-private).
 *
 * <p>The protocol asks every client to ignore unknown fields and to survive a {@code null} or a
 * missing field where a value is promised (docs/protocol.md section 4), so each getter takes a fallback
 * instead of throwing. Wrong <em>types</em> fall back too: a client that crashes on a server's
 * small deviation helps nobody.
 */
final class Json {
    /** Compact output, non-ASCII and {@code <>&} kept as they are, nulls omitted. */
    static final Gson GSON = new GsonBuilder().disableHtmlEscaping().create();

    private Json() {}

    static JsonObject parseObject(String text) {
        JsonElement element = JsonParser.parseString(text);
        if (!element.isJsonObject()) {
            throw new JsonParseException("expected a JSON object, got " + kind(element));
        }
        return element.getAsJsonObject();
    }

    static String string(JsonObject object, String key, String fallback) {
        JsonElement value = object.get(key);
        if (value == null || value.isJsonNull()) {
            return fallback;
        }
        if (value.isJsonPrimitive()) {
            return value.getAsString();
        }
        return GSON.toJson(value);
    }

    static int integer(JsonObject object, String key, int fallback) {
        JsonElement value = object.get(key);
        if (value instanceof JsonPrimitive && ((JsonPrimitive) value).isNumber()) {
            return value.getAsInt();
        }
        if (value instanceof JsonPrimitive && ((JsonPrimitive) value).isString()) {
            try {
                return Integer.parseInt(value.getAsString().trim());
            } catch (NumberFormatException notANumber) {
                return fallback;
            }
        }
        return fallback;
    }

    static boolean bool(JsonObject object, String key, boolean fallback) {
        JsonElement value = object.get(key);
        if (value instanceof JsonPrimitive && ((JsonPrimitive) value).isBoolean()) {
            return value.getAsBoolean();
        }
        return fallback;
    }

    /** Returns the member as an object, or an empty object when absent, null or not an object. */
    static JsonObject object(JsonObject object, String key) {
        JsonElement value = object.get(key);
        return value != null && value.isJsonObject() ? value.getAsJsonObject() : new JsonObject();
    }

    /** Returns the member as an array, or an empty array when absent, null or not an array. */
    static JsonArray array(JsonObject object, String key) {
        JsonElement value = object.get(key);
        return value != null && value.isJsonArray() ? value.getAsJsonArray() : new JsonArray();
    }

    static JsonArray strings(List<String> values) {
        JsonArray array = new JsonArray();
        values.forEach(array::add);
        return array;
    }

    /** Converts a plain Java map (String, Number, Boolean, List, Map, null) to a JSON object. */
    static JsonObject toObject(Map<String, ?> map) {
        return GSON.toJsonTree(map).getAsJsonObject();
    }

    static String kind(JsonElement element) {
        if (element == null || element.isJsonNull()) {
            return "null";
        }
        if (element.isJsonObject()) {
            return "an object";
        }
        if (element.isJsonArray()) {
            return "an array";
        }
        JsonPrimitive primitive = element.getAsJsonPrimitive();
        if (primitive.isString()) {
            return "a string";
        }
        return primitive.isNumber() ? "a number" : "a boolean";
    }

    /** Shortens text for an error message, so a huge body never floods a log. */
    static String preview(String text) {
        String oneLine = text.replaceAll("\\s+", " ").trim();
        return oneLine.length() <= 200 ? oneLine : oneLine.substring(0, 200) + "...";
    }
}
