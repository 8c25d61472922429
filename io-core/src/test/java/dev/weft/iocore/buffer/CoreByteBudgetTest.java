package dev.weft.iocore.buffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CoreByteBudgetTest {

    private final CoreByteBudget budget = new CoreByteBudget(1000, 400);

    @Test
    void grantsWhatFitsAndRefusesWhatDoesNot() {
        Object a = new Object();
        Object b = new Object();
        Object c = new Object();
        assertTrue(budget.tryGrant(a, 400));
        assertTrue(budget.tryGrant(b, 400));
        assertFalse(budget.tryGrant(c, 300), "1100 > 1000");
        assertTrue(budget.tryGrant(c, 200), "exactly the limit fits");
        assertEquals(1000, budget.grantedBytes());
        assertEquals(1, budget.refusals());
        budget.release(a, 400);
        assertEquals(600, budget.grantedBytes());
    }

    @Test
    void largeRequestsAreOneAtATime() {
        Object a = new Object();
        Object b = new Object();
        assertTrue(budget.tryGrant(a, 401));
        assertTrue(budget.largeGrantTaken());
        assertFalse(budget.tryGrant(b, 401), "the large turn is taken, though 802 bytes would fit");
        assertTrue(budget.tryGrant(b, 400), "a request at the large size is not large");
        budget.release(a, 401);
        assertFalse(budget.largeGrantTaken());
        assertTrue(budget.tryGrant(new Object(), 401));
    }

    @Test
    void anythingIsGrantedToACoreWithNothingGranted() {
        Object huge = new Object();
        assertTrue(budget.tryGrant(huge, 5000), "bigger than the whole budget, but alone");
        assertFalse(budget.tryGrant(new Object(), 1));
        budget.release(huge, 5000);
        assertEquals(0, budget.grantedBytes());
    }

    @Test
    void releasesAskTheWaitersInArrivalOrderAndLetThoseThatFitGoAhead() {
        Object holder = new Object();
        assertTrue(budget.tryGrant(holder, 900));
        List<String> admitted = new ArrayList<>();
        Object big = new Object();
        budget.await(() -> admit(big, 700, "big", admitted));
        Object s1 = new Object();
        budget.await(() -> admit(s1, 150, "s1", admitted));
        Object s2 = new Object();
        budget.await(() -> admit(s2, 150, "s2", admitted));
        assertEquals(3, budget.waiting());

        budget.release(holder, 500); // 400 stay granted: s1 and s2 fit (700), big (1100) does not
        assertEquals(List.of("s1", "s2"), admitted, "small ones are not stuck behind the big one");
        assertEquals(1, budget.waiting());
        assertEquals(700, budget.grantedBytes());
        budget.release(holder, 400); // 300 granted + 700 = 1000: fits
        assertEquals(List.of("s1", "s2", "big"), admitted);
        assertEquals(0, budget.waiting());
        assertEquals(1000, budget.grantedBytes());
    }

    @Test
    void aWaiterThatReleasesWhileBeingWokenDoesNotLoseAWakeUp() {
        Object holder = new Object();
        Object other = new Object();
        assertTrue(budget.tryGrant(holder, 400));
        assertTrue(budget.tryGrant(other, 400));
        List<String> admitted = new ArrayList<>();
        Object second = new Object();
        budget.await(() -> admit(second, 900, "second", admitted)); // asked first: does not fit yet
        budget.await(() -> {
            budget.release(other, 400); // gives up and frees what it held, while the budget is waking waiters
            return true;
        });
        budget.release(holder, 400);
        assertEquals(List.of("second"), admitted, "asked again after the release made during the wake-up");
        assertEquals(0, budget.waiting());
        assertEquals(900, budget.grantedBytes());
    }

    @Test
    void cancelledWaitersAreNotAsked() {
        assertTrue(budget.tryGrant(this, 1000));
        List<String> admitted = new ArrayList<>();
        CoreByteBudget.Waiter w = () -> admit(new Object(), 10, "w", admitted);
        budget.await(w);
        budget.cancel(w);
        budget.release(this, 1000);
        assertTrue(admitted.isEmpty());
    }

    @Test
    void heldBytesAreWhatHoldersReport() {
        budget.held(100);
        budget.held(-40);
        assertEquals(60, budget.heldBytes());
    }

    @Test
    void rejectsNonsense() {
        assertThrows(IllegalArgumentException.class, () -> new CoreByteBudget(0, 1));
        assertThrows(IllegalArgumentException.class, () -> new CoreByteBudget(100, 101));
        assertThrows(IllegalStateException.class, () -> budget.release(this, 1));
    }

    private boolean admit(Object holder, long bytes, String name, List<String> admitted) {
        if (!budget.tryGrant(holder, bytes)) {
            return false;
        }
        admitted.add(name);
        return true;
    }
}
