package saw.engine.guard;

import java.util.Objects;

/**
 * What a piece of work needs of one resource against what is free of it, measured before the work starts: the
 * bytes (an upper estimate), the bytes available and a sentence for people. {@link SizeGuard} makes them.
 *
 * @param work what would run, e.g. "compiling causal (131072 x 131072, batch 1, heads 16) to 128x128 tiles"
 * @param advice what to change when it does not fit; may be empty
 */
public record Estimate(String work, Resource resource, long bytes, long available, String advice) {
    /** What the bytes are taken from. */
    public enum Resource {
        HEAP("Java heap"),
        GPU("GPU memory"),
        DISK("disk space");

        private final String label;

        Resource(String label) {
            this.label = label;
        }

        public String label() {
            return label;
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
     * about 45.1 GiB of Java heap, but only 3.8 GiB is free; ADVICE."
     */
    public String sentence() {
        String needs = work + " needs about " + Bytes.human(bytes) + " of " + resource.label();
        if (fits()) {
            return needs + "; " + Bytes.human(available) + " " + (resource == Resource.DISK ? "is free there" : "is free") + ".";
        }
        return needs + ", but only " + Bytes.human(available) + " is free" + (advice.isEmpty() ? "" : "; " + advice) + ".";
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
