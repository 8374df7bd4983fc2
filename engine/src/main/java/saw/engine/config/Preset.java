package saw.engine.config;

/** A config shipped with saw, by the name {@code preset:NAME} uses. */
public record Preset(String name, MaskConfig config) {}
