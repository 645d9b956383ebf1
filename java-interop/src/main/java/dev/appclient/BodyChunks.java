package dev.appclient;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A response body read chunk by chunk, with a time limit on each wait (package-private).
 *
 * <p>The JDK's {@code HttpClient} has a timeout for the response headers but none between two
 * reads of the body; a stream whose server goes silent would block forever. Subscribing to the
 * body's publisher and polling a queue gives that idle timeout without extra threads, and
 * requesting one item at a time keeps memory bounded however fast the server writes.
 */
final class BodyChunks implements Flow.Subscriber<List<ByteBuffer>> {
    private static final Object END = new Object();

    private final BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    private volatile Flow.Subscription subscription;
    private volatile boolean cancelled;
    private volatile boolean ended;

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
        this.subscription = subscription;
        if (cancelled) {
            subscription.cancel();
        } else {
            subscription.request(1);
        }
    }

    @Override
    public void onNext(List<ByteBuffer> buffers) {
        queue.add(buffers);
    }

    @Override
    public void onError(Throwable error) {
        queue.add(error);
    }

    @Override
    public void onComplete() {
        queue.add(END);
    }

    /**
     * Waits for the next chunk.
     *
     * @param idleTimeout the longest wait
     * @return the chunk's bytes (possibly empty), or {@code null} at the end of the body
     * @throws IOException when the connection failed
     * @throws TimeoutException when nothing arrived in time
     * @throws InterruptedException when the thread was interrupted
     */
    byte[] next(Duration idleTimeout) throws IOException, TimeoutException, InterruptedException {
        if (ended) {
            return null;
        }
        Object item = queue.poll(idleTimeout.toNanos(), TimeUnit.NANOSECONDS);
        if (item == null) {
            throw new TimeoutException("no data for " + idleTimeout.toMillis() + " ms");
        }
        if (item == END) {
            ended = true;
            return null;
        }
        if (item instanceof Throwable) {
            ended = true;
            Throwable error = (Throwable) item;
            throw error instanceof IOException ? (IOException) error : new IOException(error);
        }
        @SuppressWarnings("unchecked")
        List<ByteBuffer> buffers = (List<ByteBuffer>) item;
        int size = buffers.stream().mapToInt(ByteBuffer::remaining).sum();
        byte[] bytes = new byte[size];
        int offset = 0;
        for (ByteBuffer buffer : buffers) {
            int count = buffer.remaining();
            buffer.get(bytes, offset, count);
            offset += count;
        }
        subscription.request(1);
        return bytes;
    }

    /**
     * Stops the body: the connection is released, and a wait in progress (on another thread)
     * and later waits report the end.
     */
    void cancel() {
        cancelled = true;
        ended = true;
        Flow.Subscription current = subscription;
        if (current != null) {
            current.cancel();
        }
        queue.add(END); // a cancelled subscription sends nothing more: wake a waiting reader
    }
}
