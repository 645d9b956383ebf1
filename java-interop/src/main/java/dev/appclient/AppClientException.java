package dev.appclient;

/**
 * Base class of every error this client raises on purpose.
 *
 * <p>The tree mirrors the Python package's {@code appclient.AppClientError}:
 *
 * <pre>
 * AppClientException
 * ├── InvalidRequestException        bad arguments, caught before anything is sent
 * │   └── ToolFileException          a tool JSON file or folder cannot be loaded
 * ├── TransportException             the HTTP exchange itself failed (no answer)
 * │   └── RequestTimeoutException    connect, response or stream-idle timeout
 * ├── ApiStatusException             the server answered 4xx/5xx
 * │   ├── BadRequestException        400
 * │   ├── AuthenticationException    401
 * │   ├── PermissionDeniedException  403
 * │   ├── NotFoundException          404
 * │   ├── ConflictException          409
 * │   ├── RateLimitException         429
 * │   └── ServerException            5xx
 * ├── ResponseDecodeException        a 200 body that is not the protocol's JSON
 * └── RunException                   HTTP 200 with a top-level error, or an error event
 *     └── StreamInterruptedException a stream closed before its final event
 * </pre>
 *
 * <p>Every error carries the HTTP status (0 when there was no answer), the server's error code
 * and message, and the request id, so a failure can be traced in the server's logs. No error
 * ever carries the token.
 *
 * <p>The errors are unchecked: a caller handles the cases it cares about ({@code
 * catch (AuthenticationException e)}) and lets the rest propagate.
 */
public class AppClientException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @serial the HTTP status, or 0 */
    private final int status;
    /** @serial the server's error code */
    private final String code;
    /** @serial the server's error message */
    private final String serverMessage;
    /** @serial the request id */
    private final String requestId;

    /**
     * Creates an error.
     *
     * @param status the HTTP status, or 0 when no response arrived
     * @param code the server's error code, or {@code ""}
     * @param serverMessage the server's error message (or a description of the problem)
     * @param requestId the request id of the failed exchange, or {@code ""}
     * @param cause the underlying exception, or {@code null}
     */
    protected AppClientException(
            int status, String code, String serverMessage, String requestId, Throwable cause) {
        super(describe(status, code, serverMessage, requestId), cause);
        this.status = status;
        this.code = code == null ? "" : code;
        this.serverMessage = serverMessage == null ? "" : serverMessage;
        this.requestId = requestId == null ? "" : requestId;
    }

    /** @return the HTTP status of the failed exchange, or 0 when no response arrived */
    public int status() {
        return status;
    }

    /** @return the server's error code (e.g. {@code "InvalidParameter"}), or {@code ""} */
    public String code() {
        return code;
    }

    /** @return the server's error message alone, without the status, code or request id */
    public String serverMessage() {
        return serverMessage;
    }

    /** @return the request id the server gave the failed exchange, or {@code ""} */
    public String requestId() {
        return requestId;
    }

    private static String describe(int status, String code, String message, String requestId) {
        StringBuilder text = new StringBuilder();
        if (status != 0) {
            text.append("HTTP ").append(status).append(": ");
        }
        if (code != null && !code.isEmpty()) {
            text.append('[').append(code).append("] ");
        }
        text.append(message == null || message.isEmpty() ? "(no message)" : message);
        if (requestId != null && !requestId.isEmpty()) {
            text.append(" (request id ").append(requestId).append(')');
        }
        return text.toString();
    }
}
