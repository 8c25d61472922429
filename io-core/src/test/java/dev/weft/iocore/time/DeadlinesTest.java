package dev.weft.iocore.time;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DeadlinesTest {

    /** The SenderTest pattern: step to just short of a timeout, then past it. */
    @Test
    void timeoutFiresOnlyOnceTimeIsPastTheDeadline() {
        ManualNanoClock clock = new ManualNanoClock(1_000);
        long deadline = Deadlines.deadline(clock.nanoTime(), 500);

        clock.advance(499);
        assertFalse(Deadlines.hasPassed(deadline, clock.nanoTime()));
        assertEquals(1, Deadlines.remaining(deadline, clock.nanoTime()));

        clock.advance(1);
        assertFalse(Deadlines.hasPassed(deadline, clock.nanoTime()), "at exactly the deadline it has not passed");
        assertEquals(0, Deadlines.remaining(deadline, clock.nanoTime()));

        clock.advance(1);
        assertTrue(Deadlines.hasPassed(deadline, clock.nanoTime()));
        assertEquals(0, Deadlines.remaining(deadline, clock.nanoTime()));
    }

    @Test
    void comparisonsHoldAcrossTheLongWrap() {
        ManualNanoClock clock = new ManualNanoClock(Long.MAX_VALUE - 10);
        long deadline = Deadlines.deadline(clock.nanoTime(), 20);
        assertTrue(deadline < 0, "the deadline wrapped to a negative raw value");
        assertTrue(clock.nanoTime() > deadline, "a raw comparison would call it passed already");

        assertFalse(Deadlines.hasPassed(deadline, clock.nanoTime()));
        clock.advance(Duration.ofNanos(15)); // now wraps too
        assertTrue(clock.nanoTime() < 0);
        assertFalse(Deadlines.hasPassed(deadline, clock.nanoTime()));
        assertEquals(5, Deadlines.remaining(deadline, clock.nanoTime()));
        clock.advance(6);
        assertTrue(Deadlines.hasPassed(deadline, clock.nanoTime()));
    }

    @Test
    void earliestPicksTheSoonerDeadlineAcrossTheWrap() {
        long beforeWrap = Long.MAX_VALUE - 5;
        long afterWrap = Long.MIN_VALUE + 5; // 11 ns later
        assertEquals(beforeWrap, Deadlines.earliest(beforeWrap, afterWrap));
        assertEquals(beforeWrap, Deadlines.earliest(afterWrap, beforeWrap));
        assertEquals(3, Deadlines.earliest(3, 7));
    }

    @Test
    void rejectsNegativeTimeoutsAndBackwardSteps() {
        assertThrows(IllegalArgumentException.class, () -> Deadlines.deadline(0, -1));
        assertThrows(IllegalArgumentException.class, () -> new ManualNanoClock().advance(-1));
    }

    @Test
    void manualClockMovesOnlyWhenTold() {
        ManualNanoClock clock = new ManualNanoClock();
        assertEquals(0, clock.nanoTime());
        assertEquals(0, clock.nanoTime());
        assertSame(clock, clock.set(42));
        assertEquals(42, clock.nanoTime());
        assertEquals(42 + 1_000_000, clock.advance(Duration.ofMillis(1)).nanoTime());
    }

    @Test
    void systemClockIsMonotonic() {
        NanoClock clock = NanoClock.system();
        long first = clock.nanoTime();
        long second = clock.nanoTime();
        assertTrue(second - first >= 0);
    }
}
