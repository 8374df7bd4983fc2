# Run: python3 walk_skip_model.py (prints what it found). A model of the shared walk's ring with the change the kernel
# notes propose for random selections ("The shared walk, measured"): a consumer skips the chunks its token did not
# choose instead of waiting on and releasing every chunk, and the producer arrives on each chunk's empty barrier for
# the consumers that skip it. mbarriers are modelled with phases and parity waits, as on the GPU (try_wait.parity is
# true once the phase of that parity has completed, so it cannot tell phase k from phase k - 2).
# Checks over random interleavings: no deadlock, every consumer reads its own chunk's data, no slot refilled while a
# user still needs it. With guard=False (a skipping consumer goes straight to the parity wait) the model finds stale
# reads; with guard=True (the producer publishes which chunk a slot holds when it starts the fill, and the consumer
# waits for that number before the parity wait) it finds none.
import random


class Bar:
    def __init__(self, count):
        self.count = count
        self.pending = count
        self.phase = 0

    def arrive(self, n=1):
        self.pending -= n
        assert self.pending >= 0, "more arrivals than the phase expects"
        if self.pending == 0:
            self.phase += 1
            self.pending = self.count

    def done(self, parity):
        return (self.phase & 1) != parity


def run(users, warps, slots, guard, seed):
    """users[pos]: the consumers (at least one) that compute chunk pos. Returns None or the first violation."""
    rnd = random.Random(seed)
    n = len(users)
    full = [Bar(32) for _ in range(slots)]  # the producer's 32 lanes, once their copies land
    empty = [Bar(warps) for _ in range(slots)]  # users' releases plus the producer's arrivals for the rest
    data = [None] * slots
    filling = [-1] * slots  # the guard: which chunk the slot's current fill holds
    mine = [[p for p in range(n) if w in users[p]] for w in range(warps)]
    prod = 0
    cons = [0] * warps  # index into mine[w]
    inflight = []
    for steps in range(1, 400000):
        actors = []
        if prod < n:
            actors.append("p")
        actors += [w for w in range(warps) if cons[w] < len(mine[w])]
        if inflight:
            actors.append("land")
        if not actors:
            return None
        a = rnd.choice(actors)
        if a == "p":
            slot = prod % slots
            if prod >= slots and not empty[slot].done(((prod // slots) - 1) & 1):
                continue
            for w in range(warps):  # no user of the slot's previous chunk may still need it
                if cons[w] < len(mine[w]) and mine[w][cons[w]] == prod - slots:
                    return f"slot {slot} refilled with chunk {prod} while warp {w} still needs chunk {prod - slots}"
            filling[slot] = prod
            inflight.append((slot, prod))
            skipped = warps - len(users[prod])
            if skipped:
                empty[slot].arrive(skipped)
            prod += 1
        elif a == "land":
            slot, pos = inflight.pop(rnd.randrange(len(inflight)))
            data[slot] = pos
            full[slot].arrive(32)
        else:
            w = a
            pos = mine[w][cons[w]]
            slot = pos % slots
            if guard and filling[slot] != pos:
                assert filling[slot] < pos, "a slot moved past a chunk its user has not released"
                continue
            if not full[slot].done((pos // slots) & 1):
                continue
            if data[slot] != pos:
                return f"warp {w} read slot {slot} for chunk {pos} but it held chunk {data[slot]}"
            empty[slot].arrive()
            cons[w] += 1
    return "deadlock"


def draw(rnd, warps, n, density):
    out = []
    for _ in range(n):
        u = {w for w in range(warps) if rnd.random() < density}
        out.append(u or {rnd.randrange(warps)})
    return out


def main():
    found = {False: 0, True: 0}
    first = {}
    for guard in (False, True):
        for seed in range(400):
            rnd = random.Random(seed)
            warps = rnd.choice([8, 11])
            slots = rnd.choice([2, 3, 12])
            density = rnd.choice([0.05, 0.15, 0.4, 0.9])  # random selections share little, scored ones much
            users = draw(rnd, warps, rnd.randint(0, 300), density)
            bad = run(users, warps, slots, guard, seed)
            if bad:
                found[guard] += 1
                first.setdefault(guard, f"seed {seed}: {bad}")
    print(f"without the guard: {found[False]} of 400 runs went wrong ({first.get(False, 'none')})")
    print(f"with the guard: {found[True]} of 400 runs went wrong ({first.get(True, 'none')})")
    assert found[True] == 0


if __name__ == "__main__":
    main()
