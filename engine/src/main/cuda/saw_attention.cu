// The one translation unit the build compiles into the saw_attention.fatbin resource: every kernel family.
#include "attention_fwd.cu"
#include "attention_bwd.cu"
#include "random_fill.cu"
#include "attention_fwd_wgmma.cu"
#include "attention_bwd_wgmma.cu"
#include "ring_combine.cu"
#include "sinks.cu"
#include "nsa.cu"
