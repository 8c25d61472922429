package dev.weft.routing.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Reading a partition from its leader once after a follower said "nothing more": {@link FollowerEndChecks}
 * A follower's
 * "nothing more" ({@link FollowerEndChecks#followerAtEnd}) makes the next plan of that partition read it
 * from the leader once ({@link FollowerEndChecks#takePending}), keyed by leaf, topic and partition; the
 * leader's answer ({@link FollowerEndChecks#leaderAnswered}) either confirms the end at that offset or
 * drops the entry. Bounded: 32 entries, the oldest going first, however many are reported.
 */
class FollowerEndChecksTest {

    private static final int CAPACITY = 32;
    /** The offset the client fetches from when the follower says "nothing more". */
    private static final long AT = 100;

    /** A topic name equal to {@code name} but not the same String: entries match by content. */
    private static String copyOf(String name) {
        return new String(name.toCharArray());
    }

    @Test
    void aFollowersNothingMoreSendsTheNextFetchToTheLeaderOnce() {
        FollowerEndChecks checks = new FollowerEndChecks();
        checks.followerAtEnd(0, "orders", 3, AT);
        assertFalse(checks.isEmpty());
        assertTrue(checks.takePending(0, copyOf("orders"), 3), "reported: the next fetch goes to the leader");
        assertFalse(checks.takePending(0, "orders", 3), "once: the fetch after goes to the follower again");
        assertFalse(checks.takePending(0, "orders", 3));
    }

    @Test
    void takePendingOnAnEmptySetIsFalse() {
        FollowerEndChecks checks = new FollowerEndChecks();
        assertTrue(checks.isEmpty());
        assertFalse(checks.takePending(0, "orders", 0));
        assertFalse(checks.takePending(-1, "", -1));
        assertFalse(checks.takePending(Integer.MAX_VALUE, "orders", Integer.MIN_VALUE));
        checks.leaderAnswered(0, "orders", 0, AT, true); // an answer for nothing asked is ignored
        checks.leaderAnswered(0, "orders", 0, AT, false);
        assertTrue(checks.isEmpty(), "misses and stray answers change nothing");
    }

    @Test
    void entriesAreDistinctByLeafTopicAndPartition() {
        FollowerEndChecks checks = new FollowerEndChecks();
        checks.followerAtEnd(0, "orders", 1, AT);
        assertFalse(checks.takePending(1, "orders", 1), "another leaf");
        assertFalse(checks.takePending(0, "clicks", 1), "another topic");
        assertFalse(checks.takePending(0, "orders-eu", 1), "a topic whose name starts the same");
        assertFalse(checks.takePending(0, "order", 1), "a prefix of the name");
        assertFalse(checks.takePending(0, "Orders", 1), "names are case-sensitive");
        assertFalse(checks.takePending(0, "orders", 0), "another partition");
        assertFalse(checks.takePending(0, "orders", 2), "another partition");
        assertTrue(checks.takePending(0, "orders", 1), "misses left the entry pending");

        // all of them at once: each is its own entry, taken by its own key only
        FollowerEndChecks many = new FollowerEndChecks();
        many.followerAtEnd(0, "orders", 1, AT);
        many.followerAtEnd(1, "orders", 1, AT);
        many.followerAtEnd(0, "clicks", 1, AT);
        many.followerAtEnd(0, "orders", 2, AT);
        assertTrue(many.takePending(0, "clicks", 1));
        assertFalse(many.takePending(0, "clicks", 1));
        assertTrue(many.takePending(0, "orders", 2));
        assertTrue(many.takePending(1, "orders", 1));
        assertTrue(many.takePending(0, "orders", 1));
        assertFalse(many.takePending(0, "orders", 1));

        // the leader's answer for one entry touches no other
        many.leaderAnswered(0, "orders", 2, AT, true);
        many.leaderAnswered(0, "clicks", 1, AT, false);
        many.followerAtEnd(0, "orders", 2, AT);
        assertFalse(many.takePending(0, "orders", 2), "orders p2: its leader confirmed the end at " + AT);
        many.followerAtEnd(0, "clicks", 1, AT);
        assertTrue(many.takePending(0, "clicks", 1), "clicks p1 was dropped, so reported anew");
        many.followerAtEnd(1, "orders", 2, AT);
        assertTrue(many.takePending(1, "orders", 2), "orders p2 behind leaf 1 is another partition than behind leaf 0");
    }

    @Test
    void reportingTwiceKeepsOneEntry() {
        FollowerEndChecks checks = new FollowerEndChecks();
        checks.followerAtEnd(0, "orders", 5, AT);
        checks.followerAtEnd(0, copyOf("orders"), 5, AT);
        checks.followerAtEnd(0, "orders", 5, AT + 7); // another offset while still pending: the same entry
        assertTrue(checks.takePending(0, "orders", 5));
        assertFalse(checks.takePending(0, "orders", 5), "reported thrice, one entry: one leader read");
        checks.leaderAnswered(0, "orders", 5, AT + 7, false);
        assertTrue(checks.isEmpty(), "one entry, dropped by the leader's answer");
    }

    @Test
    void reportingTheSameEntryAgainTakesNoSecondSlot() {
        FollowerEndChecks checks = new FollowerEndChecks();
        for (int p = 0; p < CAPACITY; p++) {
            checks.followerAtEnd(0, "orders", p, AT);
            checks.followerAtEnd(0, "orders", p, AT); // a duplicate must not push an older entry out
        }
        for (int p = 0; p < CAPACITY; p++) {
            assertTrue(checks.takePending(0, "orders", p), "p" + p + " kept: " + CAPACITY + " distinct entries fit");
        }
    }

    @Test
    void theLeaderAgreeingMakesTheFollowerBelievedAtThatOffsetOnly() {
        FollowerEndChecks checks = new FollowerEndChecks();
        checks.followerAtEnd(0, "orders", 0, AT);
        assertTrue(checks.takePending(0, "orders", 0));
        checks.leaderAnswered(0, "orders", 0, AT, true);
        for (int poll = 0; poll < 5; poll++) {
            checks.followerAtEnd(0, "orders", 0, AT);
            assertFalse(checks.takePending(0, "orders", 0), "the leader said the end is " + AT + ": the follower is believed"
                    + " there, poll " + poll);
        }
        checks.followerAtEnd(0, "orders", 0, AT + 1); // the client's offset moved on
        assertTrue(checks.takePending(0, "orders", 0), "a new offset: checked with the leader again");
        assertFalse(checks.takePending(0, "orders", 0));
        checks.leaderAnswered(0, "orders", 0, AT + 1, true);
        checks.followerAtEnd(0, "orders", 0, AT + 1);
        assertFalse(checks.takePending(0, "orders", 0));
        checks.followerAtEnd(0, "orders", 0, AT); // an older offset (the client seeked back) is not the confirmed one
        assertTrue(checks.takePending(0, "orders", 0));
    }

    @Test
    void theLeaderHavingMoreDropsTheEntry() {
        FollowerEndChecks checks = new FollowerEndChecks();
        checks.followerAtEnd(0, "orders", 0, AT);
        assertTrue(checks.takePending(0, "orders", 0));
        checks.leaderAnswered(0, "orders", 0, AT, false); // the follower was behind
        assertTrue(checks.isEmpty(), "dropped");
        assertFalse(checks.takePending(0, "orders", 0));
        checks.followerAtEnd(0, "orders", 0, AT);
        assertTrue(checks.takePending(0, "orders", 0), "the next \"nothing more\" is checked again");
    }

    @Test
    void aLeaderCheckWhoseAnswerNeverCameIsMadeAgain() {
        // FollowerAnswers.review: a leader check whose part was not waited for (or failed) is "answered
        // empty by the merge anyway (a leader check is made again)", and leaderAnswered is not called.
        FollowerEndChecks checks = new FollowerEndChecks();
        checks.followerAtEnd(0, "orders", 0, AT);
        assertTrue(checks.takePending(0, "orders", 0), "the plan reads orders p0 from its leader");
        // ... the leader's part is not waited for: no leaderAnswered; the client fetches from AT again and
        // the follower, read again, says "nothing more" again
        checks.followerAtEnd(0, "orders", 0, AT);
        assertTrue(checks.takePending(0, "orders", 0), "a leader check that was taken but never answered (the leader's part"
                + " failed or was not waited for) is made again at the follower's next \"nothing more\"");
    }

    @Test
    void holdsItsCapacityAndTheOldestGoWhenMoreAreReported() {
        FollowerEndChecks checks = new FollowerEndChecks();
        int reported = CAPACITY + 9;
        for (int p = 0; p < reported; p++) {
            checks.followerAtEnd(p % 3, "t" + p % 5, p, AT);
        }
        for (int p = 0; p < reported - CAPACITY; p++) {
            assertFalse(checks.takePending(p % 3, "t" + p % 5, p), "p" + p + " is among the " + (reported - CAPACITY)
                    + " oldest: gone");
        }
        for (int p = reported - CAPACITY; p < reported; p++) {
            assertTrue(checks.takePending(p % 3, "t" + p % 5, p), "p" + p + " is among the " + CAPACITY + " newest: kept");
        }
    }

    @Test
    void theOldestGoesAlsoAfterEntriesWereDropped() {
        // One connection: entries are reported as followers answer empty and dropped as leaders answer with
        // more, interleaved. Whatever was dropped, a full set evicts its oldest entry, never a newer one.
        FollowerEndChecks checks = new FollowerEndChecks();
        List<Integer> live = new ArrayList<>(); // oldest first
        int nextKey = 0;
        Random random = new Random(11);
        for (int step = 0; step < 5_000; step++) {
            if (!live.isEmpty() && random.nextInt(3) == 0) {
                int k = live.remove(random.nextInt(live.size()));
                assertTrue(checks.takePending(0, "orders", k), "step " + step + ": p" + k + " was reported and not evicted");
                checks.leaderAnswered(0, "orders", k, AT, false);
            } else {
                int k = nextKey++;
                checks.followerAtEnd(0, "orders", k, AT);
                live.add(k);
                if (live.size() > CAPACITY) {
                    int oldest = live.removeFirst();
                    assertFalse(checks.takePending(0, "orders", oldest), "step " + step + ": a full set evicts its oldest"
                            + " entry (p" + oldest + "), never a newer one, whatever was dropped before");
                }
            }
        }
    }

    @Test
    void aRecentEntryIsNotEvictedBeforeOlderOnes() {
        // The concrete case behind the property above: a full set, 31 evictions (the cursor at the last
        // slot), one entry dropped, then two reports: the first one's entry must survive the second.
        FollowerEndChecks checks = new FollowerEndChecks();
        for (int k = 0; k < CAPACITY + CAPACITY - 1; k++) {
            checks.followerAtEnd(0, "orders", k, AT); // the oldest 31 evicted: the set holds p31..p62
        }
        checks.leaderAnswered(0, "orders", 40, AT, false);
        checks.followerAtEnd(0, "orders", 1000, AT); // fills the freed place: full again
        checks.followerAtEnd(0, "orders", 1001, AT); // full: the oldest (p31) goes
        assertTrue(checks.takePending(0, "orders", 1000), "the entry reported one report ago stays while older ones"
                + " are evicted");
        assertFalse(checks.takePending(0, "orders", 31), "p31 was the oldest: evicted");
    }

    @Test
    void veryManyReportsNeverFailAndKeepTheNewest() {
        FollowerEndChecks checks = new FollowerEndChecks();
        String[] topics = new String[1000];
        for (int t = 0; t < topics.length; t++) {
            topics[t] = "topic-" + t;
        }
        int reports = 10_000_000;
        for (int k = 0; k < reports; k++) {
            // distinct keys: (topic k mod 1000, partition k / 1000), leaves 0..2
            checks.followerAtEnd(k % 3, topics[k % topics.length], k / topics.length, k);
            if (k % 1_000_003 == 0) {
                assertTrue(checks.takePending(k % 3, topics[k % topics.length], k / topics.length), "just reported, k = " + k);
                checks.leaderAnswered(k % 3, topics[k % topics.length], k / topics.length, k, (k & 1) == 0);
            }
        }
        int k = reports - CAPACITY - 1;
        assertFalse(checks.takePending(k % 3, topics[k % topics.length], k / topics.length), "the 33rd newest is gone");
        for (k = reports - CAPACITY; k < reports; k++) {
            assertTrue(checks.takePending(k % 3, topics[k % topics.length], k / topics.length), "among the 32 newest: k = " + k);
        }
        checks.followerAtEnd(0, "orders", 0, AT);
        assertTrue(checks.takePending(0, "orders", 0), "still usable");
    }

    @Test
    void takePendingAllocatesNothing() {
        FollowerEndChecks checks = new FollowerEndChecks();
        String[] names = new String[CAPACITY];
        String[] asked = new String[CAPACITY];
        for (int p = 0; p < CAPACITY; p++) {
            names[p] = "topic-" + p;
            asked[p] = copyOf(names[p]); // equal, not the same: the comparison reads the characters
            checks.followerAtEnd(0, names[p], p, 0);
        }
        FollowerEndChecks empty = new FollowerEndChecks();
        String missing = "topic-missing";
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long hits = rounds(checks, empty, names, asked, missing, 0, 20_000); // warm up
        int rounds = 200_000;
        long before = threads.getCurrentThreadAllocatedBytes();
        hits += rounds(checks, empty, names, asked, missing, 20_000, rounds);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertEquals(20_000L + rounds, hits, "each round takes one pending entry");
        assertTrue(allocated < 4096, rounds + " rounds of takePending (a hit, misses on a full set and an empty one) allocated "
                + allocated + " bytes");
    }

    /**
     * Per round: misses on a full set and on an empty one, a hit on a pending entry, a second take missing
     * (asked), then the leader's "end" and a "nothing more" at the next offset make it pending again.
     */
    private static long rounds(FollowerEndChecks checks, FollowerEndChecks empty, String[] names, String[] asked, String missing,
                               int from, int rounds) {
        long hits = 0;
        for (int r = from; r < from + rounds; r++) {
            int p = r % CAPACITY;
            long offset = r / CAPACITY;
            if (checks.takePending(0, missing, p) || checks.takePending(1, asked[p], p)
                    || checks.takePending(0, asked[p], p + CAPACITY) || empty.takePending(0, asked[p], p)) {
                throw new AssertionError("a miss was a hit");
            }
            if (checks.takePending(0, asked[p], p)) {
                hits++;
            }
            if (checks.takePending(0, asked[p], p)) {
                throw new AssertionError("taken twice");
            }
            checks.leaderAnswered(0, names[p], p, offset, true);
            checks.followerAtEnd(0, names[p], p, offset + 1);
        }
        return hits;
    }
}
