package dev.appclient;

/**
 * A run failed although the HTTP exchange succeeded: the body was a top-level
 * {@code code}/{@code message} error, or the run ended with an {@code error} event.
 *
 * <p>For an error event, {@link #code()} is the event's {@code event_code} and
 * {@link #serverMessage()} its {@code event_message}.
 */
public class RunException extends AppClientException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the error.
     *
     * @param code the error code (top-level {@code code} or the event's {@code event_code})
     * @param message the error message
     * @param requestId the request id
     */
    public RunException(String code, String message, String requestId) {
        this(code, message, requestId, null);
    }

    /**
     * Creates the error with its cause.
     *
     * @param code the error code
     * @param message the error message
     * @param requestId the request id
     * @param cause the underlying exception, or {@code null}
     */
    protected RunException(String code, String message, String requestId, Throwable cause) {
        super(200, code, message, requestId, cause);
    }
}
