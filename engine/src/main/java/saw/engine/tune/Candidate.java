package saw.engine.tune;

import saw.engine.attention.KernelTiles;

/** One thing a tune times: a tile size and a kernel family label ("mma", "wgmma-pp", "cpu", ...). */
public record Candidate(KernelTiles tiles, String family) {
    public Candidate {
        if (tiles == null || family == null || family.isBlank() || family.contains(" ")) {
            throw new IllegalArgumentException("a candidate needs a tile and a one-word family, got " + tiles + " " + family);
        }
    }

    /** "128x64 mma". */
    @Override
    public String toString() {
        return tiles + " " + family;
    }

    /** Parses {@link #toString()}'s form. */
    public static Candidate parse(String s) {
        String[] parts = s.trim().split(" ");
        if (parts.length != 2) {
            throw new IllegalArgumentException("candidate '" + s + "' is not of the form 'QxKV family'");
        }
        return new Candidate(KernelTiles.parse(parts[0]), parts[1]);
    }
}
