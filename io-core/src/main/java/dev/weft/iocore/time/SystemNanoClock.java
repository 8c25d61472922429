package dev.weft.iocore.time;

/** {@link NanoClock} backed by {@link System#nanoTime()}: monotonic, unaffected by wall-clock changes. */
public final class SystemNanoClock implements NanoClock {

    /** The only instance; the class holds no state. */
    public static final SystemNanoClock INSTANCE = new SystemNanoClock();

    private SystemNanoClock() {
    }

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public String toString() {
        return "SystemNanoClock";
    }
}
