package dev.appclient;

/** The conversation is busy with another run (HTTP 409). */
public class ConflictException extends ApiStatusException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the error.
     *
     * @param code the body's {@code code}
     * @param message the body's {@code message}
     * @param requestId the request id
     */
    public ConflictException(String code, String message, String requestId) {
        super(409, code, message, requestId);
    }
}
