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

    /** Undecided rectangles of at most this many pairs are written row word by row word. */
    private static final long WORD_AREA = 512;

    /**
     * ORs into {@code words} the attending pairs of rows [i0, i1) x columns [j0, j1): pair (i, j) is bit (j - k0) & 31
     * of words[at + (i - q0) * wordsPerRow + ((j - k0) >>> 5)]. Decided rectangles are written whole and undecided
     * ones halved, each half with the node simplified for it, so the cost follows the mask's boundary in the
     * rectangle; masks cut everywhere (dilated) end in small rectangles written a row word at a time.
     */
    static void bits(Node node, int i0, int i1, int j0, int j1, int q0, int k0, int[] words, int at, int wordsPerRow) {
        Node r = node.restrict(i0, i1, j0, j1);
        if (r == Node.Const.EMPTY_NODE) {
            return;
        }
        if (r == Node.Const.FULL_NODE || Node.area(i0, i1, j0, j1) <= WORD_AREA) {
            for (int i = i0; i < i1; i++) {
                int rowAt = at + (i - q0) * wordsPerRow;
                for (int j = j0; j < j1; ) {
                    int col = j - k0;
                    int n = Math.min(j1 - j, 32 - (col & 31));
                    words[rowAt + (col >>> 5)] |= r.row(i, j, n) << (col & 31);
                    j += n;
                }
            }
            return;
        }
        if (i1 - i0 >= j1 - j0) {
            int mid = (i0 + i1) >>> 1;
            bits(r, i0, mid, j0, j1, q0, k0, words, at, wordsPerRow);
            bits(r, mid, i1, j0, j1, q0, k0, words, at, wordsPerRow);
        } else {
            int mid = (j0 + j1) >>> 1;
            bits(r, i0, i1, j0, mid, q0, k0, words, at, wordsPerRow);
            bits(r, i0, i1, mid, j1, q0, k0, words, at, wordsPerRow);
        }
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
