package saw.engine.mask;

/**
 * A mask resolved for one (batch, head): the form the engine evaluates. Rectangles are half-open,
 * rows [q0, q1) x columns [k0, k1), never empty.
 */
abstract class Node {
    static final int EMPTY = 0;
    static final int PARTIAL = 1;
    static final int FULL = 2;
    static final int UNKNOWN = 3;

    abstract boolean attends(int i, int j);

    /**
     * Row i over the n columns from j0 (1 <= n <= 32) as bits: bit b is {@link #attends}(i, j0 + b), bits from n up
     * are 0. Leaves override it with their row's closed form, composites combine their children's words.
     */
    int row(int i, int j0, int n) {
        int w = 0;
        for (int b = 0; b < n; b++) {
            if (attends(i, j0 + b)) {
                w |= 1 << b;
            }
        }
        return w;
    }

    /** The low n bits set (0 <= n <= 32). */
    static int low(int n) {
        return n == 32 ? -1 : (1 << n) - 1;
    }

    /** Bits, among the n columns from j0, of the columns in [from, to). */
    static int span(int j0, int n, long from, long to) {
        long a = Math.max(from, j0);
        long b = Math.min(to, (long) j0 + n);
        return a >= b ? 0 : low((int) (b - a)) << (int) (a - j0);
    }

    /**
     * The node simplified for a rectangle: {@link Const#EMPTY_NODE} or {@link Const#FULL_NODE} when the whole
     * rectangle is decided, else a node that agrees with this one on every pair of the rectangle.
     */
    abstract Node restrict(int q0, int q1, int k0, int k1);

    /** Whether a non-constant {@link #restrict} result proves the rectangle PARTIAL. */
    abstract boolean tight();

    /** Pairs attending in the rectangle, when this node is tight; composites fall back to {@link Nodes#count}. */
    abstract long countTight(int q0, int q1, int k0, int k1);

    static long area(int q0, int q1, int k0, int k1) {
        return (long) (q1 - q0) * (k1 - k0);
    }

    static long clamp(long v, long lo, long hi) {
        return v < lo ? lo : Math.min(v, hi);
    }

    /** A constant node: every pair attends, or none does. */
    static final class Const extends Node {
        static final Const EMPTY_NODE = new Const(false);
        static final Const FULL_NODE = new Const(true);
        final boolean value;

        private Const(boolean value) {
            this.value = value;
        }

        @Override
        boolean attends(int i, int j) {
            return value;
        }

        @Override
        int row(int i, int j0, int n) {
            return value ? low(n) : 0;
        }

        @Override
        Node restrict(int q0, int q1, int k0, int k1) {
            return this;
        }

        @Override
        boolean tight() {
            return true;
        }

        @Override
        long countTight(int q0, int q1, int k0, int k1) {
            return value ? area(q0, q1, k0, k1) : 0;
        }
    }

    /** A primitive: it classifies any rectangle exactly, or says UNKNOWN and lets subdivision decide. */
    abstract static class Leaf extends Node {
        abstract int classify(int q0, int q1, int k0, int k1);

        @Override
        final Node restrict(int q0, int q1, int k0, int k1) {
            return switch (classify(q0, q1, k0, k1)) {
                case EMPTY -> Const.EMPTY_NODE;
                case FULL -> Const.FULL_NODE;
                case PARTIAL -> this;
                default -> new Unknown(this);
            };
        }

        @Override
        boolean tight() {
            return true;
        }

        /** Exact count by rows; leaves override with something faster where they can. */
        @Override
        long countTight(int q0, int q1, int k0, int k1) {
            long total = 0;
            for (int i = q0; i < q1; i++) {
                total += countRow(i, k0, k1);
            }
            return total;
        }

        abstract long countRow(int i, int k0, int k1);
    }

    /** A leaf whose classification of the current rectangle was undecided. */
    static final class Unknown extends Node {
        final Leaf leaf;

        Unknown(Leaf leaf) {
            this.leaf = leaf;
        }

        @Override
        boolean attends(int i, int j) {
            return leaf.attends(i, j);
        }

        @Override
        int row(int i, int j0, int n) {
            return leaf.row(i, j0, n);
        }

        @Override
        Node restrict(int q0, int q1, int k0, int k1) {
            return leaf.restrict(q0, q1, k0, k1);
        }

        @Override
        boolean tight() {
            return false;
        }

        @Override
        long countTight(int q0, int q1, int k0, int k1) {
            return leaf.countTight(q0, q1, k0, k1);
        }
    }

    static final class NotNode extends Node {
        final Node child;

        NotNode(Node child) {
            this.child = child;
        }

        @Override
        boolean attends(int i, int j) {
            return !child.attends(i, j);
        }

        @Override
        int row(int i, int j0, int n) {
            return ~child.row(i, j0, n) & low(n);
        }

        @Override
        Node restrict(int q0, int q1, int k0, int k1) {
            Node r = child.restrict(q0, q1, k0, k1);
            if (r == Const.EMPTY_NODE) {
                return Const.FULL_NODE;
            }
            if (r == Const.FULL_NODE) {
                return Const.EMPTY_NODE;
            }
            return r == child ? this : new NotNode(r);
        }

        @Override
        boolean tight() {
            return child.tight();
        }

        @Override
        long countTight(int q0, int q1, int k0, int k1) {
            return area(q0, q1, k0, k1) - child.countTight(q0, q1, k0, k1);
        }
    }

    /** And (all children attend) or Or (some child attends). */
    static final class Combine extends Node {
        final boolean isAnd;
        final Node[] children;

        Combine(boolean isAnd, Node[] children) {
            this.isAnd = isAnd;
            this.children = children;
        }

        @Override
        boolean attends(int i, int j) {
            for (Node c : children) {
                if (c.attends(i, j) != isAnd) {
                    return !isAnd;
                }
            }
            return isAnd;
        }

        @Override
        int row(int i, int j0, int n) {
            int all = low(n);
            int w = isAnd ? all : 0;
            for (Node c : children) {
                w = isAnd ? w & c.row(i, j0, n) : w | c.row(i, j0, n);
                if (w == (isAnd ? 0 : all)) {
                    break;
                }
            }
            return w;
        }

        @Override
        Node restrict(int q0, int q1, int k0, int k1) {
            Node absorbing = isAnd ? Const.EMPTY_NODE : Const.FULL_NODE;
            Node neutral = isAnd ? Const.FULL_NODE : Const.EMPTY_NODE;
            Node[] kept = null;
            int n = 0;
            for (int c = 0; c < children.length; c++) {
                Node r = children[c].restrict(q0, q1, k0, k1);
                if (r == absorbing) {
                    return absorbing;
                }
                if (kept == null && r != children[c]) {
                    kept = new Node[children.length];
                    System.arraycopy(children, 0, kept, 0, c);
                    n = c;
                }
                if (kept != null && r != neutral) {
                    kept[n++] = r;
                }
            }
            if (kept == null) {
                return this;
            }
            if (n == 0) {
                return neutral;
            }
            if (n == 1) {
                return kept[0];
            }
            return new Combine(isAnd, java.util.Arrays.copyOf(kept, n));
        }

        @Override
        boolean tight() {
            return false;
        }

        @Override
        long countTight(int q0, int q1, int k0, int k1) {
            throw new IllegalStateException("a composite is never tight");
        }
    }
}
