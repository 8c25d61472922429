package dev.weft.iocore.time;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class AtMostEveryTest {

    @Test
    void passesOncePerInterval() {
        ManualNanoClock clock = new ManualNanoClock();
        AtMostEvery gate = new AtMostEvery(Duration.ofSeconds(1), clock);
        assertTrue(gate.tryPass(), "the first call passes");
        assertFalse(gate.tryPass(), "again at once: no");
        clock.advance(Duration.ofMillis(999));
        assertFalse(gate.tryPass(), "just short of the interval: no");
        clock.advance(Duration.ofMillis(1));
        assertTrue(gate.tryPass(), "the interval is over");
        assertFalse(gate.tryPass());
    }
}
