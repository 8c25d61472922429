package dev.weft.iocore.affinity;

/** The kernel refused an affinity call; {@link #errno()} is the value {@code errno} held right after it. */
public final class CpuAffinityException extends RuntimeException {

    private final int errno;

    CpuAffinityException(int errno, String message) {
        super(message);
        this.errno = errno;
    }

    /** The C {@code errno} captured by the downcall (e.g. 22 for EINVAL). */
    public int errno() {
        return errno;
    }
}
