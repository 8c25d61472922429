package dev.weft.testkit.mirror;

import java.io.IOException;
import java.io.InputStream;

/**
 * Entry point of the child JVM that {@link MirrorMaker} starts: runs Kafka's dedicated MirrorMaker 2
 * ({@code org.apache.kafka.connect.mirror.MirrorMaker}) and exits when its standard input closes.
 *
 * <p>Why not run Kafka's main directly: a parent JVM that is SIGKILLed (a surefire fork timing out, say)
 * never runs its shutdown hooks, and a plain MM2 would then live on, retrying against brokers that are
 * gone. The parent holds this process's standard input open; its end of the pipe closes when the parent
 * dies, however it dies, and this JVM then exits (MM2's own shutdown hook stops its herders).
 *
 * <p>MM2 is reached by reflection because testkit compiles against Weft's Kafka line, not against the
 * 4.1.1 MirrorMaker class path this class runs on.
 */
public final class MirrorMakerMain {

    static final String MM2_MAIN = "org.apache.kafka.connect.mirror.MirrorMaker";

    private MirrorMakerMain() {
    }

    public static void main(String[] args) throws Throwable {
        Thread.ofPlatform().name("weft-mm2-parent-watch").daemon().start(MirrorMakerMain::exitWhenParentGoes);
        try {
            Class.forName(MM2_MAIN).getMethod("main", String[].class).invoke(null, (Object) args);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static void exitWhenParentGoes() {
        InputStream in = System.in;
        try {
            while (in.read() != -1) {
                // Nothing is sent on purpose; only the end of the stream matters.
            }
        } catch (IOException e) {
            // A broken pipe means the same as end of stream.
        }
        System.out.println("weft: standard input closed (the parent JVM is gone); stopping MirrorMaker");
        System.exit(0);
    }
}
