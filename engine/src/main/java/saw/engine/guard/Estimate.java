package saw.engine.guard;

import java.util.Locale;
import java.util.Objects;

/**
 * What a piece of work needs of one resource against what is free of it, measured before the work starts: the
 * bytes (an upper estimate; for {@link Resource#COMPILE_TILES} a count of tiles), the bytes available (saw's limit)
 * and a sentence for people. {@link SizeGuard} makes them.
 *
 * @param work what would run, e.g. "compiling causal (131072 x 131072, batch 1, heads 16) to 128x128 tiles"
 * @param advice what to change when it does not fit; may be empty
 */
public record Estimate(String work, Resource resource, long bytes, long available, String advice) {
    /** What the work takes: bytes of a memory or of a disk, or (COMPILE_TILES) tiles a compile classifies one by one. */
    public enum Resource {
        HEAP("Java heap"),
        GPU("GPU memory"),
        /** GPU memory against the device's total, before the GPU is opened (its free memory is known only then). */
        GPU_TOTAL("GPU memory"),
        DISK("disk space"),
        /** Compile time, counted in tiles classified one by one; "available" is saw's limit. */
        COMPILE_TILES("tiles classified one by one");

        private final String label;

        Resource(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }

        String amount(long n) {
            return this == COMPILE_TILES ? String.format(Locale.ROOT, "%.2g", (double) n) : Bytes.human(n);
        }
    }

    public Estimate {
        Objects.requireNonNull(work, "work");
        Objects.requireNonNull(resource, "resource");
        Objects.requireNonNull(advice, "advice");
        if (bytes < 0 || available < 0) {
            throw new IllegalArgumentException("bytes and available must be >= 0, got " + bytes + " and " + available);
        }
    }

    public boolean fits() {
        return bytes <= available;
    }

    /**
     * "compiling X needs about 1.2 MiB of Java heap; 3.8 GiB is free." or, when it does not fit, "compiling X needs
     * about 45.1 GiB of Java heap, but only 3.8 GiB is free; ADVICE." Compile time reads "compiling X classifies up to
     * 1.1e+12 tiles one by one, over saw's limit of 6.9e+10; ADVICE."
     */
    public String sentence() {
        if (resource == Resource.COMPILE_TILES) {
            String needs = work + " classifies up to " + resource.amount(bytes) + " tiles one by one";
            return fits() ? needs + "." : needs + ", over saw's limit of " + resource.amount(available) + (advice.isEmpty() ? "" : "; " + advice) + ".";
        }
        String needs = work + " needs about " + resource.amount(bytes) + " of " + resource.label();
        if (resource == Resource.GPU_TOTAL) {
            String total = resource.amount(available) + " is the GPU's total";
            return fits() ? needs + "; " + total + " (what other processes hold is checked when the run starts)."
                    : needs + ", but " + total + (advice.isEmpty() ? "" : "; " + advice) + ".";
        }
        if (fits()) {
            return needs + "; " + resource.amount(available) + " " + (resource == Resource.DISK ? "is free there" : "is free") + ".";
        }
        return needs + ", but only " + resource.amount(available) + " is free" + (advice.isEmpty() ? "" : "; " + advice) + ".";
    }

    /**
     * This estimate when it fits.
     *
     * @throws TooLarge carrying this estimate when it does not
     */
    public Estimate orThrow() {
        if (!fits()) {
            throw new TooLarge(this);
        }
        return this;
    }
}
