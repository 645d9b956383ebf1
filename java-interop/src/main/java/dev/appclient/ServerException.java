package dev.appclient;

/**
 * The server failed (HTTP 5xx).
 *
 * <p>This client never retries: like the official Java SDK it leaves that decision to the
 * caller, who can read {@link #retryAfterSeconds()}. A request that carried tool outputs is only
 * safe to repeat against a server that deduplicates it (the Python client sends an
 * {@code Idempotency-Key} for that).
 */
public class ServerException extends ApiStatusException {
    private static final long serialVersionUID = 1L;

    /** @serial the Retry-After header in seconds, or -1 */
    private final long retryAfterSeconds;

    /**
     * Creates the error.
     *
     * @param status the HTTP status (500-599)
     * @param code the body's {@code code}
     * @param message the body's {@code message}
     * @param requestId the request id
     * @param retryAfterSeconds the {@code Retry-After} header in seconds, or -1 when absent
     */
    public ServerException(
            int status, String code, String message, String requestId, long retryAfterSeconds) {
        super(status, code, message, requestId);
        this.retryAfterSeconds = retryAfterSeconds;
    }

    /** @return the server's {@code Retry-After} in seconds, or -1 when it sent none */
    public long retryAfterSeconds() {
        return retryAfterSeconds;
    }
}
