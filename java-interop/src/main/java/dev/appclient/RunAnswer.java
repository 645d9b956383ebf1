package dev.appclient;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The answer of a run: the whole body of a non-stream run, or one message of a stream
 * (docs/protocol.md section 4).
 *
 * <p>In a stream, {@code answer} is the delta of that message; {@link RunStream#collect()} joins
 * them. {@code events} is the wire's {@code content} list.
 *
 * @param requestId the request id
 * @param date when the server answered (ISO-8601 text)
 * @param answer the answer text (the full answer, or a stream delta)
 * @param conversationId the conversation
 * @param messageId the run's message id (constant within a run)
 * @param isCompletion true on the message that completes the run
 * @param events the run's events, in order
 */
public record RunAnswer(
        String requestId,
        String date,
        String answer,
        String conversationId,
        String messageId,
        boolean isCompletion,
        List<Event> events) {
    /**
     * Creates the record; copies the event list, so the record stays immutable.
     *
     * @param requestId see the class description
     * @param date see the class description
     * @param answer see the class description
     * @param conversationId see the class description
     * @param messageId see the class description
     * @param isCompletion see the class description
     * @param events see the class description
     */
    public RunAnswer {
        events = events == null ? List.of() : List.copyOf(events);
    }

    /** @return the last event, where a tool round puts its interrupt; empty when there are none */
    public Optional<Event> lastEvent() {
        return events.isEmpty() ? Optional.empty() : Optional.of(events.get(events.size() - 1));
    }

    /**
     * Returns the local tool calls the agent asks for: those of the last event.
     *
     * @return the calls (several for parallel calls), or an empty list when the run answered
     */
    public List<ToolCall> toolCalls() {
        return lastEvent().map(Event::toolCalls).orElse(List.of());
    }

    /** @return true when the agent waits for tool outputs before it can answer */
    public boolean requiresToolOutputs() {
        return !toolCalls().isEmpty();
    }

    /** @return the first {@code error} event, or empty */
    public Optional<Event> errorEvent() {
        return events.stream().filter(Event::isError).findFirst();
    }

    /** @return true when this answer ends the run (a terminal event, tool calls, or completion) */
    public boolean isTerminal() {
        return isCompletion || requiresToolOutputs() || events.stream().anyMatch(Event::isTerminal);
    }

    static RunAnswer fromJson(JsonObject json) {
        List<Event> events = new ArrayList<>();
        for (JsonElement event : Json.array(json, "content")) {
            if (event.isJsonObject()) {
                events.add(Event.fromJson(event.getAsJsonObject()));
            }
        }
        return new RunAnswer(
                Json.string(json, "request_id", ""),
                Json.string(json, "date", ""),
                Json.string(json, "answer", ""),
                Json.string(json, "conversation_id", ""),
                Json.string(json, "message_id", ""),
                Json.bool(json, "is_completion", false),
                events);
    }
}
