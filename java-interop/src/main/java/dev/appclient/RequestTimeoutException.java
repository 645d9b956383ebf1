package dev.appclient;

/** The server did not connect, answer, or send the next stream bytes within the timeout. */
public class RequestTimeoutException extends TransportException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the error.
     *
     * @param message which timeout expired, and for which request
     * @param cause the underlying exception, or {@code null}
     */
    public RequestTimeoutException(String message, Throwable cause) {
        super(message, cause);
    }
}
