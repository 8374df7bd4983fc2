# Run: python3 ring_model.py (prints ok). The shared walk's ring (shared-walk.patch, nsa_fwd_shared) as a model.
# A model of nsa_fwd_shared's ring protocol with random interleavings: mbarrier phases with parity waits,
# full (32 producer-lane arrivals per fill), empty (8 consumer warps per use). Checks: no deadlock, each consumer
# reads slot data of the position it expects, no slot overwritten while a consumer still needs it.
import random
R=24
class Bar:
    def __init__(s,count): s.count=count; s.pending=count; s.phase=0
    def arrive(s):
        s.pending-=1
        assert s.pending>=0
        if s.pending==0: s.phase+=1; s.pending=s.count
    def done(s,parity):  # try_wait.parity: true once the phase with this parity has completed
        return (s.phase & 1) != parity   # current phase parity differs => phase 'parity' completed
def run(positions, seed):
    rnd=random.Random(seed)
    full=[Bar(32) for _ in range(R)]; empty=[Bar(8) for _ in range(R)]
    data=[None]*R; readers=[set() for _ in range(R)]
    prod={'pos':0,'lane':0,'state':'wait'}
    cons=[{'pos':0,'state':'wait'} for _ in range(8)]
    inflight=[]  # (slot, pos) copies landing later
    steps=0
    while True:
        steps+=1
        assert steps<200000, 'deadlock'
        actors=[]
        if prod['pos']<positions: actors.append('p')
        actors+= [i for i in range(8) if cons[i]['pos']<positions]
        if inflight: actors.append('land')
        if not actors: break
        a=rnd.choice(actors)
        if a=='p':
            pos=prod['pos']; slot=pos%R
            if pos>=R and not empty[slot].done(((pos//R)-1)&1): continue
            # the slot must be free: every consumer finished pos-R
            assert all(c['pos']>pos-R for c in cons), 'overwrite before release'
            inflight.append((slot,pos)); prod['pos']+=1
        elif a=='land':
            slot,pos=inflight.pop(rnd.randrange(len(inflight)))
            data[slot]=pos
            for _ in range(32): full[slot].arrive()
        else:
            c=cons[a]; pos=c['pos']; slot=pos%R
            if not full[slot].done((pos//R)&1): continue
            assert data[slot]==pos, ('stale', a, pos, data[slot])
            empty[slot].arrive(); c['pos']+=1
    return steps
for seed in range(300):
    run(random.Random(seed).randint(0,200), seed)
print('ok')
