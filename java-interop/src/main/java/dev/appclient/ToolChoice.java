package dev.appclient;

import com.google.gson.JsonObject;
import java.util.Map;

/**
 * Lets the agent choose its tools, or forces one (docs/protocol.md section 7).
 *
 * <p>A forced choice names a local tool of the run or a cloud component of the app and gives
 * the arguments to call it with; when exactly one required argument is missing, the agent fills
 * it from the query.
 *
 * @param type {@code "auto"} or {@code "function"}
 * @param functionName the forced tool's name ({@code ""} for {@code auto})
 * @param input the forced call's arguments (a copy is returned on each access), or {@code null}
 */
public record ToolChoice(String type, String functionName, JsonObject input) {
    /**
     * Creates the record; checks that a forced choice names its tool.
     *
     * @param type see the class description
     * @param functionName see the class description
     * @param input see the class description
     */
    public ToolChoice {
        if (!"auto".equals(type) && !"function".equals(type)) {
            throw new InvalidRequestException(
                    "ToolChoice.type must be \"auto\" or \"function\", got " + Json.preview("" + type));
        }
        if ("function".equals(type) && (functionName == null || functionName.isEmpty())) {
            throw new InvalidRequestException("ToolChoice of type \"function\" needs a tool name");
        }
        functionName = functionName == null ? "" : functionName;
        input = input == null ? null : input.deepCopy();
    }

    /** @return the choice that lets the agent decide */
    public static ToolChoice auto() {
        return new ToolChoice("auto", "", null);
    }

    /**
     * Forces one tool.
     *
     * @param name the local tool's or cloud component's name
     * @param input the arguments to call it with
     * @return the forced choice
     */
    public static ToolChoice function(String name, JsonObject input) {
        return new ToolChoice("function", name, input == null ? new JsonObject() : input);
    }

    /**
     * Forces one tool, with arguments given as plain Java values.
     *
     * @param name the local tool's or cloud component's name
     * @param input the arguments (String, Number, Boolean, List, Map values), or {@code null} for none
     * @return the forced choice
     */
    public static ToolChoice function(String name, Map<String, ?> input) {
        return function(name, input == null ? new JsonObject() : Json.toObject(input));
    }

    /** @return a copy of the forced arguments, or {@code null} */
    @Override
    public JsonObject input() {
        return input == null ? null : input.deepCopy();
    }

    JsonObject toJson() {
        JsonObject json = new JsonObject();
        json.addProperty("type", type);
        if ("function".equals(type)) {
            JsonObject function = new JsonObject();
            function.addProperty("name", functionName);
            function.add("input", input == null ? new JsonObject() : input.deepCopy());
            json.add("function", function);
        }
        return json;
    }
}
