package dev.appclient;

/** The caller's arguments are invalid; nothing was sent. */
public class InvalidRequestException extends AppClientException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the error.
     *
     * @param message what was wrong, naming the argument
     */
    public InvalidRequestException(String message) {
        this(message, null);
    }

    /**
     * Creates the error with its cause.
     *
     * @param message what was wrong, naming the argument
     * @param cause the underlying exception, or {@code null}
     */
    public InvalidRequestException(String message, Throwable cause) {
        super(0, "", message, "", cause);
    }
}
