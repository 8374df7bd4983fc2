package saw.engine.attention;

/** The tile a kernel launch works on: {@code blockQ} query rows by {@code blockKv} key columns. */
public record KernelTiles(int blockQ, int blockKv) {
    public KernelTiles {
        if (blockQ < 1 || blockKv < 1) {
            throw new IllegalArgumentException("tile sizes must be >= 1, got " + blockQ + "x" + blockKv);
        }
    }

    /** Parses "128x64". */
    public static KernelTiles parse(String s) {
        String[] parts = s.trim().toLowerCase(java.util.Locale.ROOT).split("x");
        if (parts.length != 2) {
            throw new IllegalArgumentException("tile size '" + s + "' is not of the form QxKV, e.g. 128x64");
        }
        try {
            return new KernelTiles(Integer.parseInt(parts[0].trim()), Integer.parseInt(parts[1].trim()));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("tile size '" + s + "' is not of the form QxKV, e.g. 128x64");
        }
    }

    @Override
    public String toString() {
        return blockQ + "x" + blockKv;
    }
}
