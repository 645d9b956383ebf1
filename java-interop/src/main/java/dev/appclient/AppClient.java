package dev.appclient;

import com.google.gson.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.UUID;

/**
 * A client for an AppBuilder-protocol agent app: the hosted service, or appclient's reference
 * server ({@code appclient serve}).
 *
 * <p>One round trip of local tool calls:
 *
 * <pre>{@code
 * AppClient client = AppClient.builder().baseUrl(url).token(token).appId(appId).build();
 * String conversation = client.createConversation();
 * RunAnswer first = client.run(RunRequest.builder(conversation)
 *         .query("What's the weather in Tokyo?").tools(ToolFiles.load(toolsDir)).build());
 * RunRequest.Builder outputs = RunRequest.builder(conversation);
 * for (ToolCall call : first.toolCalls()) {
 *     outputs.toolOutput(call.id(), myTools.call(call.name(), call.arguments()));
 * }
 * RunAnswer answer = client.run(outputs.build());
 * }</pre>
 *
 * <p>Every method sends one request and never retries (like the official Java SDK): a failure
 * raises the matching {@link AppClientException}, and the caller decides. A run may be repeated
 * by sending the same {@link RunRequest} again: its {@code Idempotency-Key} lets a deduplicating
 * server answer the repeat without running it twice. Instances are
 * immutable and thread-safe; share one per app.
 */
public final class AppClient {
    /** The hosted service, used when no base URL is configured. */
    public static final String DEFAULT_BASE_URL = "https://qianfan.baidubce.com";
    /** Environment variable (or system property) holding the token, as in the official SDKs. */
    public static final String ENV_TOKEN = "APPBUILDER_TOKEN";
    /** Environment variable (or system property) holding the base URL, as in the official SDKs. */
    public static final String ENV_BASE_URL = "GATEWAY_URL_V2";
    /** How long to wait for a connection. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** How long to wait for the response headers, and then between two reads of the body. */
    public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(120);

    static final String PATH_CONVERSATION = "/v2/app/conversation";
    static final String PATH_RUNS = "/v2/app/conversation/runs";
    static final String PATH_FILE_UPLOAD = "/v2/app/conversation/file/upload";
    static final String PATH_FEEDBACK = "/v2/app/conversation/feedback";
    static final String HEADER_REQUEST_ID = "X-Appbuilder-Request-Id";
    static final String HEADER_IDEMPOTENCY_KEY = "Idempotency-Key";
    private static final String USER_AGENT = "appclient-java/0.1";

    private final String baseUrl;
    private final String authorization;
    /** The bare token, only to mask it where a server echoes it in an error. */
    private final String token;
    private final String appId;
    private final Duration readTimeout;
    private final Exchange exchange;

    private AppClient(Builder builder) {
        this.baseUrl = builder.baseUrl;
        this.authorization = builder.token.startsWith("Bearer") ? builder.token : "Bearer " + builder.token;
        this.token = builder.token.startsWith("Bearer") ? builder.token.substring(6).strip() : builder.token;
        this.appId = builder.appId;
        this.readTimeout = builder.readTimeout;
        HttpClient http = builder.httpClient != null
                ? builder.httpClient
                : HttpClient.newBuilder()
                        .version(HttpClient.Version.HTTP_1_1) // no h2c upgrade dance on plain http
                        .connectTimeout(builder.connectTimeout)
                        .followRedirects(HttpClient.Redirect.NEVER)
                        .build();
        this.exchange = new Exchange(http, token, readTimeout);
    }

    /** @return a builder whose token and base URL default to the environment */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the app this client runs */
    public String appId() {
        return appId;
    }

    /** @return the base URL requests go to, without a trailing slash */
    public String baseUrl() {
        return baseUrl;
    }

    /**
     * Starts a conversation: the server-side state that keeps the tools and pending tool calls.
     *
     * @return the new conversation's id
     * @throws AppClientException when the server refuses or cannot be reached
     */
    public String createConversation() {
        JsonObject body = new JsonObject();
        body.addProperty("app_id", appId);
        Exchange.Answer answer = exchange.send(post(PATH_CONVERSATION, json(body)), "create conversation");
        return Responses.requiredString(answer.text(), "conversation_id", answer.requestId(), token);
    }

    /**
     * Runs the app and waits for the whole answer.
     *
     * @param request what to send
     * @return the answer; {@link RunAnswer#toolCalls()} is non-empty when local tools must run
     * @throws RunException when the run failed (a top-level error or an error event)
     * @throws AppClientException for transport and HTTP errors
     */
    public RunAnswer run(RunRequest request) {
        Exchange.Answer answer = exchange.send(
                post(PATH_RUNS, json(request.toJson(appId, false)))
                        .header(HEADER_IDEMPOTENCY_KEY, request.idempotencyKey()),
                "run");
        return Responses.runAnswer(answer.text(), answer.requestId(), token);
    }

    /**
     * Runs the app and streams the answer as it is produced.
     *
     * @param request what to send
     * @return the open stream; close it when not reading it to the end
     * @throws AppClientException for transport and HTTP errors before the stream starts
     */
    public RunStream runStream(RunRequest request) {
        HttpRequest.Builder post = post(PATH_RUNS, json(request.toJson(appId, true)))
                .header("Accept", "text/event-stream")
                .header(HEADER_IDEMPOTENCY_KEY, request.idempotencyKey());
        Exchange.Opened opened = exchange.open(post, "stream run");
        String type = opened.response().headers().firstValue("Content-Type").orElse("");
        return new RunStream(
                opened.body(),
                type.toLowerCase(Locale.ROOT).contains("text/event-stream"),
                readTimeout,
                opened.requestId(),
                "stream run",
                token);
    }

    /**
     * Uploads a local file to a conversation, for {@link RunRequest.Builder#fileIds}.
     *
     * @param conversationId the conversation
     * @param file the file to send (its base name is the upload's file name)
     * @return the file id
     * @throws InvalidRequestException when the conversation id is empty or the file cannot be read
     */
    public String uploadFile(String conversationId, Path file) {
        requireText(conversationId, "conversationId");
        if (file == null) {
            throw new InvalidRequestException("file must be a path, got null");
        }
        byte[] content;
        try {
            content = Files.readAllBytes(file);
        } catch (IOException error) {
            throw new InvalidRequestException("cannot read " + file + ": " + error.getMessage(), error);
        }
        Multipart form = new Multipart()
                .field("app_id", appId)
                .field("conversation_id", conversationId)
                .file("file", file.getFileName().toString(), content);
        return upload(form);
    }

    /**
     * Lets the server fetch a file by URL into a conversation, for
     * {@link RunRequest.Builder#fileIds}.
     *
     * @param conversationId the conversation
     * @param fileUrl the file's URL
     * @return the file id
     * @throws InvalidRequestException when the conversation id or the URL is empty
     */
    public String uploadFileUrl(String conversationId, String fileUrl) {
        requireText(conversationId, "conversationId");
        requireText(fileUrl, "fileUrl");
        Multipart form = new Multipart()
                .field("app_id", appId)
                .field("conversation_id", conversationId)
                .field("file_url", fileUrl);
        return upload(form);
    }

    /**
     * Rates an answer of the app.
     *
     * @param conversationId the conversation of the answer
     * @param messageId the answer's {@link RunAnswer#messageId()}
     * @param type the rating
     * @return the request id of the server's acknowledgement
     * @throws InvalidRequestException when an id is empty or the type is null
     * @throws AppClientException when the server refuses or cannot be reached
     */
    public String feedback(String conversationId, String messageId, FeedbackType type) {
        return feedback(conversationId, messageId, type, null, null);
    }

    /**
     * Rates an answer of the app, saying why.
     *
     * @param conversationId the conversation of the answer
     * @param messageId the answer's {@link RunAnswer#messageId()}
     * @param type the rating
     * @param flag reasons picked from the app's list (for downvotes), or {@code null}
     * @param reason a free-text reason, or {@code null}
     * @return the request id of the server's acknowledgement
     * @throws InvalidRequestException when an id is empty, the type is null or a flag is null
     * @throws AppClientException when the server refuses or cannot be reached
     */
    public String feedback(
            String conversationId, String messageId, FeedbackType type, List<String> flag, String reason) {
        requireText(conversationId, "conversationId");
        requireText(messageId, "messageId");
        if (type == null) {
            throw new InvalidRequestException("type must be UPVOTE, DOWNVOTE or CANCEL, got null");
        }
        JsonObject body = new JsonObject();
        body.addProperty("app_id", appId);
        body.addProperty("conversation_id", conversationId);
        body.addProperty("message_id", messageId);
        body.addProperty("type", type.wireValue());
        if (flag != null) {
            if (flag.stream().anyMatch(Objects::isNull)) {
                throw new InvalidRequestException("flag must hold strings, got a null in " + flag);
            }
            body.add("flag", Json.strings(flag));
        }
        if (reason != null) {
            body.addProperty("reason", reason);
        }
        Exchange.Answer answer = exchange.send(post(PATH_FEEDBACK, json(body)), "feedback");
        return Responses.acknowledgement(answer.text(), answer.requestId(), token);
    }

    /** Shows the base URL and app id; never the token. */
    @Override
    public String toString() {
        return "AppClient{baseUrl=" + baseUrl + ", appId=" + appId + "}";
    }

    private String upload(Multipart form) {
        HttpRequest.Builder post = request(PATH_FILE_UPLOAD)
                .header("Content-Type", form.contentType())
                .POST(HttpRequest.BodyPublishers.ofByteArray(form.toBytes()));
        Exchange.Answer answer = exchange.send(post, "upload file");
        return Responses.requiredString(answer.text(), "id", answer.requestId(), token);
    }

    private static void requireText(String value, String name) {
        if (value == null || value.isBlank()) {
            throw new InvalidRequestException(name + " must be a non-empty string, got " + value);
        }
    }

    private static HttpRequest.BodyPublisher json(JsonObject body) {
        return HttpRequest.BodyPublishers.ofString(Json.GSON.toJson(body), StandardCharsets.UTF_8);
    }

    private HttpRequest.Builder post(String path, HttpRequest.BodyPublisher body) {
        return request(path).header("Content-Type", "application/json").POST(body);
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(baseUrl + path))
                .timeout(readTimeout)
                .header("Authorization", authorization)
                .header("User-Agent", USER_AGENT)
                .header(HEADER_REQUEST_ID, UUID.randomUUID().toString());
    }

    /**
     * Configures an {@link AppClient}. The token and base URL default to the system property or
     * environment variable {@code APPBUILDER_TOKEN} / {@code GATEWAY_URL_V2}, as in the official
     * SDKs; the app id has no default.
     */
    public static final class Builder {
        private String baseUrl = setting(ENV_BASE_URL, DEFAULT_BASE_URL);
        private String token = setting(ENV_TOKEN, "");
        private String appId = "";
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Duration readTimeout = DEFAULT_READ_TIMEOUT;
        private HttpClient httpClient;

        private Builder() {}

        /**
         * Sets where the app is served; paths {@code /v2/...} are appended.
         *
         * @param baseUrl e.g. {@code http://127.0.0.1:8000} or the hosted gateway
         * @return this builder
         */
        public Builder baseUrl(String baseUrl) {
            this.baseUrl = baseUrl;
            return this;
        }

        /**
         * Sets the app's secret token (sent as {@code Authorization: Bearer <token>}).
         *
         * @param token the token, with or without the {@code Bearer} prefix
         * @return this builder
         */
        public Builder token(String token) {
            this.token = token;
            return this;
        }

        /**
         * Sets the app to run.
         *
         * @param appId the app's id
         * @return this builder
         */
        public Builder appId(String appId) {
            this.appId = appId;
            return this;
        }

        /**
         * Sets how long to wait for a connection (ignored with {@link #httpClient}).
         *
         * @param timeout a positive duration
         * @return this builder
         */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = positive(timeout, "connectTimeout");
            return this;
        }

        /**
         * Sets how long to wait for the response headers, and then between two reads of the
         * body (so a long stream that keeps talking never times out).
         *
         * @param timeout a positive duration
         * @return this builder
         */
        public Builder readTimeout(Duration timeout) {
            this.readTimeout = positive(timeout, "readTimeout");
            return this;
        }

        /**
         * Uses a configured JDK client (proxy, TLS, executor) instead of a default one.
         *
         * @param httpClient the client
         * @return this builder
         */
        public Builder httpClient(HttpClient httpClient) {
            this.httpClient = httpClient;
            return this;
        }

        /**
         * Checks the settings and builds the client.
         *
         * @return the client
         * @throws InvalidRequestException naming the missing or invalid setting
         */
        public AppClient build() {
            if (appId == null || appId.isBlank()) {
                throw new InvalidRequestException("appId is required: pass the app's id to appId(...)");
            }
            if (token == null || token.isBlank()) {
                throw new InvalidRequestException(
                        "a token is required: pass token(...) or set " + ENV_TOKEN);
            }
            token = token.strip();
            // A header cannot carry these; the JDK's own error would quote the whole token.
            if (token.chars().anyMatch(c -> c < 0x20 || c >= 0x7f)) {
                throw new InvalidRequestException(
                        "the token holds line breaks, control or non-ASCII characters; check its value");
            }
            String url = baseUrl == null ? "" : baseUrl.trim();
            while (url.endsWith("/")) {
                url = url.substring(0, url.length() - 1);
            }
            URI uri;
            try {
                uri = URI.create(url);
            } catch (IllegalArgumentException invalid) {
                throw new InvalidRequestException("baseUrl is not a URL: " + Json.preview(url), invalid);
            }
            if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null) {
                throw new InvalidRequestException(
                        "baseUrl must be an http or https URL with a host, got " + Json.preview(url));
            }
            baseUrl = url;
            return new AppClient(this);
        }

        private static Duration positive(Duration timeout, String name) {
            if (timeout == null || timeout.isNegative() || timeout.isZero()) {
                throw new InvalidRequestException(name + " must be a positive duration, got " + timeout);
            }
            return timeout;
        }

        private static String setting(String name, String fallback) {
            String value = System.getProperty(name);
            if (value == null || value.isBlank()) {
                value = System.getenv(name);
            }
            return value == null || value.isBlank() ? fallback : value.trim();
        }
    }
}
