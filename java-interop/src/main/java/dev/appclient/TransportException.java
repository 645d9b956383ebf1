package dev.appclient;

/** The HTTP exchange failed before a complete answer arrived (refused, reset, DNS, TLS). */
public class TransportException extends AppClientException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the error.
     *
     * @param message what failed, naming the method and URL (never the token)
     * @param cause the underlying I/O exception
     */
    public TransportException(String message, Throwable cause) {
        super(0, "", message, "", cause);
    }
}
