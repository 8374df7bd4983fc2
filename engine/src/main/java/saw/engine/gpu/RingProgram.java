package saw.engine.gpu;

import java.util.ArrayList;
import java.util.List;

/**
 * The order in which the ring executor issues its work, worked out from which (device, step) pairs have any tiles:
 * exchanges (groups of sends and receives on the communication streams) and computes (a step's kernel on a device's
 * compute stream). Pure, so that its scheduling can be checked without a GPU.
 *
 * <p>At step {@code s} device {@code d} attends its queries to the K/V shard that device {@code (d - s) mod N} owns,
 * held in K/V slot {@code s % 2}. Shard {@code o} travels {@code o -> o+1 -> ...} only as far as the last device
 * whose step on it is non-empty ({@link #chainEnd}); beyond that both sides skip the transfer, and a device with an
 * empty step launches nothing. The exchange that brings step {@code s+1}'s shard is issued before step {@code s}'s
 * computes, so it runs while they do.
 *
 * <p>The backward pass also carries each shard's dK/dV accumulator (fp32): a device adds its step's contribution to the
 * accumulator that arrived with the shard and passes it on after the step's compute; the last device of a chain
 * sends it home to the owner's {@link #HOME} slot (a shard only its owner uses accumulates there from the start);
 * every device's slot 0 and {@link #HOME} start at zero. K/V for the step after next still travels during the next
 * step's compute, behind that hand-over on the same stream.
 *
 * <p>How an interpreter must order things (the GPU executor does exactly this): before an exchange, each device taking
 * part makes its communication stream wait for its latest issued compute (so that no slot is overwritten while a
 * kernel still reads it); after the exchange it records an arrival on that stream. A compute waits for the arrival
 * of the exchange that filled its K/V slot before its kernel and, in the backward pass, for the one that filled its
 * accumulator before adding to it.
 */
final class RingProgram {
    /** The accumulator slot a chain's last device sends a shard's finished dK/dV to, on the owner. */
    static final int HOME = 2;

    /** What a transfer carries: a K/V shard (bf16/fp16) or a shard's dK/dV accumulator (fp32). */
    enum Payload { KV, DKV }

    /** One send and its matching receive. */
    record Transfer(Payload payload, int from, int to, int fromSlot, int toSlot) {}

    /** Something issued, in order. */
    sealed interface Op permits Exchange, Compute {}

    /** Sends and receives issued together (one NCCL group), before step {@code step}'s computes (K/V) or after them (dK/dV). */
    record Exchange(int id, int step, Payload payload, List<Transfer> transfers) implements Op {
        Exchange {
            transfers = List.copyOf(transfers);
        }

        boolean involves(int device) {
            return transfers.stream().anyMatch(t -> t.from() == device || t.to() == device);
        }
    }

    /**
     * Device {@code device}'s step {@code step}: its kernel reads K/V slot {@code kvSlot}, after the arrival of
     * exchange {@code kvArrival} (-1: nothing to wait for, the device's own shard); in the backward pass it then adds
     * its dK/dV to accumulator slot {@code accSlot} after exchange {@code accArrival} (-1 when none).
     */
    record Compute(int device, int step, int kvSlot, int kvArrival, int accSlot, int accArrival) implements Op {}

    private final int devices;
    private final boolean backward;
    private final int[] chainEnd;
    private final List<Op> ops;

    private RingProgram(int devices, boolean backward, int[] chainEnd, List<Op> ops) {
        this.devices = devices;
        this.backward = backward;
        this.chainEnd = chainEnd;
        this.ops = List.copyOf(ops);
    }

    /**
     * The program for {@code work[d][s]}: whether device d has any tile at step s.
     *
     * @throws IllegalArgumentException when the table is not N x N for N >= 1
     */
    static RingProgram of(boolean[][] work, boolean backward) {
        int n = work.length;
        if (n < 1) {
            throw new IllegalArgumentException("a ring needs at least one device");
        }
        for (int d = 0; d < n; d++) {
            if (work[d].length != n) {
                throw new IllegalArgumentException("device " + d + " has " + work[d].length + " steps; a ring of " + n
                        + " devices has " + n);
            }
        }
        int[] end = new int[n];
        for (int o = 0; o < n; o++) {
            for (int t = 0; t < n; t++) {
                if (work[(o + t) % n][t]) {
                    end[o] = t;
                }
            }
        }
        List<Op> ops = new ArrayList<>();
        int[] kvArrival = new int[n];
        int[] accArrival = new int[n];
        java.util.Arrays.fill(kvArrival, -1);
        java.util.Arrays.fill(accArrival, -1);
        int[] nextKv = new int[n];
        int[] nextAcc = new int[n];
        for (int s = 0; s < n; s++) {
            java.util.Arrays.fill(nextKv, -1);
            if (s + 1 < n) {
                List<Transfer> kv = new ArrayList<>();
                for (int d = 0; d < n; d++) {
                    int owner = Math.floorMod(d - (s + 1), n);
                    if (s + 1 <= end[owner]) {
                        kv.add(new Transfer(Payload.KV, Math.floorMod(d - 1, n), d, s % 2, (s + 1) % 2));
                    }
                }
                if (!kv.isEmpty()) {
                    Exchange e = new Exchange(ops.size(), s + 1, Payload.KV, kv);
                    ops.add(e);
                    for (Transfer t : kv) {
                        nextKv[t.to()] = e.id();
                    }
                }
            }
            for (int d = 0; d < n; d++) {
                if (work[d][s]) {
                    // a shard nobody else uses keeps its dK/dV at home from the start: slot 0 is reused at step 2
                    int accSlot = !backward ? -1 : s == 0 && end[d] == 0 ? HOME : s % 2;
                    ops.add(new Compute(d, s, s % 2, s == 0 ? -1 : kvArrival[d], accSlot,
                            backward && s > 0 ? accArrival[d] : -1));
                }
            }
            if (backward) {
                java.util.Arrays.fill(nextAcc, -1);
                List<Transfer> acc = new ArrayList<>();
                for (int d = 0; d < n; d++) {
                    int owner = Math.floorMod(d - s, n);
                    if (s < end[owner]) {
                        acc.add(new Transfer(Payload.DKV, d, (d + 1) % n, s % 2, (s + 1) % 2));
                    } else if (s == end[owner] && s > 0) {
                        acc.add(new Transfer(Payload.DKV, d, owner, s % 2, HOME));
                    }
                }
                if (!acc.isEmpty()) {
                    Exchange e = new Exchange(ops.size(), s, Payload.DKV, acc);
                    ops.add(e);
                    for (Transfer t : acc) {
                        if (t.toSlot() != HOME) {
                            nextAcc[t.to()] = e.id();
                        }
                    }
                }
                System.arraycopy(nextAcc, 0, accArrival, 0, n);
            }
            System.arraycopy(nextKv, 0, kvArrival, 0, n);
        }
        return new RingProgram(n, backward, end, ops);
    }

    int devices() {
        return devices;
    }

    boolean backward() {
        return backward;
    }

    List<Op> ops() {
        return ops;
    }

    /** The last step at which shard {@code owner} is used (0 when only its owner uses it, or nobody). */
    int chainEnd(int owner) {
        return chainEnd[owner];
    }


    /** Transfers of a payload over the whole run. */
    long transfers(Payload payload) {
        return ops.stream().filter(o -> o instanceof Exchange e && e.payload() == payload)
                .mapToLong(o -> ((Exchange) o).transfers().size()).sum();
    }
}
