package dev.appclient;

/**
 * The server answered with an HTTP error status (docs/protocol.md section 8).
 *
 * <p>Statuses with a subclass of their own are mapped by {@link #of}; any other 4xx is an
 * {@code ApiStatusException} itself.
 */
public class ApiStatusException extends AppClientException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the error.
     *
     * @param status the HTTP status
     * @param code the body's {@code code}, or {@code ""}
     * @param message the body's {@code message} (or the start of a non-JSON body)
     * @param requestId the request id from the header or body, or {@code ""}
     */
    public ApiStatusException(int status, String code, String message, String requestId) {
        super(status, code, message, requestId, null);
    }

    /**
     * Returns the error class that fits an HTTP status.
     *
     * @param status the HTTP status (400-599)
     * @param code the body's {@code code}
     * @param message the body's {@code message}
     * @param requestId the request id
     * @param retryAfterSeconds the {@code Retry-After} header in seconds, or -1 when absent
     * @return the typed error, e.g. {@link AuthenticationException} for 401
     */
    public static ApiStatusException of(
            int status, String code, String message, String requestId, long retryAfterSeconds) {
        switch (status) {
            case 400:
                return new BadRequestException(code, message, requestId);
            case 401:
                return new AuthenticationException(code, message, requestId);
            case 403:
                return new PermissionDeniedException(code, message, requestId);
            case 404:
                return new NotFoundException(code, message, requestId);
            case 409:
                return new ConflictException(code, message, requestId);
            case 429:
                return new RateLimitException(code, message, requestId, retryAfterSeconds);
            default:
                if (status >= 500) {
                    return new ServerException(status, code, message, requestId, retryAfterSeconds);
                }
                return new ApiStatusException(status, code, message, requestId);
        }
    }
}
