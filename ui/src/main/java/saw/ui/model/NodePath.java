package saw.ui.model;

import java.util.Arrays;

/** Where a node sits in a mask tree: the child index taken at each level from the root (empty for the root). */
public final class NodePath {
    public static final NodePath ROOT = new NodePath(new int[0]);
    private final int[] steps;

    private NodePath(int[] steps) {
        this.steps = steps;
    }

    public static NodePath of(int... steps) {
        for (int s : steps) {
            if (s < 0) {
                throw new IllegalArgumentException("child indices are >= 0, got " + Arrays.toString(steps));
            }
        }
        return steps.length == 0 ? ROOT : new NodePath(steps.clone());
    }

    public int depth() {
        return steps.length;
    }

    public int step(int level) {
        return steps[level];
    }

    public boolean isRoot() {
        return steps.length == 0;
    }

    /** The index of this node in its parent. */
    public int last() {
        return steps[steps.length - 1];
    }

    public NodePath parent() {
        if (isRoot()) {
            throw new IllegalStateException("the root has no parent");
        }
        return new NodePath(Arrays.copyOf(steps, steps.length - 1));
    }

    public NodePath child(int index) {
        int[] s = Arrays.copyOf(steps, steps.length + 1);
        s[steps.length] = index;
        return of(s);
    }

    public NodePath sibling(int index) {
        return parent().child(index);
    }

    /** Whether {@code other} is this node or one below it. */
    public boolean contains(NodePath other) {
        return other.steps.length >= steps.length && Arrays.equals(steps, 0, steps.length, other.steps, 0, steps.length);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NodePath p && Arrays.equals(steps, p.steps);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(steps);
    }

    @Override
    public String toString() {
        return Arrays.toString(steps);
    }
}
