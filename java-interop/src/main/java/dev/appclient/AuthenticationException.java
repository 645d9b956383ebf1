package dev.appclient;

/** The token is missing or wrong (HTTP 401). */
public class AuthenticationException extends ApiStatusException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the error.
     *
     * @param code the body's {@code code}
     * @param message the body's {@code message}
     * @param requestId the request id
     */
    public AuthenticationException(String code, String message, String requestId) {
        super(401, code, message, requestId);
    }
}
