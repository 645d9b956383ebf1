package dev.appclient;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.TimeoutException;

/**
 * A streamed run: one {@link RunAnswer} per server-sent message, read as they arrive
 * (docs/protocol.md section 5).
 *
 * <p>Iterate it once ({@code for (RunAnswer part : stream)}) or call {@link #collect()} for the
 * accumulated answer. A stream that closes before its final {@code success}, {@code interrupt}
 * or {@code error} event raises {@link StreamInterruptedException} instead of ending quietly
 * with a short answer; an {@code error} event raises {@link RunException}. Either is raised once
 * every message read before it has been delivered. A server silent for
 * longer than the read timeout raises {@link RequestTimeoutException}. Close it (or use
 * try-with-resources) to release the connection early; {@link #close()} may be called from
 * another thread (a "stop" button), and a read blocked there then ends without an error.
 *
 * <p>A message counts as final when one of its events is terminal, when its last event carries
 * tool calls, or when it says {@code is_completion: true} (the same rule as the Python client).
 */
public final class RunStream implements Iterable<RunAnswer>, Iterator<RunAnswer>, AutoCloseable {
    /** The longest SSE line accepted (the protocol keeps lines under 1 MiB). */
    static final int MAX_LINE_BYTES = 16 * 1024 * 1024;

    private final BodyChunks body;
    private final SseDecoder decoder = new SseDecoder(MAX_LINE_BYTES);
    /** Collects a body that is not SSE (a JSON answer to a stream request), else null. */
    private final ByteArrayOutputStream plainBody;
    private final Duration idleTimeout;
    private final String requestId;
    private final String description;
    /** The token, masked if the server echoes it in an error event. */
    private final String secret;
    private final Deque<RunAnswer> ready = new ArrayDeque<>();

    private final StringBuilder answer = new StringBuilder();
    private final List<Event> events = new ArrayList<>();
    private RunAnswer last;
    private int messages;
    private boolean finalSeen;
    private volatile boolean ended;
    /** Set by {@link #close()}, possibly from another thread. */
    private volatile boolean closed;
    /** The error that ended the stream, raised once the messages read before it are delivered. */
    private AppClientException failure;
    private boolean iterated;

    RunStream(
            BodyChunks body,
            boolean eventStream,
            Duration idleTimeout,
            String requestId,
            String description,
            String secret) {
        this.body = body;
        this.secret = secret;
        this.plainBody = eventStream ? null : new ByteArrayOutputStream();
        this.idleTimeout = idleTimeout;
        this.requestId = requestId;
        this.description = description;
    }

    /**
     * Returns this stream as the iterator; a stream can be iterated once.
     *
     * @return this stream
     * @throws IllegalStateException on a second call
     */
    @Override
    public Iterator<RunAnswer> iterator() {
        if (iterated) {
            throw new IllegalStateException("a RunStream can be iterated only once");
        }
        iterated = true;
        return this;
    }

    /**
     * Reads until the next message or the end of the stream.
     *
     * @return true when another message is available; false once the stream is closed
     * @throws StreamInterruptedException when the stream ended before its final event
     * @throws RunException when the run reported an error event
     * @throws RequestTimeoutException when the server was silent past the read timeout
     */
    @Override
    public boolean hasNext() {
        while (ready.isEmpty() && !ended) {
            readChunk();
        }
        if (closed) {
            return false;
        }
        if (ready.isEmpty() && failure != null) {
            AppClientException error = failure;
            failure = null;
            throw error;
        }
        return !ready.isEmpty();
    }

    /**
     * Returns the next message.
     *
     * @return the message; its {@code answer} is this message's delta
     * @throws NoSuchElementException when the stream is over
     */
    @Override
    public RunAnswer next() {
        if (!hasNext()) {
            throw new NoSuchElementException("the stream is over");
        }
        return ready.poll();
    }

    /**
     * Reads the rest of the stream and returns the whole answer: every answer delta joined, every
     * event in order, and the last message's ids and {@code is_completion}.
     *
     * @return the accumulated answer
     * @throws StreamInterruptedException when the stream ended before its final event
     * @throws RunException when the run reported an error event
     */
    public RunAnswer collect() {
        while (hasNext()) {
            next();
        }
        return accumulated();
    }

    /**
     * Returns the tool calls of the last message read so far (call after {@link #collect()}, or
     * after iterating, to get the round's calls).
     *
     * @return the calls, or an empty list
     */
    public List<ToolCall> toolCalls() {
        return last == null ? List.of() : last.toolCalls();
    }

    /** @return how many messages were read so far */
    public int messageCount() {
        return messages;
    }

    /**
     * Stops reading and releases the connection; later iteration ends at once. Safe to call more
     * than once, and from another thread: a read blocked there wakes up and ends without an error.
     */
    @Override
    public void close() {
        closed = true;
        release();
    }

    private void release() {
        ended = true;
        body.cancel();
    }

    private RunAnswer accumulated() {
        if (last == null) {
            return new RunAnswer(requestId, "", "", "", "", false, List.of());
        }
        return new RunAnswer(
                last.requestId(),
                last.date(),
                answer.toString(),
                last.conversationId(),
                last.messageId(),
                last.isCompletion(),
                events);
    }

    private void readChunk() {
        byte[] chunk;
        try {
            chunk = body.next(idleTimeout);
        } catch (TimeoutException silent) {
            release();
            throw new RequestTimeoutException(
                    description + ": no stream data for " + idleTimeout.toMillis() + " ms after "
                            + messages + " message(s)",
                    silent);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            release();
            throw new TransportException(description + ": interrupted while streaming", interrupted);
        } catch (IOException broken) {
            release();
            if (finalSeen || closed) {
                return; // the run is complete (or abandoned): a reset then loses nothing
            }
            throw interrupted("the connection failed (" + broken.getMessage() + ")", broken);
        }
        if (closed) {
            return; // closed by the caller, maybe from another thread: the end is not a failure
        }
        try {
            if (chunk == null) {
                ended = true;
                finish();
            } else if (plainBody != null) {
                if (plainBody.size() + chunk.length > MAX_LINE_BYTES) {
                    throw new ResponseDecodeException(
                            description + ": the answer is longer than " + MAX_LINE_BYTES + " bytes",
                            requestId,
                            null);
                }
                plainBody.write(chunk, 0, chunk.length);
            } else {
                decoder.feed(chunk, 0, chunk.length).forEach(this::accept);
            }
        } catch (AppClientException bad) {
            release();
            failure = bad; // raised by hasNext once the messages read before it are delivered
        }
    }

    private void finish() {
        if (plainBody != null) {
            // Some gateways answer a stream request with one JSON body (an error, typically).
            accept(plainBody.toString(StandardCharsets.UTF_8));
        } else {
            decoder.finish().forEach(this::accept);
        }
        if (!finalSeen) {
            throw interrupted("the stream closed", null);
        }
    }

    private void accept(String payload) {
        if (payload.isBlank() || "[DONE]".equals(payload.trim())) {
            return; // not part of this protocol, but harmless when a proxy adds it
        }
        RunAnswer message = Responses.runAnswer(payload, requestId, secret);
        messages++;
        last = message;
        answer.append(message.answer());
        events.addAll(message.events());
        finalSeen |= message.isTerminal();
        ready.add(message);
    }

    private StreamInterruptedException interrupted(String what, Throwable cause) {
        return new StreamInterruptedException(
                description + ": " + what + " after " + messages
                        + " message(s) without a final success, interrupt or error event",
                last == null || last.requestId().isEmpty() ? requestId : last.requestId(),
                cause);
    }

}
