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
     * A whole number >= 1 from the system property, else the environment variable; 0 when neither is set.
     *
     * @throws IllegalArgumentException naming the setting when the value is not such a number
     */
    static int positive(String property, String env, String what) {
        String fromProperty = System.getProperty(property);
        String setting = fromProperty != null ? "-D" + property : env;
        String value = fromProperty != null ? fromProperty : System.getenv(env);
        if (value == null) {
            return 0;
        }
        try {
            int n = Integer.parseInt(value.trim());
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException e) {
            // named below
        }
        throw new IllegalArgumentException(setting + "=" + value + " is not a number of " + what + " (a whole number >= 1)");
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
