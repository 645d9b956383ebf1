package dev.appclient;

import java.util.Locale;
import java.util.Optional;

/**
 * Where the integration tests find their server: system property {@code appclient.test.NAME}
 * first, then environment variable {@code APPCLIENT_TEST_NAME} (camel case turned into
 * upper-case snake case, e.g. {@code baseUrl} -> {@code APPCLIENT_TEST_BASE_URL}).
 */
final class TestSettings {
    private TestSettings() {}

    static Optional<String> get(String name) {
        String value = System.getProperty("appclient.test." + name);
        if (value == null || value.isBlank()) {
            value = System.getenv("APPCLIENT_TEST_" + name.replaceAll("([A-Z])", "_$1").toUpperCase(Locale.ROOT));
        }
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.trim());
    }
}
