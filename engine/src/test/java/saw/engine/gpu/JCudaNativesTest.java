package saw.engine.gpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import jcuda.LibUtils;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JCudaNativesTest {
    private static byte[] library;

    @BeforeAll
    static void readLibrary() throws IOException {
        try (InputStream in = LibUtils.class.getResourceAsStream("/lib/" + JCudaNatives.fileName())) {
            assertTrue(in != null, "the natives jar on the test class path holds " + JCudaNatives.fileName());
            library = in.readAllBytes();
        }
        assertTrue(library.length > 100_000, "a real shared library, not an empty resource");
    }

    @Test
    void namesTheFileAsJCudaLoadsIt() {
        String name = JCudaNatives.fileName();
        assertTrue(name.startsWith("libJCudaDriver-12.6.0-"), name);
        assertTrue(name.endsWith(".so"), name);
    }

    @Test
    void writesTheWholeLibraryIntoAnEmptyFolder(@TempDir Path dir) throws IOException {
        assertTrue(JCudaNatives.place(dir.resolve("made/here")));
        assertArrayEquals(library, Files.readAllBytes(dir.resolve("made/here").resolve(JCudaNatives.fileName())));
        assertEquals(List.of(JCudaNatives.fileName()), names(dir.resolve("made/here")), "no partial copies left");
    }

    @Test
    void replacesACopyCutShort(@TempDir Path dir) throws IOException {
        Path target = dir.resolve(JCudaNatives.fileName());
        Files.write(target, Arrays.copyOf(library, library.length / 3));
        JCudaNatives.place(dir);
        assertArrayEquals(library, Files.readAllBytes(target));

        byte[] flipped = library.clone();
        flipped[flipped.length / 2] ^= 1;  // same length, different bytes
        Files.write(target, flipped);
        JCudaNatives.place(dir);
        assertArrayEquals(library, Files.readAllBytes(target));
        assertEquals(List.of(JCudaNatives.fileName()), names(dir));
    }

    @Test
    void leavesAWholeCopyAlone(@TempDir Path dir) throws IOException {
        JCudaNatives.place(dir);
        Path target = dir.resolve(JCudaNatives.fileName());
        FileTime past = FileTime.fromMillis(1_000_000_000_000L);
        Files.setLastModifiedTime(target, past);
        JCudaNatives.place(dir);
        assertEquals(past, Files.getLastModifiedTime(target), "an identical file is not rewritten");
    }

    /**
     * Writers racing on a fresh folder, as JVMs starting together do, while a reader looks at the file as often as it
     * can: the reader must never see anything but the whole library (JCuda's own in-place write shows it growing).
     */
    @Test
    void racingWritersNeverShowAPartialFile(@TempDir Path root) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(9);
        try {
            for (int round = 0; round < 12; round++) {
                Path dir = root.resolve("round" + round);
                Path target = dir.resolve(JCudaNatives.fileName());
                CountDownLatch start = new CountDownLatch(1);
                AtomicBoolean writing = new AtomicBoolean(true);
                ConcurrentSkipListSet<Long> sizesSeen = new ConcurrentSkipListSet<>();
                Future<?> reader = pool.submit(() -> {
                    start.await();
                    while (writing.get()) {
                        try {
                            sizesSeen.add(Files.size(target));
                        } catch (IOException absent) {
                            // not there yet
                        }
                    }
                    return null;
                });
                List<Future<Boolean>> writers = new ArrayList<>();
                for (int w = 0; w < 8; w++) {
                    writers.add(pool.submit(() -> {
                        start.await();
                        return JCudaNatives.place(dir);
                    }));
                }
                start.countDown();
                for (Future<Boolean> f : writers) {
                    assertTrue(f.get());
                }
                writing.set(false);
                reader.get();
                sizesSeen.add(Files.size(target));
                assertEquals(Set.of((long) library.length), sizesSeen, "round " + round + ": sizes the reader saw");
                assertArrayEquals(library, Files.readAllBytes(target));
                assertEquals(List.of(JCudaNatives.fileName()), names(dir), "round " + round + ": no copies left over");
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static List<String> names(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
