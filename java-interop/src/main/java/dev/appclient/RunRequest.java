package dev.appclient;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * What to send in one run (docs/protocol.md section 3), built with {@link #builder(String)}.
 *
 * <p>The first run of a round trip carries the query and the tools; the next ones carry the tool
 * outputs of the previous round, without query or tools (the conversation keeps its tools).
 * Whether the run streams is decided by the method that sends it: {@link AppClient#run} or
 * {@link AppClient#runStream}.
 *
 * <p>Each request has an {@link #idempotencyKey()}, sent as the {@code Idempotency-Key} header
 * every time this same object is sent: after a timeout or a 5xx, sending it again (with the same
 * method) is answered by a deduplicating server, such as appclient's reference server, with the
 * first run's answer, so tool outputs are never applied twice.
 *
 * <pre>{@code
 * RunRequest first = RunRequest.builder(conversationId)
 *         .query("What's the weather in Tokyo?")
 *         .tools(ToolFiles.load(Path.of("tools")))
 *         .build();
 * }</pre>
 */
public final class RunRequest {
    private final String conversationId;
    private final String query;
    private final List<String> fileIds;
    private final List<Tool> tools;
    private final List<ToolOutput> toolOutputs;
    private final ToolChoice toolChoice;
    private final String endUserId;
    private final String idempotencyKey;
    private final JsonObject action;
    private final JsonObject parameters;
    private final JsonObject customMetadata;
    private final JsonArray mcpAuthorization;

    /** The longest idempotency key a server accepts (as the Python client and server agree). */
    static final int MAX_IDEMPOTENCY_KEY_LENGTH = 255;

    private RunRequest(Builder builder) {
        this.conversationId = builder.conversationId;
        this.query = builder.query;
        this.fileIds = List.copyOf(builder.fileIds);
        this.tools = List.copyOf(builder.tools);
        this.toolOutputs = List.copyOf(builder.toolOutputs);
        this.toolChoice = builder.toolChoice;
        this.endUserId = builder.endUserId;
        this.action = copy(builder.action);
        this.parameters = copy(builder.parameters);
        this.customMetadata = copy(builder.customMetadata);
        this.mcpAuthorization = builder.mcpAuthorization == null ? null : builder.mcpAuthorization.deepCopy();
        this.idempotencyKey =
                builder.idempotencyKey != null ? builder.idempotencyKey : UUID.randomUUID().toString();
    }

    /**
     * Starts a request for a conversation.
     *
     * @param conversationId the id from {@link AppClient#createConversation()}
     * @return a builder
     */
    public static Builder builder(String conversationId) {
        return new Builder(conversationId);
    }

    /** @return the conversation this run belongs to */
    public String conversationId() {
        return conversationId;
    }

    /** @return the user's message ({@code ""} on a tool-output run) */
    public String query() {
        return query;
    }

    /** @return the uploaded files the agent may read */
    public List<String> fileIds() {
        return fileIds;
    }

    /** @return the local tools declared in this run */
    public List<Tool> tools() {
        return tools;
    }

    /** @return the answers to the previous round's tool calls */
    public List<ToolOutput> toolOutputs() {
        return toolOutputs;
    }

    /** @return the tool choice, or {@code null} to let the agent decide */
    public ToolChoice toolChoice() {
        return toolChoice;
    }

    /** @return the end user on whose behalf the app runs, or {@code null} */
    public String endUserId() {
        return endUserId;
    }

    /** @return a copy of the {@code action} object (e.g. resuming an interrupt), or {@code null} */
    public JsonObject action() {
        return copy(action);
    }

    /** @return a copy of the app's input {@code parameters}, or {@code null} */
    public JsonObject parameters() {
        return copy(parameters);
    }

    /** @return a copy of the {@code custom_metadata} object, or {@code null} */
    public JsonObject customMetadata() {
        return copy(customMetadata);
    }

    private static JsonObject copy(JsonObject object) {
        return object == null ? null : object.deepCopy();
    }

    /** @return the {@code Idempotency-Key} sent with this request, the same on every send */
    public String idempotencyKey() {
        return idempotencyKey;
    }

    /**
     * Builds the JSON body. Empty lists and unset options are left out, as the official Java SDK
     * does; a server treats them as absent.
     *
     * @param appId the app the run is for
     * @param stream whether the answer streams
     * @return the body
     */
    JsonObject toJson(String appId, boolean stream) {
        JsonObject json = new JsonObject();
        json.addProperty("app_id", appId);
        json.addProperty("conversation_id", conversationId);
        json.addProperty("query", query);
        json.addProperty("stream", stream);
        if (!fileIds.isEmpty()) {
            json.add("file_ids", Json.strings(fileIds));
        }
        if (!tools.isEmpty()) {
            JsonArray array = new JsonArray();
            tools.forEach(tool -> array.add(tool.toJson()));
            json.add("tools", array);
        }
        if (!toolOutputs.isEmpty()) {
            JsonArray array = new JsonArray();
            toolOutputs.forEach(output -> array.add(output.toJson()));
            json.add("tool_outputs", array);
        }
        if (toolChoice != null) {
            json.add("tool_choice", toolChoice.toJson());
        }
        if (endUserId != null) {
            json.addProperty("end_user_id", endUserId);
        }
        if (action != null) {
            json.add("action", action.deepCopy());
        }
        if (parameters != null) {
            json.add("parameters", parameters.deepCopy());
        }
        if (customMetadata != null) {
            json.add("custom_metadata", customMetadata.deepCopy());
        }
        if (mcpAuthorization != null) {
            json.add("mcp_authorization", mcpAuthorization.deepCopy());
        }
        return json;
    }

    /** Collects the parts of a {@link RunRequest}; every setter returns the builder. */
    public static final class Builder {
        private final String conversationId;
        private String query = "";
        private final List<String> fileIds = new ArrayList<>();
        private final List<Tool> tools = new ArrayList<>();
        private final List<ToolOutput> toolOutputs = new ArrayList<>();
        private ToolChoice toolChoice;
        private String endUserId;
        private String idempotencyKey;
        private JsonObject action;
        private JsonObject parameters;
        private JsonObject customMetadata;
        private JsonArray mcpAuthorization;

        private Builder(String conversationId) {
            if (conversationId == null || conversationId.isEmpty()) {
                throw new InvalidRequestException("conversationId must be a non-empty string");
            }
            this.conversationId = conversationId;
        }

        /**
         * Sets the user's message.
         *
         * @param query the text; {@code null} means none
         * @return this builder
         */
        public Builder query(String query) {
            this.query = query == null ? "" : query;
            return this;
        }

        /**
         * Adds uploaded files the agent may read.
         *
         * @param fileIds ids from {@link AppClient#uploadFile}
         * @return this builder
         */
        public Builder fileIds(List<String> fileIds) {
            fileIds.forEach(id -> this.fileIds.add(Objects.requireNonNull(id, "file id")));
            return this;
        }

        /**
         * Adds local tools the agent may call.
         *
         * @param tools the tools, e.g. from {@link ToolFiles#load}
         * @return this builder
         */
        public Builder tools(List<Tool> tools) {
            tools.forEach(tool -> this.tools.add(Objects.requireNonNull(tool, "tool")));
            return this;
        }

        /**
         * Adds the answers to the previous round's tool calls (send all of a round at once).
         *
         * @param outputs the outputs
         * @return this builder
         */
        public Builder toolOutputs(List<ToolOutput> outputs) {
            outputs.forEach(output -> this.toolOutputs.add(Objects.requireNonNull(output, "tool output")));
            return this;
        }

        /**
         * Adds the answer to one tool call.
         *
         * @param toolCallId the {@link ToolCall#id()} answered
         * @param output the tool's result as text
         * @return this builder
         */
        public Builder toolOutput(String toolCallId, String output) {
            this.toolOutputs.add(new ToolOutput(toolCallId, output));
            return this;
        }

        /**
         * Lets the agent decide, or forces one tool.
         *
         * @param toolChoice the choice, or {@code null} to send none
         * @return this builder
         */
        public Builder toolChoice(ToolChoice toolChoice) {
            this.toolChoice = toolChoice;
            return this;
        }

        /**
         * Names the end user on whose behalf the app runs.
         *
         * @param endUserId the end user's id, or {@code null} to send none
         * @return this builder
         */
        public Builder endUserId(String endUserId) {
            this.endUserId = endUserId;
            return this;
        }

        /**
         * Sets the {@code action} object, sent as given (e.g. the official SDK's resume action).
         *
         * @param action the object (copied), or {@code null} to send none
         * @return this builder
         */
        public Builder action(JsonObject action) {
            this.action = action == null ? null : action.deepCopy();
            return this;
        }

        /**
         * Sets the app's input {@code parameters}, sent as given.
         *
         * @param parameters the object (copied), or {@code null} to send none
         * @return this builder
         */
        public Builder parameters(JsonObject parameters) {
            this.parameters = parameters == null ? null : parameters.deepCopy();
            return this;
        }

        /**
         * Sets the app's input {@code parameters} from plain Java values.
         *
         * @param parameters String, Number, Boolean, List and Map values, or {@code null}
         * @return this builder
         */
        public Builder parameters(Map<String, ?> parameters) {
            this.parameters = parameters == null ? null : Json.toObject(parameters);
            return this;
        }

        /**
         * Sets the {@code custom_metadata} object (e.g. {@code override_role_instruction}).
         *
         * @param customMetadata the object (copied), or {@code null} to send none
         * @return this builder
         */
        public Builder customMetadata(JsonObject customMetadata) {
            this.customMetadata = customMetadata == null ? null : customMetadata.deepCopy();
            return this;
        }

        /**
         * Sets the {@code mcp_authorization} list: credentials for the app's MCP servers.
         *
         * @param authorizations the objects (copied), or {@code null} to send none
         * @return this builder
         */
        public Builder mcpAuthorization(List<JsonObject> authorizations) {
            if (authorizations == null) {
                this.mcpAuthorization = null;
                return this;
            }
            JsonArray array = new JsonArray();
            authorizations.forEach(item -> array.add(Objects.requireNonNull(item, "mcp authorization").deepCopy()));
            this.mcpAuthorization = array;
            return this;
        }

        /**
         * Sets the {@code Idempotency-Key} instead of a fresh random one, e.g. to repeat a run from
         * another process after a crash.
         *
         * @param key at most 255 printable ASCII characters, or {@code null} for a random key
         * @return this builder
         */
        public Builder idempotencyKey(String key) {
            this.idempotencyKey = key;
            return this;
        }

        /**
         * Checks and builds the request.
         *
         * @return the request
         * @throws InvalidRequestException when two tools share a name, or the idempotency key is
         *     unusable
         */
        public RunRequest build() {
            if (idempotencyKey != null && (idempotencyKey.isBlank()
                    || idempotencyKey.length() > MAX_IDEMPOTENCY_KEY_LENGTH
                    || !idempotencyKey.chars().allMatch(c -> c >= 0x20 && c < 0x7f))) {
                throw new InvalidRequestException("idempotencyKey must be 1 to " + MAX_IDEMPOTENCY_KEY_LENGTH
                        + " printable ASCII characters, got " + Json.preview(idempotencyKey));
            }
            List<String> names = new ArrayList<>();
            for (Tool tool : tools) {
                if (!tool.name().isEmpty() && names.contains(tool.name())) {
                    throw new InvalidRequestException(
                            "tool names must be unique within a run; \"" + tool.name() + "\" appears twice");
                }
                names.add(tool.name());
            }
            return new RunRequest(this);
        }
    }
}
