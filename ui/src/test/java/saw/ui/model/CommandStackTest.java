package saw.ui.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class CommandStackTest {
    @Test
    void undoAndRedoWalkTheSameStatesAsAPlainHistory() {
        long seed = new SplittableRandom().nextLong();
        SplittableRandom rnd = new SplittableRandom(seed);
        CommandStack<Integer> stack = new CommandStack<>(0);
        List<Integer> history = new ArrayList<>(List.of(0));
        int at = 0;
        for (int step = 0; step < 2000; step++) {
            int op = rnd.nextInt(3);
            if (op == 0) {
                int next = rnd.nextInt(50);
                stack.execute("set " + next, next);
                if (next != history.get(at)) {
                    history = new ArrayList<>(history.subList(0, at + 1));
                    history.add(next);
                    at++;
                }
            } else if (op == 1) {
                stack.undo();
                at = Math.max(0, at - 1);
            } else {
                stack.redo();
                at = Math.min(history.size() - 1, at + 1);
            }
            assertEquals(history.get(at), stack.state(), "seed " + seed + " step " + step);
            assertEquals(at > 0, stack.canUndoProperty().get(), "seed " + seed);
            assertEquals(at < history.size() - 1, stack.canRedoProperty().get(), "seed " + seed);
        }
    }

    @Test
    void dirtyComparesWithTheSavedState() {
        CommandStack<String> s = new CommandStack<>("a");
        assertFalse(s.dirtyProperty().get());
        s.execute("b", "b");
        assertTrue(s.dirtyProperty().get());
        assertEquals("b", s.undoNameProperty().get());
        s.undo();
        assertFalse(s.dirtyProperty().get());
        s.redo();
        s.markSaved();
        assertFalse(s.dirtyProperty().get());
        long before = s.revisionProperty().get();
        s.execute("same", "b");
        assertEquals(before, s.revisionProperty().get(), "an edit that changes nothing is not recorded");
        s.reset("z");
        assertFalse(s.canUndoProperty().get());
        assertFalse(s.dirtyProperty().get());
    }
}
