"""compare_flex.time_cudnn's choice between cuDNN's two GQA layouts, with the GPU parts stubbed: which calls it makes
(enable_gqa only with K/V at their own head count), which layout it keeps, and what the row records."""

import contextlib
import random
import sys
import os
import types

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import compare_flex  # noqa: E402


class FakeTensor:
    def __init__(self, heads, repeated=False):
        self.heads, self.repeated, self.grad = heads, repeated, None

    def repeat_interleave(self, n, dim):
        assert dim == 1
        return FakeTensor(self.heads * n, True)

    def detach(self):
        return self

    def requires_grad_(self):
        return self


def stubs(calls):
    def sdpa(q, k, v, is_causal, scale, **kw):
        gqa = kw.get("enable_gqa", False)
        assert gqa == (k.heads != q.heads), "enable_gqa exactly when K/V keep fewer heads"
        calls.append(("native" if gqa else "repeated" if k.repeated else "mha", is_causal))
        return "out"
    F = types.SimpleNamespace(scaled_dot_product_attention=sdpa)
    torch = types.SimpleNamespace(cuda=types.SimpleNamespace(empty_cache=lambda: None))
    backend = types.SimpleNamespace(CUDNN_ATTENTION="cudnn")
    return torch, F, (lambda b: contextlib.nullcontext()), backend


def run(monkeypatch, heads, kv_heads, times, pass_="bwd", fail=()):
    """times: layout -> median ms the fake timing returns; fail: layouts whose call raises."""
    calls = []

    def timed(torch, attend, q, k, v, do, p, warmup, reps):
        attend(q, k, v)
        layout = calls[-1][0]
        if layout in fail:
            raise RuntimeError(f"cuDNN refused {layout}\nsecond line")
        return [times[layout]] * reps
    monkeypatch.setattr(compare_flex, "timed_pass", timed)
    row = {"heads": heads, "kv_heads": kv_heads, "pass": pass_, "useful_flops": 1e12, "computed_flops": 1e12,
           "bytes": 1e9, "seq_q": 8, "seq_kv": 8, "head_dim": 64}
    args = types.SimpleNamespace(warmup=2, reps=5)
    torch, F, kernel, backend = stubs(calls)
    r = compare_flex.time_cudnn(torch, F, kernel, backend, row, FakeTensor(heads), FakeTensor(kv_heads),
                                FakeTensor(kv_heads), None, "causal", 0.1, args)
    return r, calls


@pytest.mark.parametrize("seed", range(6))
def test_gqa_rows_time_both_layouts_and_keep_the_faster(monkeypatch, seed):
    rnd = random.Random(seed)
    times = {"native": rnd.uniform(1, 10), "repeated": rnd.uniform(1, 10)}
    group = rnd.choice([2, 4, 8])
    r, calls = run(monkeypatch, 8 * group, 8, times, pass_=rnd.choice(["fwd", "bwd"]))
    assert [c[0] for c in calls] == ["native", "repeated"] and all(c[1] for c in calls)
    best = min(times, key=times.get)
    assert r["status"] == "ok" and r["median_ms"] == pytest.approx(times[best])
    assert r["kernel"] == "sdpa-cudnn (dense causal, " + ("native GQA" if best == "native" else "K/V repeated") + ")"
    assert r["cudnn_layouts_ms"] == {"native GQA": pytest.approx(times["native"]),
                                     "K/V repeated": pytest.approx(times["repeated"])}
    assert r["useful_tflops"] == pytest.approx(1e12 / (times[best] * 1e-3) / 1e12)


def test_a_refused_native_layout_is_recorded_and_the_repeated_one_kept(monkeypatch):
    r, _ = run(monkeypatch, 32, 8, {"native": 1.0, "repeated": 3.0}, fail={"native"})
    assert r["status"] == "ok" and r["median_ms"] == pytest.approx(3.0)
    assert r["cudnn_layouts_ms"]["native GQA"] == "failed: RuntimeError: cuDNN refused native second line"
    assert r["cudnn_layouts_ms"]["K/V repeated"] == pytest.approx(3.0)


def test_both_layouts_refused_gives_a_failed_row(monkeypatch):
    r, _ = run(monkeypatch, 32, 8, {}, fail={"native", "repeated"})
    assert r["status"] == "failed: RuntimeError: cuDNN refused native second line" and r["median_ms"] is None


def test_equal_heads_run_once_without_enable_gqa_and_record_no_layouts(monkeypatch):
    r, calls = run(monkeypatch, 16, 16, {"mha": 2.0})
    assert [c[0] for c in calls] == ["mha"]
    assert r["kernel"] == "sdpa-cudnn (dense causal)" and "cudnn_layouts_ms" not in r
