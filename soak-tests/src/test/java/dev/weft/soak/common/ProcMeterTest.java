package dev.weft.soak.common;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The meter on this JVM's own process, and the per-MB arithmetic. */
class ProcMeterTest {

    static final long SELF = ProcessHandle.current().pid();

    @Test
    void measuresThisProcess(@TempDir Path dir) throws Exception {
        ProcMeter m = ProcMeter.start(SELF);
        Path f = dir.resolve("x");
        for (int i = 0; i < 200; i++) {
            Files.write(f, new byte[100], StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            Files.readAllBytes(f);
            Thread.sleep(0, 1000); // a voluntary switch or two
        }
        ProcMeter.Usage u = m.stop(2_000_000);
        assertTrue(u.syscw() >= 200, u.toString());
        assertTrue(u.syscr() >= 200, u.toString());
        assertTrue(u.contextSwitches() > 0, u.toString());
        assertTrue(u.cpuSeconds() >= 0, u.toString());
        if (PerfSyscalls.unavailable() == null) {
            assertNotNull(u.syscalls(), u.toString());
            assertTrue(u.syscalls() >= u.syscr() + u.syscw(), "perf counts every system call, the io ones among them: " + u);
        } else {
            assertNull(u.syscalls());
            assertEquals(PerfSyscalls.unavailable(), u.syscallsAbsent());
        }
    }

    @Test
    void perMegabyteFiguresAndAbsentSyscalls() {
        ProcMeter.Usage a = new ProcMeter.Usage(0.5, 300, 40, 20, 1000L, null, 2_000_000);
        Map<String, Object> m = a.toMap("produce");
        assertEquals(250.0, m.get("cpuSecondsPerGB"));
        assertEquals(500.0, m.get("syscallsPerMB"));
        assertEquals(150.0, m.get("contextSwitchesPerMB"));
        assertEquals(20.0, m.get("syscrPerMB"));
        assertEquals(10.0, m.get("syscwPerMB"));
        ProcMeter.Usage b = new ProcMeter.Usage(0.5, 100, 0, 0, null, "perf not on PATH", 2_000_000);
        ProcMeter.Usage sum = ProcMeter.Usage.NONE.plus(a).plus(b);
        assertNull(sum.syscalls(), "one slice without a count makes the sum absent, not smaller");
        assertEquals("perf not on PATH", sum.syscallsAbsent());
        Map<String, Object> s = sum.toMap("produce");
        assertFalse(s.containsKey("syscallsPerMB"));
        assertEquals("perf not on PATH", s.get("syscallsAbsent"));
        assertEquals(100.0, s.get("contextSwitchesPerMB"));
        assertEquals(250.0, sum.cpuSecondsPerGB());
        assertNull(new ProcMeter.Usage(1, 1, 1, 1, 1L, null, 0).toMap("consume").get("syscallsPerMB"), "nothing moved: no figure");
    }

    @Test
    void perfOutputParses() {
        assertEquals(new PerfSyscalls.Count(3544L, null), PerfSyscalls.parse("3544,,raw_syscalls:sys_enter,297365204,100.00,,\n"));
        assertEquals(new PerfSyscalls.Count(null, "perf stat counted <not counted>"),
                PerfSyscalls.parse("<not counted>,,raw_syscalls:sys_enter,0,100.00,,"));
        assertNull(PerfSyscalls.parse("Problems finding threads of monitor\n").syscalls());
    }

    @Test
    void aGoneProcessIsAClearError() {
        assertThrows(IllegalStateException.class, () -> ProcMeter.start(Integer.MAX_VALUE));
        assertFalse(ProcStat.exists(Integer.MAX_VALUE));
        assertEquals(-1, ProcStat.contextSwitches(Integer.MAX_VALUE));
    }
}
