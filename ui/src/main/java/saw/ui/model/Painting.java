package saw.ui.model;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import saw.engine.mask.IntArray;
import saw.engine.mask.Mask;

/** Brush strokes on a {@code painted} mask: token rectangles turned into its cells, set or cleared. */
final class Painting {
    private Painting() {}

    static boolean isSet(Mask.Painted p, int row, int col) {
        if (row >= p.rows().size()) {
            return false;
        }
        IntArray r = p.rows().get(row);
        for (int i = 0; i < r.size(); i++) {
            if (r.get(i) == col) {
                return true;
            }
        }
        return false;
    }

    static long cellCount(Mask.Painted p, List<int[]> rects) {
        java.util.Set<Long> cells = new java.util.HashSet<>();
        forEachCell(p, rects, (r, c) -> cells.add(((long) r << 32) | c));
        return cells.size();
    }

    static Mask.Painted apply(Mask.Painted p, List<int[]> rects, boolean set) {
        List<TreeSet<Integer>> rows = new ArrayList<>();
        for (IntArray r : p.rows()) {
            TreeSet<Integer> cols = new TreeSet<>();
            for (int i = 0; i < r.size(); i++) {
                cols.add(r.get(i));
            }
            rows.add(cols);
        }
        forEachCell(p, rects, (r, c) -> {
            while (rows.size() <= r) {
                rows.add(new TreeSet<>());
            }
            if (set) {
                rows.get(r).add(c);
            } else {
                rows.get(r).remove(c);
            }
        });
        while (!rows.isEmpty() && rows.get(rows.size() - 1).isEmpty()) {
            rows.remove(rows.size() - 1);
        }
        List<IntArray> out = new ArrayList<>();
        for (TreeSet<Integer> cols : rows) {
            out.add(IntArray.of(cols.stream().mapToInt(Integer::intValue).toArray()));
        }
        return new Mask.Painted(p.blockQ(), p.blockKv(), out);
    }

    private interface CellVisitor {
        void visit(int row, int col);
    }

    private static void forEachCell(Mask.Painted p, List<int[]> rects, CellVisitor v) {
        for (int[] r : rects) {
            for (int row = r[0] / p.blockQ(); row <= (r[1] - 1) / p.blockQ(); row++) {
                for (int col = r[2] / p.blockKv(); col <= (r[3] - 1) / p.blockKv(); col++) {
                    v.visit(row, col);
                }
            }
        }
    }
}
