package dev.appclient;

import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.regex.Pattern;

/**
 * Reads answer bodies into models or typed errors (package-private, pure: no I/O).
 *
 * <p>Kept apart from {@link AppClient} so every mapping can be tested on plain strings.
 */
final class Responses {
    private Responses() {}

    /**
     * Maps an HTTP error answer to its typed error (docs/protocol.md section 8).
     *
     * @param status the HTTP status (not 200)
     * @param body the body text, ideally {@code {"request_id", "code", "message"}}
     * @param headerRequestId the {@code X-Appbuilder-Request-Id} header, or {@code ""}
     * @param retryAfterSeconds the {@code Retry-After} header in seconds, or -1
     * @return the error to throw
     */
    static ApiStatusException statusError(
            int status, String body, String headerRequestId, long retryAfterSeconds) {
        String code = "";
        String message;
        String requestId = headerRequestId;
        try {
            JsonObject json = Json.parseObject(body);
            code = Json.string(json, "code", "");
            message = Json.string(json, "message", "");
            if (requestId.isEmpty()) {
                requestId = Json.string(json, "request_id", "");
            }
            if (message.isEmpty() && code.isEmpty()) {
                message = Json.preview(body);
            }
        } catch (JsonParseException | IllegalStateException notJson) {
            message = body.isBlank() ? "(empty body)" : Json.preview(body);
        }
        return ApiStatusException.of(status, code, message, requestId, retryAfterSeconds);
    }

    /**
     * Reads a {@code Retry-After} header: delta seconds or an HTTP date (RFC 9110 section 10.2.3).
     *
     * @param value the header's value, or {@code ""} when absent
     * @param now the moment a date is compared with (best the response's own {@code Date})
     * @return whole seconds to wait (a fraction rounds up, a past date is 0), or -1 when absent or
     *     unreadable
     */
    static long retryAfterSeconds(String value, Instant now) {
        String text = value == null ? "" : value.trim();
        if (text.isEmpty()) {
            return -1;
        }
        try {
            double seconds = Double.parseDouble(text);
            return Double.isFinite(seconds) && seconds >= 0 ? (long) Math.ceil(seconds) : -1;
        } catch (NumberFormatException notSeconds) {
            Instant date = httpDate(text);
            return date == null ? -1 : Math.max(0, Duration.between(now, date).toSeconds());
        }
    }

    /**
     * Parses an HTTP date such as {@code Sat, 21 Nov 2026 10:00:30 GMT}.
     *
     * @param text the header value
     * @return the moment, or {@code null} when the text is not an HTTP date
     */
    static Instant httpDate(String text) {
        try {
            return ZonedDateTime.parse(text.trim(), DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
        } catch (DateTimeParseException notADate) {
            return null;
        }
    }

    /**
     * Reads a 200 run body (or one SSE payload) into an answer.
     *
     * @param body the JSON text
     * @param requestId the exchange's request id, used when the body names none
     * @return the answer
     * @throws ResponseDecodeException when the text is not a JSON object
     * @throws RunException for a top-level {@code code}/{@code message} error or an error event
     */
    static RunAnswer runAnswer(String body, String requestId) {
        return runAnswer(body, requestId, "");
    }

    /**
     * Reads a 200 run body (or one SSE payload) into an answer, masking a secret in any error.
     *
     * @param body the JSON text
     * @param requestId the exchange's request id, used when the body names none
     * @param secret the token, shown as {@code ***} if the server echoes it in an error
     * @return the answer
     * @throws ResponseDecodeException when the text is not a JSON object
     * @throws RunException for a top-level {@code code}/{@code message} error or an error event
     */
    static RunAnswer runAnswer(String body, String requestId, String secret) {
        JsonObject json = object(body, requestId, secret);
        raiseTopLevelError(json, requestId, secret);
        RunAnswer answer = RunAnswer.fromJson(json);
        Event error = answer.errorEvent().orElse(null);
        if (error != null) {
            String id = answer.requestId().isEmpty() ? requestId : answer.requestId();
            throw new RunException(
                    String.valueOf(error.eventCode()),
                    redact(error.eventMessage().isEmpty()
                            ? "the run failed at event " + error.eventType()
                            : error.eventMessage(), secret),
                    id);
        }
        return answer;
    }

    /**
     * Reads a 200 body that must hold one string field, e.g. {@code conversation_id}.
     *
     * @param body the JSON text
     * @param field the field to read
     * @param requestId the exchange's request id
     * @return the field's value
     * @throws ResponseDecodeException when the body or the field is missing
     */
    static String requiredString(String body, String field, String requestId) {
        return requiredString(body, field, requestId, "");
    }

    /**
     * Reads a 200 body that must hold one string field, masking a secret in any error.
     *
     * @param body the JSON text
     * @param field the field to read
     * @param requestId the exchange's request id
     * @param secret the token, shown as {@code ***} if the server echoes it in an error
     * @return the field's value
     * @throws ResponseDecodeException when the body or the field is missing
     */
    static String requiredString(String body, String field, String requestId, String secret) {
        JsonObject json = object(body, requestId, secret);
        raiseTopLevelError(json, requestId, secret);
        String value = Json.string(json, field, "");
        if (value.isEmpty()) {
            throw new ResponseDecodeException(
                    "the answer has no \"" + field + "\": " + redact(Json.preview(body), secret), requestId, null);
        }
        return value;
    }

    /**
     * Reads a 200 body that only acknowledges, {@code {"request_id"}}.
     *
     * @param body the JSON text
     * @param requestId the exchange's request id, returned when the body names none
     * @param secret the token, shown as {@code ***} if the server echoes it in an error
     * @return the request id
     * @throws ResponseDecodeException when the body is not a JSON object
     * @throws RunException for a top-level {@code code}/{@code message} error
     */
    static String acknowledgement(String body, String requestId, String secret) {
        JsonObject json = object(body, requestId, secret);
        raiseTopLevelError(json, requestId, secret);
        return Json.string(json, "request_id", requestId);
    }

    /**
     * Masks a secret in text that goes into an error: a server may echo the token it refused.
     * A secret shorter than 8 characters is masked only where it is not part of a longer word, so
     * a short value does not garble every word that contains it (the Python client's rule).
     *
     * @param text the text
     * @param secret the secret, or {@code ""} for none
     * @return the text with every occurrence of the secret replaced by {@code ***}
     */
    static String redact(String text, String secret) {
        if (text == null || secret == null || secret.isEmpty() || !text.contains(secret)) {
            return text;
        }
        if (secret.length() >= 8) {
            return text.replace(secret, "***");
        }
        return text.replaceAll(
                "(?<![\\p{L}\\p{N}])" + Pattern.quote(secret) + "(?![\\p{L}\\p{N}])", "***");
    }

    private static JsonObject object(String body, String requestId, String secret) {
        try {
            return Json.parseObject(body);
        } catch (JsonParseException | IllegalStateException notJson) {
            throw new ResponseDecodeException(
                    "the answer is not a JSON object: " + redact(Json.preview(body), secret), requestId, notJson);
        }
    }

    /**
     * The hosted service can answer HTTP 200 with {@code {"code", "message"}}; the official
     * client then shows an empty answer, this one raises (the Python client's rule): an explicit
     * success code {@code 0} is never an error, a body without {@code code} neither, an empty or
     * null code only with a message.
     */
    private static void raiseTopLevelError(JsonObject json, String requestId, String secret) {
        if (!json.has("code")) {
            return;
        }
        String code = Json.string(json, "code", "");
        String message = Json.string(json, "message", "");
        if ("0".equals(code) || code.isEmpty() && message.isEmpty()) {
            return;
        }
        throw new RunException(
                redact(code, secret), redact(message, secret), Json.string(json, "request_id", requestId));
    }
}
