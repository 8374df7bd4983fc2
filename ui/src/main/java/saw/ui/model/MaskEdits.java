package saw.ui.model;

import java.util.ArrayList;
import java.util.List;
import saw.engine.mask.Mask;

/**
 * Edits of a mask tree as pure functions: each takes the root and returns a new root (masks are immutable), with the
 * path of the node the composer should select afterwards. Paths count children of {@code and}, {@code or},
 * {@code per_head} and the one child of {@code not}.
 */
public final class MaskEdits {
    private MaskEdits() {}

    /** The operators a node can be grouped under. */
    public enum Group {
        AND("and"), OR("or"), NOT("not"), PER_HEAD("per_head");

        private final String key;

        Group(String key) {
            this.key = key;
        }

        public String key() {
            return key;
        }

        Mask of(List<Mask> children) {
            switch (this) {
                case AND: return new Mask.And(children);
                case OR: return new Mask.Or(children);
                case PER_HEAD: return new Mask.PerHead(children);
                default: return new Mask.Not(children.get(0));
            }
        }
    }

    /** A new root and the node to select in it. */
    public record Placed(Mask root, NodePath selection) {}

    /** Where a problem's JSON pointer points: a node of the tree and, below it, a field ("" for the node itself). */
    public record Location(NodePath node, String field) {}

    public static boolean isGroup(Mask m) {
        return m instanceof Mask.And || m instanceof Mask.Or || m instanceof Mask.Not || m instanceof Mask.PerHead;
    }

    /** Whether children can be appended: and, or and per_head take any number, not exactly one. */
    public static boolean takesMoreChildren(Mask m) {
        return m instanceof Mask.And || m instanceof Mask.Or || m instanceof Mask.PerHead;
    }

    public static List<Mask> children(Mask m) {
        if (m instanceof Mask.And a) {
            return a.children();
        }
        if (m instanceof Mask.Or o) {
            return o.children();
        }
        if (m instanceof Mask.PerHead p) {
            return p.variants();
        }
        if (m instanceof Mask.Not n) {
            return List.of(n.child());
        }
        return List.of();
    }

    /** The same kind of group over other children (at least one). */
    static Mask withChildren(Mask group, List<Mask> children) {
        if (group instanceof Mask.And) {
            return new Mask.And(children);
        }
        if (group instanceof Mask.Or) {
            return new Mask.Or(children);
        }
        if (group instanceof Mask.PerHead) {
            return new Mask.PerHead(children);
        }
        if (group instanceof Mask.Not && children.size() == 1) {
            return new Mask.Not(children.get(0));
        }
        throw new IllegalArgumentException("cannot give " + MaskText.key(group) + " " + children.size() + " children");
    }

    public static Mask at(Mask root, NodePath path) {
        Mask m = root;
        for (int level = 0; level < path.depth(); level++) {
            List<Mask> kids = children(m);
            int i = path.step(level);
            if (i >= kids.size()) {
                throw new IllegalArgumentException("no node at " + path);
            }
            m = kids.get(i);
        }
        return m;
    }

    public static boolean exists(Mask root, NodePath path) {
        Mask m = root;
        for (int level = 0; level < path.depth(); level++) {
            List<Mask> kids = children(m);
            if (path.step(level) >= kids.size()) {
                return false;
            }
            m = kids.get(path.step(level));
        }
        return true;
    }

    public static Mask replace(Mask root, NodePath path, Mask replacement) {
        return replace(root, path, 0, replacement);
    }

    private static Mask replace(Mask node, NodePath path, int level, Mask replacement) {
        if (level == path.depth()) {
            return replacement;
        }
        List<Mask> kids = new ArrayList<>(children(node));
        int i = path.step(level);
        kids.set(i, replace(kids.get(i), path, level + 1, replacement));
        return withChildren(node, kids);
    }

    /**
     * Adds {@code m} beside the selection: as the last child of a selected and/or/per_head, else after the selected
     * node in its and/or/per_head parent; anywhere else (a lone root, the child of a not) the selected node and the
     * new one are grouped under a new {@code and}.
     */
    public static Placed add(Mask root, NodePath selected, Mask m) {
        Mask target = at(root, selected);
        if (takesMoreChildren(target)) {
            return insert(root, selected, children(target).size(), m);
        }
        if (!selected.isRoot() && takesMoreChildren(at(root, selected.parent()))) {
            return insert(root, selected.parent(), selected.last() + 1, m);
        }
        Mask grouped = Mask.And.of(target, m);
        return new Placed(replace(root, selected, grouped), selected.child(1));
    }

    public static Placed insert(Mask root, NodePath parent, int index, Mask m) {
        Mask group = at(root, parent);
        if (!takesMoreChildren(group)) {
            throw new IllegalArgumentException(MaskText.key(group) + " takes no more children");
        }
        List<Mask> kids = new ArrayList<>(children(group));
        kids.add(index, m);
        return new Placed(replace(root, parent, withChildren(group, kids)), parent.child(index));
    }

    /**
     * Removes a node. A group left with no children goes too (a {@code not} always does); removing the root leaves
     * {@code full}, the mask that masks nothing.
     */
    public static Placed remove(Mask root, NodePath path) {
        if (path.isRoot()) {
            return new Placed(new Mask.Full(), NodePath.ROOT);
        }
        NodePath parentPath = path.parent();
        Mask parent = at(root, parentPath);
        List<Mask> kids = new ArrayList<>(children(parent));
        if (kids.size() == 1) {
            return remove(root, parentPath);
        }
        kids.remove(path.last());
        Mask newRoot = replace(root, parentPath, withChildren(parent, kids));
        return new Placed(newRoot, parentPath.child(Math.min(path.last(), kids.size() - 1)));
    }

    /** Puts the node under a new group of one child (the composer then adds siblings to it). */
    public static Placed wrap(Mask root, NodePath path, Group group) {
        Mask grouped = group.of(List.of(at(root, path)));
        return new Placed(replace(root, path, grouped), path);
    }

    /** Replaces a group of one child by that child. */
    public static Placed unwrap(Mask root, NodePath path) {
        List<Mask> kids = children(at(root, path));
        if (kids.size() != 1) {
            throw new IllegalArgumentException("only a group of one child can be ungrouped");
        }
        return new Placed(replace(root, path, kids.get(0)), path);
    }

    /** Whether {@link #move} can move the node by {@code delta} places among its siblings. */
    public static boolean canMove(Mask root, NodePath path, int delta) {
        if (path.isRoot()) {
            return false;
        }
        int to = path.last() + delta;
        return to >= 0 && to < children(at(root, path.parent())).size();
    }

    public static Placed move(Mask root, NodePath path, int delta) {
        if (!canMove(root, path, delta)) {
            throw new IllegalArgumentException("cannot move " + path + " by " + delta);
        }
        NodePath parentPath = path.parent();
        Mask parent = at(root, parentPath);
        List<Mask> kids = new ArrayList<>(children(parent));
        Mask m = kids.remove(path.last());
        int to = path.last() + delta;
        kids.add(to, m);
        return new Placed(replace(root, parentPath, withChildren(parent, kids)), parentPath.child(to));
    }

    /** The JSON pointer of a node in a {@code saw.mask/1} config, e.g. "/mask/and/1". */
    public static String pointer(Mask root, NodePath path) {
        StringBuilder sb = new StringBuilder("/mask");
        Mask m = root;
        for (int level = 0; level < path.depth(); level++) {
            int i = path.step(level);
            sb.append('/').append(MaskText.key(m));
            if (!(m instanceof Mask.Not)) {
                sb.append('/').append(i);
            }
            m = children(m).get(i);
        }
        return sb.toString();
    }

    /**
     * The deepest node whose pointer starts {@code pointer}, and the rest of the pointer below its primitive key
     * (e.g. "/mask/and/1/sliding_window/left" gives node [1] and field "left"). Null when the pointer is not under
     * "/mask".
     */
    public static Location locate(Mask root, String pointer) {
        if (!pointer.equals("/mask") && !pointer.startsWith("/mask/")) {
            return null;
        }
        String rest = pointer.substring("/mask".length());
        Mask m = root;
        NodePath path = NodePath.ROOT;
        while (true) {
            String key = "/" + MaskText.key(m);
            if (!rest.startsWith(key) || (rest.length() > key.length() && rest.charAt(key.length()) != '/')) {
                return new Location(path, "");
            }
            String below = rest.length() > key.length() ? rest.substring(key.length() + 1) : "";
            if (!isGroup(m)) {
                return new Location(path, below);
            }
            int index;
            String next;
            if (m instanceof Mask.Not) {
                index = 0;
                next = below.isEmpty() ? "" : "/" + below;
            } else {
                int slash = below.indexOf('/');
                String head = slash < 0 ? below : below.substring(0, slash);
                try {
                    index = Integer.parseInt(head);
                } catch (NumberFormatException e) {
                    return new Location(path, below);
                }
                next = slash < 0 ? "" : below.substring(slash);
            }
            List<Mask> kids = children(m);
            if (index < 0 || index >= kids.size()) {
                return new Location(path, below);
            }
            m = kids.get(index);
            path = path.child(index);
            rest = next;
            if (rest.isEmpty()) {
                return new Location(path, "");
            }
        }
    }
}
