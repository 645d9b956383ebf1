package dev.appclient;

/** The token may not use this app (HTTP 403). */
public class PermissionDeniedException extends ApiStatusException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the error.
     *
     * @param code the body's {@code code}
     * @param message the body's {@code message}
     * @param requestId the request id
     */
    public PermissionDeniedException(String code, String message, String requestId) {
        super(403, code, message, requestId);
    }
}
