package saw.engine.gpu;

import java.util.Locale;
import java.util.function.Function;

/** Reads which kernel family to prefer: a system property, else an environment variable, else a default. */
final class KernelSetting {
    private KernelSetting() {}

    static <E extends Enum<E>> E configured(E[] families, Function<E, String> label, String property, String env, E fallback,
            String pass) {
        String fromProperty = System.getProperty(property);
        if (fromProperty != null) {
            return parse(families, label, fromProperty, "-D" + property, pass);
        }
        String fromEnv = System.getenv(env);
        return fromEnv == null ? fallback : parse(families, label, fromEnv, env, pass);
    }

    /**
     * @throws IllegalArgumentException naming the setting and the labels when the value is not one of them
     */
    static <E extends Enum<E>> E parse(E[] families, Function<E, String> label, String value, String setting, String pass) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        StringBuilder labels = new StringBuilder();
        for (int i = 0; i < families.length; i++) {
            if (label.apply(families[i]).equals(v)) {
                return families[i];
            }
            labels.append(i == 0 ? "" : i == families.length - 1 ? " or " : ", ").append(label.apply(families[i]));
        }
        throw new IllegalArgumentException(setting + "=" + value + " is not a " + pass + " kernel family (" + labels + ")");
    }
}
