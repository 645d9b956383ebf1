package dev.appclient;

/** The request was rejected as invalid (HTTP 400); the message names the field. */
public class BadRequestException extends ApiStatusException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the error.
     *
     * @param code the body's {@code code}
     * @param message the body's {@code message}
     * @param requestId the request id
     */
    public BadRequestException(String code, String message, String requestId) {
        super(400, code, message, requestId);
    }
}
