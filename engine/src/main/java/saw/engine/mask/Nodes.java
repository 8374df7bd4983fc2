package saw.engine.mask;

/** Exact classification and counting on rectangles, by simplification and, where needed, subdivision. */
final class Nodes {
    /** Below this many pairs an undecided rectangle is counted pair by pair. */
    private static final long BRUTE_FORCE_AREA = 64;

    private Nodes() {}

    static int classify(Node node, int q0, int q1, int k0, int k1) {
        Node r = node.restrict(q0, q1, k0, k1);
        if (r == Node.Const.EMPTY_NODE) {
            return Node.EMPTY;
        }
        if (r == Node.Const.FULL_NODE) {
            return Node.FULL;
        }
        if (r.tight()) {
            return Node.PARTIAL;
        }
        if (q1 - q0 == 1 && k1 - k0 == 1) {
            return r.attends(q0, k0) ? Node.FULL : Node.EMPTY;
        }
        int first;
        int second;
        if (q1 - q0 >= k1 - k0) {
            int mid = (q0 + q1) >>> 1;
            first = classify(r, q0, mid, k0, k1);
            if (first == Node.PARTIAL) {
                return first;
            }
            second = classify(r, mid, q1, k0, k1);
        } else {
            int mid = (k0 + k1) >>> 1;
            first = classify(r, q0, q1, k0, mid);
            if (first == Node.PARTIAL) {
                return first;
            }
            second = classify(r, q0, q1, mid, k1);
        }
        return first == second ? first : Node.PARTIAL;
    }

    static long count(Node node, int q0, int q1, int k0, int k1) {
        Node r = node.restrict(q0, q1, k0, k1);
        if (r.tight()) {
            return r.countTight(q0, q1, k0, k1);
        }
        long area = Node.area(q0, q1, k0, k1);
        if (area <= BRUTE_FORCE_AREA) {
            long total = 0;
            for (int i = q0; i < q1; i++) {
                for (int j = k0; j < k1; j++) {
                    if (r.attends(i, j)) {
                        total++;
                    }
                }
            }
            return total;
        }
        if (q1 - q0 >= k1 - k0) {
            int mid = (q0 + q1) >>> 1;
            return count(r, q0, mid, k0, k1) + count(r, mid, q1, k0, k1);
        }
        int mid = (k0 + k1) >>> 1;
        return count(r, q0, q1, k0, mid) + count(r, q0, q1, mid, k1);
    }
}
