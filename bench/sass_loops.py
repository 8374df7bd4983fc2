"""Opcode counts of a kernel's main loop in a `cuobjdump -sass` listing: the loop (a backward branch) whose body
holds the most tensor-core instructions (HGMMA, else HMMA), so that two builds of one kernel can be compared per step.

    python3 sass_loops.py LISTING.sass...
"""

import collections
import re
import sys

INSTRUCTION = re.compile(r"\s+/\*([0-9a-f]+)\*/\s+(.*?)\s*;")
BRANCH_TARGET = re.compile(r"\bBRA\b[^`]*?(?:`\(\.L_x_\d+\)|0x([0-9a-f]+))")
PREDICATE = re.compile(r"^@!?U?P[T0-9]+\s+")


def instructions(text):
    """[(address, opcode with modifiers, operands)] of a listing."""
    out = []
    for line in text.splitlines():
        m = INSTRUCTION.match(line)
        if m:
            body = PREDICATE.sub("", m.group(2))
            op, _, rest = body.partition(" ")
            out.append((int(m.group(1), 16), op, rest))
    return out


def opcode(op):
    return op.split(".")[0]


def main_loop(ins):
    """The instructions of the loop with the most HGMMA (then HMMA) instructions; ties go to the shorter loop."""
    best, best_key = [], None
    for addr, op, rest in ins:
        if opcode(op) != "BRA":
            continue
        m = BRANCH_TARGET.search(op + " " + rest)
        if not m or not m.group(1):
            continue
        target = int(m.group(1), 16)
        if target >= addr:
            continue
        body = [i for i in ins if target <= i[0] <= addr]
        ops = collections.Counter(opcode(o) for _, o, _ in body)
        key = (ops["HGMMA"], ops["HMMA"], -len(body))
        if best_key is None or key > best_key:
            best, best_key = body, key
    return best


def summary(text, top=24):
    ins = instructions(text)
    loop = main_loop(ins)
    counts = collections.Counter(opcode(o) for _, o, _ in loop)
    return len(ins), len(loop), counts.most_common(top)


if __name__ == "__main__":
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8", errors="replace") as f:
            total, loop, common = summary(f.read())
        print(f"{path}: {total} instructions, main loop {loop}: " + " ".join(f"{k} {v}" for k, v in common))
