package dev.appclient;

/** A 200 answer whose body is not the protocol's JSON (or an SSE message that is not). */
public class ResponseDecodeException extends AppClientException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the error.
     *
     * @param message what could not be decoded (with the start of the offending text)
     * @param requestId the request id, or {@code ""}
     * @param cause the parser's exception, or {@code null}
     */
    public ResponseDecodeException(String message, String requestId, Throwable cause) {
        super(200, "", message, requestId, cause);
    }
}
