import dev.appclient.AppClient;
import dev.appclient.RunAnswer;
import dev.appclient.RunRequest;
import dev.appclient.RunStream;
import dev.appclient.Tool;
import dev.appclient.ToolCall;
import dev.appclient.ToolFiles;
import java.nio.file.Path;
import java.util.List;

/**
 * The seed's Java ToolCall example, written with appclient's Java client: load tools from JSON
 * files, ask a question, run the local tool calls, send the outputs, print the streamed answer.
 *
 * <p>Settings: {@code APPBUILDER_TOKEN}, {@code GATEWAY_URL_V2} (default: the hosted service)
 * and {@code APPBUILDER_APP_ID}, as environment variables or {@code -D} system properties.
 *
 * <pre>
 * java -cp build/classes:/usr/share/java/gson.jar examples/ToolCallRoundTrip.java TOOLS "query"
 * </pre>
 */
public final class ToolCallRoundTrip {
    private ToolCallRoundTrip() {}

    /**
     * Runs one question through the app with local tools.
     *
     * @param args the tool file or folder, then the question
     */
    public static void main(String[] args) {
        if (args.length != 2) {
            System.err.println("usage: ToolCallRoundTrip TOOLS_FILE_OR_DIR QUESTION");
            System.exit(2);
        }
        String appId = System.getProperty("APPBUILDER_APP_ID", System.getenv("APPBUILDER_APP_ID"));
        if (appId == null || appId.isBlank()) {
            System.err.println("set APPBUILDER_APP_ID (and APPBUILDER_TOKEN) to your app's id");
            System.exit(2);
        }
        AppClient client = AppClient.builder().appId(appId).build();
        List<Tool> tools = ToolFiles.load(Path.of(args[0]));
        String conversation = client.createConversation();

        RunAnswer answer = client.run(
                RunRequest.builder(conversation).query(args[1]).tools(tools).build());
        if (!answer.requiresToolOutputs()) {
            System.out.println(answer.answer()); // the app answered without local tools
            return;
        }
        while (answer.requiresToolOutputs()) {
            RunRequest.Builder outputs = RunRequest.builder(conversation);
            for (ToolCall call : answer.toolCalls()) {
                System.out.println("tool call: " + call.name() + " " + call.function().argumentsJson());
                outputs.toolOutput(call.id(), dispatch(call));
            }
            try (RunStream stream = client.runStream(outputs.build())) {
                stream.forEach(part -> System.out.print(part.answer()));
                answer = stream.collect();
            }
            System.out.println();
        }
    }

    /**
     * Runs one call and turns every failure into the call's output, so the agent learns what went
     * wrong and can answer (or ask again) instead of the program stopping mid round.
     */
    private static String dispatch(ToolCall call) {
        if (call.function().argumentsError() != null) {
            return "error: " + call.function().argumentsError();
        }
        try {
            return runLocally(call);
        } catch (RuntimeException failed) {
            return "error: the tool " + call.name() + " failed: " + failed.getMessage();
        }
    }

    /** Stands in for real local tools: a program maps each tool name to its own code here. */
    private static String runLocally(ToolCall call) {
        return "The local tool " + call.name() + " ran with " + call.function().argumentsJson()
                + ": 25 degrees and sunny.";
    }
}
