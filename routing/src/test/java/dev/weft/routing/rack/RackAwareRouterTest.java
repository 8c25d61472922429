package dev.weft.routing.rack;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.weft.routing.Router;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RackAwareRouterTest {

    /**
     * The rack-aware router wraps any router: a {@link Router} method it does not override would answer with
     * the interface's default instead of the wrapped router's (a switch that is never told to rebuild, a
     * branch whose transforms vanish), so it must override every one.
     */
    @Test
    void overridesEveryRouterMethod() {
        List<String> missing = new ArrayList<>();
        for (Method m : Router.class.getMethods()) {
            if (Modifier.isStatic(m.getModifiers())) {
                continue;
            }
            try {
                RackAwareRouter.class.getDeclaredMethod(m.getName(), m.getParameterTypes());
            } catch (NoSuchMethodException e) {
                missing.add(m.getName());
            }
        }
        assertEquals(List.of(), missing);
    }
}
