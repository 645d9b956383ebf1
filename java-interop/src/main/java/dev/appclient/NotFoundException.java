package dev.appclient;

/** The conversation, app or path does not exist for this token (HTTP 404). */
public class NotFoundException extends ApiStatusException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the error.
     *
     * @param code the body's {@code code}
     * @param message the body's {@code message}
     * @param requestId the request id
     */
    public NotFoundException(String code, String message, String requestId) {
        super(404, code, message, requestId);
    }
}
