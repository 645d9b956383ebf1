package dev.appclient;

import java.nio.file.Path;

/** A tool JSON file or folder cannot be loaded; the message names the file and the problem. */
public class ToolFileException extends InvalidRequestException {
    private static final long serialVersionUID = 1L;

    private final transient Path path;

    /**
     * Creates the error.
     *
     * @param path the file or folder that could not be loaded
     * @param problem what is wrong with it
     * @param cause the underlying exception, or {@code null}
     */
    public ToolFileException(Path path, String problem, Throwable cause) {
        super(path + ": " + problem, cause);
        this.path = path;
    }

    /** @return the file or folder that could not be loaded */
    public Path path() {
        return path;
    }
}
