package dev.appclient;

import java.util.Locale;

/** How a user rated an answer, for {@link AppClient#feedback} (docs/protocol.md section 2). */
public enum FeedbackType {
    /** The answer was good. */
    UPVOTE,
    /** The answer was bad; {@code flag} and {@code reason} may say why. */
    DOWNVOTE,
    /** Withdraws an earlier rating. */
    CANCEL;

    /** @return the wire value: {@code upvote}, {@code downvote} or {@code cancel} */
    String wireValue() {
        return name().toLowerCase(Locale.ROOT);
    }
}
