package saw.tests;

import java.util.ArrayList;
import java.util.List;
import javafx.geometry.BoundingBox;
import javafx.geometry.Bounds;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.control.ButtonBase;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.ComboBoxBase;
import javafx.scene.control.Label;
import javafx.scene.control.Labeled;
import javafx.scene.control.ProgressBar;
import javafx.scene.control.Slider;
import javafx.scene.control.Spinner;
import javafx.scene.control.TextInputControl;
import javafx.scene.control.ToolBar;
import javafx.scene.text.Text;

/**
 * Walks a scene graph and lists what a user would see cut off: a control whose skin shows less text than it holds
 * (an ellipsis), a toolbar that hides items behind its overflow button, and controls drawn over each other.
 * Nodes in hidden branches, and the parts clipped away by a scroll pane or split pane, are not looked at.
 */
final class LayoutCheck {
    private LayoutCheck() {}

    /** Problems found under {@code root}, one sentence each; empty when none. Call on the FX thread after layout. */
    static List<String> problems(Parent root, String where) {
        List<String> out = new ArrayList<>();
        List<Node> atoms = new ArrayList<>();
        walk(root, where, out, atoms, false);
        for (int i = 0; i < atoms.size(); i++) {
            Bounds a = visibleBounds(atoms.get(i));
            for (int j = i + 1; j < atoms.size(); j++) {
                Bounds b = visibleBounds(atoms.get(j));
                if (a != null && b != null && overlap(a, b) && !nested(atoms.get(i), atoms.get(j))) {
                    out.add(where + ": " + describe(atoms.get(i)) + " and " + describe(atoms.get(j)) + " overlap ("
                            + fmt(a) + " / " + fmt(b) + ")");
                }
            }
        }
        return out;
    }

    private static void walk(Node n, String where, List<String> out, List<Node> atoms, boolean inVirtualFlow) {
        if (!n.isVisible() || visibleBounds(n) == null) {
            return;
        }
        if (n instanceof Labeled l && !inVirtualFlow) {
            String shown = shownText(l);
            String full = l.isMnemonicParsing() ? l.getText().replace("_", "") : l.getText();
            if (full != null && !full.isEmpty() && shown != null && !shown.replace("\n", " ").trim()
                    .equals(full.replace("\n", " ").trim())) {
                out.add(where + ": " + describe(l) + " shows \"" + shown + "\" of \"" + full + "\"");
            }
        }
        if (n instanceof ToolBar t) {
            for (Node item : t.getItems()) {
                if (item.isManaged() && (item.getScene() == null || item.getParent() == null || !item.isVisible())) {
                    out.add(where + ": " + describe(item) + " is hidden in the overflow of toolbar " + describe(t));
                }
            }
        }
        boolean atom = n instanceof ButtonBase || n instanceof Label || n instanceof TextInputControl
                || n instanceof ComboBoxBase || n instanceof ChoiceBox || n instanceof Slider || n instanceof Spinner
                || n instanceof ProgressBar;
        if (atom && !inVirtualFlow) {
            atoms.add(n);
            if (n instanceof TextInputControl t && t.getPromptText() == null && t.getText() != null
                    && !t.getText().isEmpty() && t.getWidth() < 24) {
                out.add(where + ": " + describe(n) + " is " + Math.round(t.getWidth()) + " px wide, too narrow to show \""
                        + t.getText() + "\"");
            }
            if (n instanceof ComboBoxBase<?> c) {
                // the chosen value's cell is checked like any label; the rest of a combo box is its own business
                for (Node part : c.getChildrenUnmodifiable()) {
                    if (part instanceof Labeled) {
                        walk(part, where, out, new ArrayList<>(), false);
                    }
                }
                return;
            }
            if (!(n instanceof Labeled) || n instanceof ButtonBase) {
                return; // the parts of a field or button are the control's own business
            }
        }
        // rows of tables, lists and trees scroll and are cut by design; their headers are checked
        boolean flow = inVirtualFlow || n.getClass().getSimpleName().equals("VirtualFlow");
        if (n instanceof Parent p) {
            for (Node c : p.getChildrenUnmodifiable()) {
                walk(c, where, out, atoms, flow);
            }
        }
    }

    /** The text the skin draws for a labeled control (LabeledText), or null when its skin has none. */
    private static String shownText(Labeled l) {
        for (Node c : l.getChildrenUnmodifiable()) {
            if (c instanceof Text t && c.getClass().getSimpleName().equals("LabeledText")) {
                return t.getText();
            }
        }
        return null;
    }

    /** The node's bounds in the scene, cut by every clipping ancestor; null when nothing of it is left. */
    static Bounds visibleBounds(Node n) {
        Bounds b = n.localToScene(n.getLayoutBounds());
        if (b.getWidth() <= 0 || b.getHeight() <= 0) {
            return null;
        }
        for (Node p = n.getParent(); p != null; p = p.getParent()) {
            if (!p.isVisible()) {
                return null;
            }
            if (p.getClip() != null) {
                Bounds c = p.localToScene(p.getClip().getBoundsInParent());
                b = intersect(b, c);
                if (b == null) {
                    return null;
                }
            }
        }
        if (n.getScene() != null) {
            b = intersect(b, new BoundingBox(0, 0, n.getScene().getWidth(), n.getScene().getHeight()));
        }
        return b;
    }

    private static Bounds intersect(Bounds a, Bounds b) {
        double x0 = Math.max(a.getMinX(), b.getMinX());
        double y0 = Math.max(a.getMinY(), b.getMinY());
        double x1 = Math.min(a.getMaxX(), b.getMaxX());
        double y1 = Math.min(a.getMaxY(), b.getMaxY());
        return x1 - x0 < 1 || y1 - y0 < 1 ? null : new BoundingBox(x0, y0, x1 - x0, y1 - y0);
    }

    private static boolean overlap(Bounds a, Bounds b) {
        // a pixel of shared border is how touching controls look, not an overlap
        return Math.min(a.getMaxX(), b.getMaxX()) - Math.max(a.getMinX(), b.getMinX()) > 1.5
                && Math.min(a.getMaxY(), b.getMaxY()) - Math.max(a.getMinY(), b.getMinY()) > 1.5;
    }

    private static boolean nested(Node a, Node b) {
        for (Node p = a.getParent(); p != null; p = p.getParent()) {
            if (p == b) {
                return true;
            }
        }
        for (Node p = b.getParent(); p != null; p = p.getParent()) {
            if (p == a) {
                return true;
            }
        }
        return false;
    }

    static String describe(Node n) {
        String id = n.getId() != null ? "#" + n.getId() : "";
        String text = n instanceof Labeled l && l.getText() != null ? " \"" + l.getText() + "\"" : "";
        if (id.isEmpty()) {
            for (Node p = n.getParent(); p != null; p = p.getParent()) {
                if (p.getId() != null) {
                    id = "(in #" + p.getId() + ")";
                    break;
                }
            }
        }
        return n.getClass().getSimpleName() + id + text;
    }

    private static String fmt(Bounds b) {
        return String.format(java.util.Locale.ROOT, "%.0f,%.0f %.0fx%.0f", b.getMinX(), b.getMinY(), b.getWidth(), b.getHeight());
    }
}
