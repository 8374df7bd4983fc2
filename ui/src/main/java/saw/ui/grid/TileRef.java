package saw.ui.grid;

/** One tile of a grid: its q-block row and kv-block column. */
public record TileRef(int qBlock, int kvBlock) {}
