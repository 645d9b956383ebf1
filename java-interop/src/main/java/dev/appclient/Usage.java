package dev.appclient;

import com.google.gson.JsonObject;

/**
 * Token usage of a model call, as reported in an event's {@code usage}.
 *
 * @param promptTokens tokens in the prompt
 * @param completionTokens tokens generated
 * @param totalTokens prompt plus completion
 * @param name the model's name, or {@code ""}
 */
public record Usage(int promptTokens, int completionTokens, int totalTokens, String name) {
    static Usage fromJson(JsonObject json) {
        return new Usage(
                Json.integer(json, "prompt_tokens", 0),
                Json.integer(json, "completion_tokens", 0),
                Json.integer(json, "total_tokens", 0),
                Json.string(json, "name", ""));
    }
}
