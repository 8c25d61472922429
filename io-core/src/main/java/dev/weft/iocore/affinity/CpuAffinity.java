package dev.weft.iocore.affinity;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.BitSet;
import java.util.Locale;
import java.util.Optional;

/**
 * CPU affinity of the calling thread through libc's {@code sched_setaffinity(2)} and
 * {@code sched_getaffinity(2)}, called with Panama FFM (no JNI, no extra native library).
 *
 * <p>Both calls take {@code pid = 0}, which Linux reads as "the calling thread", so these methods
 * always act on {@link Thread#currentThread()}; pin a thread from inside it (an event loop pins itself
 * when it starts, see {@code CoreThreadFactory}).
 *
 * <p>The JVM must allow native access for this module: {@code --enable-native-access=ALL-UNNAMED}
 * (without it Java 25 prints a warning on first use; a future release will refuse).
 */
public final class CpuAffinity {

    /** glibc's {@code cpu_set_t} is 1024 bits; the kernel accepts any multiple of {@code sizeof(long)}. */
    private static final int DEFAULT_MASK_BYTES = 128;
    /** Upper bound when growing the mask for hosts with more than 1024 CPUs (EINVAL means "too small"). */
    private static final int MAX_MASK_BYTES = 1 << 16;

    private static final int EPERM = 1;
    private static final int ESRCH = 3;
    private static final int EFAULT = 14;
    private static final int EINVAL = 22;

    private static final Native NATIVE = Native.load();

    private CpuAffinity() {
    }

    /** True on Linux when libc's affinity calls were found; false elsewhere (pinning is then refused). */
    public static boolean isSupported() {
        return NATIVE.handles != null;
    }

    /** Why affinity is unsupported here, or empty when {@link #isSupported()}. */
    public static Optional<String> unsupportedReason() {
        return Optional.ofNullable(NATIVE.unsupportedReason);
    }

    /**
     * Pins the calling thread to exactly one CPU.
     *
     * @throws IllegalArgumentException when {@code cpu} is negative
     * @throws CpuAffinityException     when the kernel refuses, naming the cpu and errno (e.g. EINVAL when
     *                                  the CPU is offline or outside this process's cpuset)
     */
    public static void pinCurrentThread(int cpu) {
        if (cpu < 0) {
            throw new IllegalArgumentException("cpu must be >= 0, was " + cpu);
        }
        BitSet one = new BitSet(cpu + 1);
        one.set(cpu);
        setCurrentThreadAffinity(one);
    }

    /**
     * Restricts the calling thread to {@code cpus}.
     *
     * @throws IllegalArgumentException when {@code cpus} is empty
     * @throws CpuAffinityException     when the kernel refuses, naming the CPUs and errno
     */
    public static void setCurrentThreadAffinity(BitSet cpus) {
        if (cpus.isEmpty()) {
            throw new IllegalArgumentException("cpu set must not be empty");
        }
        Handles handles = requireSupported();
        long[] words = cpus.toLongArray();
        // A multiple of sizeof(long), never smaller than glibc's cpu_set_t.
        long maskBytes = Math.max(DEFAULT_MASK_BYTES, (long) words.length * Long.BYTES);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mask = arena.allocate(maskBytes, Long.BYTES);
            // cpu_set_t is an array of unsigned long; CPU n is bit (n % 64) of word n / 64, the same
            // layout as BitSet.toLongArray(), written in native byte order.
            MemorySegment.copy(words, 0, mask, JAVA_LONG, 0, words.length);
            MemorySegment callState = arena.allocate(Handles.CALL_STATE);
            int rc = (int) handles.setAffinity.invokeExact(callState, 0, maskBytes, mask);
            if (rc != 0) {
                int errno = (int) Handles.ERRNO.get(callState, 0L);
                throw new CpuAffinityException(errno, "sched_setaffinity failed setting thread '"
                        + Thread.currentThread().getName() + "' to cpu " + CpuList.format(cpus)
                        + ": " + describeErrno(errno));
            }
        } catch (CpuAffinityException | IllegalArgumentException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("sched_setaffinity downcall failed", t);
        }
    }

    /**
     * The CPUs the kernel lets the calling thread run on (its affinity mask, already narrowed by any
     * cpuset or container limit).
     *
     * @throws CpuAffinityException when the kernel refuses, naming the errno
     */
    public static BitSet currentThreadAffinity() {
        Handles handles = requireSupported();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment callState = arena.allocate(Handles.CALL_STATE);
            for (long maskBytes = DEFAULT_MASK_BYTES; maskBytes <= MAX_MASK_BYTES; maskBytes *= 2) {
                MemorySegment mask = arena.allocate(maskBytes, Long.BYTES);
                int rc = (int) handles.getAffinity.invokeExact(callState, 0, maskBytes, mask);
                if (rc > 0) {
                    // The raw syscall returns the kernel's mask size in bytes; the rest is zero.
                    return BitSet.valueOf(mask.asSlice(0, rc).toArray(JAVA_LONG));
                }
                if (rc == 0) {
                    // glibc's wrapper returns 0 and zero-fills the tail.
                    return BitSet.valueOf(mask.toArray(JAVA_LONG));
                }
                int errno = (int) Handles.ERRNO.get(callState, 0L);
                if (errno != EINVAL) {
                    throw new CpuAffinityException(errno, "sched_getaffinity failed for thread '"
                            + Thread.currentThread().getName() + "': " + describeErrno(errno));
                }
                // EINVAL: the mask is smaller than the kernel's CPU count; try a bigger one.
            }
            throw new CpuAffinityException(EINVAL, "sched_getaffinity: more than " + MAX_MASK_BYTES * 8
                    + " CPUs are not supported");
        } catch (CpuAffinityException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("sched_getaffinity downcall failed", t);
        }
    }

    private static Handles requireSupported() {
        Handles handles = NATIVE.handles;
        if (handles == null) {
            throw new UnsupportedOperationException("CPU affinity is not supported here: " + NATIVE.unsupportedReason);
        }
        return handles;
    }

    static String describeErrno(int errno) {
        String meaning = switch (errno) {
            case EINVAL -> "EINVAL: no CPU in the mask is online and allowed for this process "
                    + "(cpuset, container or taskset limit), or the mask is too small";
            case EPERM -> "EPERM: not permitted to change this thread's affinity";
            case ESRCH -> "ESRCH: thread not found";
            case EFAULT -> "EFAULT: bad mask address";
            default -> "see errno(3)";
        };
        return "errno " + errno + " (" + meaning + ")";
    }

    /** The downcall handles, or the reason there are none. Loaded once; immutable. */
    private record Native(Handles handles, String unsupportedReason) {
        static Native load() {
            String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
            if (!os.startsWith("linux")) {
                return new Native(null, "sched_setaffinity is Linux-only; os.name is " + System.getProperty("os.name"));
            }
            try {
                return new Native(new Handles(Linker.nativeLinker()), null);
            } catch (RuntimeException | LinkageError e) {
                return new Native(null, e.toString());
            }
        }
    }

    private static final class Handles {
        static final MemoryLayout CALL_STATE = Linker.Option.captureStateLayout();
        static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

        // int sched_setaffinity(pid_t pid, size_t cpusetsize, const cpu_set_t *mask);
        // int sched_getaffinity(pid_t pid, size_t cpusetsize, cpu_set_t *mask);
        private static final FunctionDescriptor AFFINITY = FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS);

        final MethodHandle setAffinity;
        final MethodHandle getAffinity;

        @SuppressWarnings("restricted") // native access is the point; the JVM flag is documented above
        Handles(Linker linker) {
            SymbolLookup libc = linker.defaultLookup();
            Linker.Option errno = Linker.Option.captureCallState("errno");
            this.setAffinity = linker.downcallHandle(find(libc, "sched_setaffinity"), AFFINITY, errno);
            this.getAffinity = linker.downcallHandle(find(libc, "sched_getaffinity"), AFFINITY, errno);
        }

        private static MemorySegment find(SymbolLookup lookup, String name) {
            return lookup.find(name).orElseThrow(() -> new IllegalStateException("libc has no " + name));
        }
    }
}
