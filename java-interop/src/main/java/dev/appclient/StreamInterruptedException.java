package dev.appclient;

/**
 * A stream closed before its final {@code success}, {@code interrupt} or {@code error} event
 * (docs/protocol.md section 5): the answer read so far is incomplete and must not be taken as the whole.
 */
public class StreamInterruptedException extends RunException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the error.
     *
     * @param message how far the stream got before it closed
     * @param requestId the request id
     * @param cause the I/O exception that ended the stream, or {@code null} for a clean close
     */
    public StreamInterruptedException(String message, String requestId, Throwable cause) {
        super("StreamInterrupted", message, requestId, cause);
    }
}
