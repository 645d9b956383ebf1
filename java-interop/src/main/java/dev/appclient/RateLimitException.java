package dev.appclient;

/** Too many requests (HTTP 429); {@link #retryAfterSeconds()} tells when to try again. */
public class RateLimitException extends ApiStatusException {
    private static final long serialVersionUID = 1L;

    /** @serial the Retry-After header in seconds, or -1 */
    private final long retryAfterSeconds;

    /**
     * Creates the error.
     *
     * @param code the body's {@code code}
     * @param message the body's {@code message}
     * @param requestId the request id
     * @param retryAfterSeconds the {@code Retry-After} header in seconds, or -1 when absent
     */
    public RateLimitException(String code, String message, String requestId, long retryAfterSeconds) {
        super(429, code, message, requestId);
        this.retryAfterSeconds = retryAfterSeconds;
    }

    /** @return the server's {@code Retry-After} in seconds, or -1 when it sent none */
    public long retryAfterSeconds() {
        return retryAfterSeconds;
    }
}
