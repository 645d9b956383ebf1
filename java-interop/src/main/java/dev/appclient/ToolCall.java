package dev.appclient;

import com.google.gson.JsonObject;

/**
 * One call of a local tool that the agent asks the program to make (docs/protocol.md section 6).
 *
 * <p>Unlike the official Java SDK's {@code ToolCall}, which keeps only {@code id} and
 * {@code type}, this keeps the function's name and arguments: everything needed to run the tool.
 *
 * @param id the id to answer with in {@link ToolOutput#toolCallId()}
 * @param type always {@code "function"} today
 * @param function the tool's name and arguments
 */
public record ToolCall(String id, String type, FunctionCall function) {
    /** @return the tool's name (shortcut for {@code function().name()}) */
    public String name() {
        return function.name();
    }

    /** @return a copy of the arguments (shortcut for {@code function().arguments()}) */
    public JsonObject arguments() {
        return function.arguments();
    }

    /**
     * Builds the answer to this call.
     *
     * @param output the tool's result as text (natural language or a JSON dump)
     * @return the tool output carrying this call's id
     */
    public ToolOutput output(String output) {
        return new ToolOutput(id, output);
    }

    static ToolCall fromJson(JsonObject json) {
        return new ToolCall(
                Json.string(json, "id", ""),
                Json.string(json, "type", "function"),
                FunctionCall.fromJson(Json.object(json, "function")));
    }
}
