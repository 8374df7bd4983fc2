package saw.engine.mask;

/** How a tile (a q-range x kv-range rectangle) of the attention matrix is covered by a mask. */
public enum TileClass {
    /** No pair in the tile attends: kernels skip it. */
    EMPTY,
    /** Some pairs attend, some do not: kernels apply the token mask. */
    PARTIAL,
    /** Every in-range pair attends: kernels run it with no mask arithmetic. */
    FULL;

    public static TileClass of(boolean anyAttends, boolean allAttend) {
        return allAttend ? FULL : anyAttends ? PARTIAL : EMPTY;
    }
}
