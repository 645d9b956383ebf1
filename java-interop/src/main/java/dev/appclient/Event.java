package dev.appclient;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One event of a run: a step of the agent's work (docs/protocol.md section 4).
 *
 * <p>Missing or null fields read as their empty value ({@code ""}, 0, an empty object or list),
 * so code can index {@code toolCalls()} without null checks.
 *
 * @param eventCode 0 when the step went well
 * @param eventMessage the error text of a failed step, usually {@code ""}
 * @param eventType what produced the event, e.g. {@code "ChatAgent"}, {@code "Interrupt"}
 * @param eventId the event's id
 * @param eventStatus {@code preparing}, {@code running}, {@code done}, {@code success},
 *     {@code interrupt} or {@code error}
 * @param contentType how to read {@code outputs}: {@code text}, {@code status},
 *     {@code function_call}, {@code contexts}, ...
 * @param outputs the step's output (a copy is returned on each access)
 * @param usage token usage, or {@code null}
 * @param toolCalls the local tool calls the agent asks for (non-empty on the interrupt event)
 */
public record Event(
        int eventCode,
        String eventMessage,
        String eventType,
        String eventId,
        String eventStatus,
        String contentType,
        JsonObject outputs,
        Usage usage,
        List<ToolCall> toolCalls) {
    /**
     * Creates the record; copies the mutable parts, so the record stays immutable.
     *
     * @param eventCode see the class description
     * @param eventMessage see the class description
     * @param eventType see the class description
     * @param eventId see the class description
     * @param eventStatus see the class description
     * @param contentType see the class description
     * @param outputs see the class description
     * @param usage see the class description
     * @param toolCalls see the class description
     */
    public Event {
        outputs = outputs == null ? new JsonObject() : outputs.deepCopy();
        toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
    }

    /** @return a copy of the outputs object */
    @Override
    public JsonObject outputs() {
        return outputs.deepCopy();
    }

    /** @return true for the event that ends a run: {@code success}, {@code interrupt}, {@code error} */
    public boolean isTerminal() {
        return "success".equals(eventStatus)
                || "interrupt".equals(eventStatus)
                || "error".equals(eventStatus);
    }

    /** @return true when the run failed at this step */
    public boolean isError() {
        return "error".equals(eventStatus);
    }

    /** @return the {@code outputs.text} of a {@code text} event, or empty */
    public Optional<String> text() {
        JsonElement text = outputs.get("text");
        return text != null && text.isJsonPrimitive()
                ? Optional.of(text.getAsString())
                : Optional.empty();
    }

    static Event fromJson(JsonObject json) {
        List<ToolCall> calls = new ArrayList<>();
        for (JsonElement call : Json.array(json, "tool_calls")) {
            if (call.isJsonObject()) {
                calls.add(ToolCall.fromJson(call.getAsJsonObject()));
            }
        }
        JsonElement usage = json.get("usage");
        return new Event(
                Json.integer(json, "event_code", 0),
                Json.string(json, "event_message", ""),
                Json.string(json, "event_type", ""),
                Json.string(json, "event_id", ""),
                Json.string(json, "event_status", ""),
                Json.string(json, "content_type", ""),
                Json.object(json, "outputs"),
                usage != null && usage.isJsonObject() ? Usage.fromJson(usage.getAsJsonObject()) : null,
                calls);
    }
}
