package dev.appclient;

import com.google.gson.JsonObject;

/**
 * The result of one tool call, sent back to the agent as text (docs/protocol.md section 3).
 *
 * @param toolCallId the {@link ToolCall#id()} this answers
 * @param output the result: natural language, or a JSON dump for structured data
 */
public record ToolOutput(String toolCallId, String output) {
    /**
     * Creates the record; checks both parts: a bad output fails here, not as a server 400.
     *
     * @param toolCallId see the class description
     * @param output see the class description
     */
    public ToolOutput {
        if (toolCallId == null || toolCallId.isEmpty()) {
            throw new InvalidRequestException("ToolOutput.toolCallId must be a non-empty string");
        }
        if (output == null) {
            throw new InvalidRequestException(
                    "ToolOutput.output must be text (use \"\" for no output), got null for tool call "
                            + toolCallId);
        }
    }

    JsonObject toJson() {
        JsonObject json = new JsonObject();
        json.addProperty("tool_call_id", toolCallId);
        json.addProperty("output", output);
        return json;
    }
}
