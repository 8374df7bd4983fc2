package saw.ui.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import saw.engine.mask.Dims;
import saw.engine.mask.Mask;
import saw.engine.mask.MaskChecks;

class MaskEditsTest {
    private static Mask randomTree(SplittableRandom rnd, int depth) {
        int pick = rnd.nextInt(depth <= 0 ? 4 : 8);
        switch (pick) {
            case 0: return new Mask.Causal(rnd.nextInt(5));
            case 1: return new Mask.SlidingWindow(rnd.nextInt(100), 0);
            case 2: return new Mask.PrefixLm(rnd.nextInt(100));
            case 3: return new Mask.Sinks(rnd.nextInt(8));
            case 4: return new Mask.Not(randomTree(rnd, depth - 1));
            default: {
                List<Mask> kids = new ArrayList<>();
                for (int i = 0, n = 1 + rnd.nextInt(3); i < n; i++) {
                    kids.add(randomTree(rnd, depth - 1));
                }
                return pick == 5 ? new Mask.And(kids) : pick == 6 ? new Mask.Or(kids) : new Mask.PerHead(kids);
            }
        }
    }

    private static void allPaths(Mask m, NodePath p, List<NodePath> out) {
        out.add(p);
        List<Mask> kids = MaskEdits.children(m);
        for (int i = 0; i < kids.size(); i++) {
            allPaths(kids.get(i), p.child(i), out);
        }
    }

    @Test
    void everyNodesPointerLocatesBackToIt() {
        long seed = new SplittableRandom().nextLong();
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int round = 0; round < 300; round++) {
            Mask root = randomTree(rnd, 4);
            List<NodePath> paths = new ArrayList<>();
            allPaths(root, NodePath.ROOT, paths);
            for (NodePath p : paths) {
                String pointer = MaskEdits.pointer(root, p);
                MaskEdits.Location at = MaskEdits.locate(root, pointer);
                assertEquals(p, at.node(), "seed " + seed + ": " + pointer);
                assertEquals("", at.field());
                if (!MaskEdits.isGroup(MaskEdits.at(root, p))) {
                    String field = pointer + "/" + MaskText.key(MaskEdits.at(root, p)) + "/x/3";
                    assertEquals(new MaskEdits.Location(p, "x/3"), MaskEdits.locate(root, field), "seed " + seed);
                }
            }
        }
    }

    @Test
    void problemsTheEngineReportsLandOnTheNodeAndFieldAtFault() {
        Mask bad = Mask.And.of(new Mask.Causal(0), new Mask.Not(Mask.Or.of(new Mask.Sinks(1), new Mask.PrefixLm(5000))));
        List<MaskChecks.Problem> problems = MaskChecks.check(bad, Dims.square(1024));
        assertEquals(1, problems.size());
        MaskEdits.Location at = MaskEdits.locate(bad, problems.get(0).path());
        assertEquals(NodePath.of(1, 0, 1), at.node());
        assertEquals("prefix", at.field());
    }

    @Test
    void editsKeepTheTreeValidAndSelectTheNodeTheyTouched() {
        long seed = new SplittableRandom().nextLong();
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int round = 0; round < 300; round++) {
            Mask root = randomTree(rnd, 3);
            List<NodePath> paths = new ArrayList<>();
            allPaths(root, NodePath.ROOT, paths);
            NodePath p = paths.get(rnd.nextInt(paths.size()));
            String where = "seed " + seed + " round " + round + " at " + p + " in " + root;

            Mask added = new Mask.Dilated(7);
            MaskEdits.Placed a = MaskEdits.add(root, p, added);
            assertEquals(added, MaskEdits.at(a.root(), a.selection()), where);

            MaskEdits.Placed r = MaskEdits.remove(root, p);
            assertTrue(MaskEdits.exists(r.root(), r.selection()), where);
            assertTrue(count(r.root()) < count(root) || p.isRoot(), where);

            MaskEdits.Placed w = MaskEdits.wrap(root, p, MaskEdits.Group.NOT);
            assertEquals(new Mask.Not(MaskEdits.at(root, p)), MaskEdits.at(w.root(), p), where);
            assertEquals(root, MaskEdits.unwrap(w.root(), p).root(), where);

            for (int delta : new int[] {-1, 1}) {
                if (MaskEdits.canMove(root, p, delta)) {
                    MaskEdits.Placed m = MaskEdits.move(root, p, delta);
                    assertEquals(MaskEdits.at(root, p), MaskEdits.at(m.root(), m.selection()), where);
                    assertEquals(root, MaskEdits.move(m.root(), m.selection(), -delta).root(), where);
                }
            }
        }
    }

    @Test
    void removingTheLastChildRemovesItsGroup() {
        Mask root = Mask.And.of(new Mask.Causal(0), new Mask.Not(new Mask.Sinks(4)));
        MaskEdits.Placed r = MaskEdits.remove(root, NodePath.of(1, 0));
        assertEquals(new Mask.And(List.of(new Mask.Causal(0))), r.root());
        assertEquals(new Mask.Full(), MaskEdits.remove(root, NodePath.ROOT).root());
        assertFalse(MaskEdits.canMove(root, NodePath.ROOT, 1));
        assertNotNull(MaskEdits.locate(root, "/mask"));
    }

    private static int count(Mask m) {
        int n = 1;
        for (Mask c : MaskEdits.children(m)) {
            n += count(c);
        }
        return n;
    }
}
