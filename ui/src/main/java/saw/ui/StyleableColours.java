package saw.ui;

import java.util.function.Function;
import javafx.css.CssMetaData;
import javafx.css.SimpleStyleableObjectProperty;
import javafx.css.Styleable;
import javafx.css.StyleableObjectProperty;
import javafx.css.StyleableProperty;
import javafx.css.converter.ColorConverter;
import javafx.scene.paint.Color;

/** A view's colours that saw.css sets by name ({@code -saw-...-color}): the property and its CSS metadata. */
public final class StyleableColours {
    private StyleableColours() {}

    /** A colour of {@code bean} that the stylesheet sets through {@code meta}, {@code initial} until it does. */
    public static <S extends Styleable> StyleableObjectProperty<Color> property(S bean, String name, Color initial,
                                                                             CssMetaData<S, Color> meta) {
        return new SimpleStyleableObjectProperty<>(meta, bean, name, initial);
    }

    /** The CSS property {@code property} that sets the colour {@code get} returns, unless that colour is bound. */
    public static <S extends Styleable> CssMetaData<S, Color> meta(String property, Color initial,
                                                                 Function<S, StyleableObjectProperty<Color>> get) {
        return new CssMetaData<>(property, ColorConverter.getInstance(), initial) {
            @Override
            public boolean isSettable(S v) {
                return !get.apply(v).isBound();
            }

            @Override
            public StyleableProperty<Color> getStyleableProperty(S v) {
                return get.apply(v);
            }
        };
    }
}
