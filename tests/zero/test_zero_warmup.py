"""The shipped base model: small, loadable, mostly answering at once, and made by the warm-up script."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rlcore.studies.zero import model as M
from rlcore.studies.zero import task, warmup


def test_the_shipped_file_is_small_and_loads_as_the_plan_says():
    assert warmup.BASE_PATH.stat().st_size <= 1_000_000
    base = warmup.base_model()
    plan = warmup.WARMUP
    assert (base.layers, base.width, base.heads) == (plan.layers, plan.width, plan.heads)
    assert (base.vocab, base.positions) == (len(task.VOCAB), task.POSITIONS)


def test_save_and_load_keep_every_weight_to_float32():
    model = M.init_model(len(task.VOCAB), task.POSITIONS, width=8, layers=1, heads=2, seed=3)
    path = warmup.BASE_PATH.parent / "__test_roundtrip.npz"
    try:
        warmup.save_model(model, path)
        back = warmup.load_model(path)
    finally:
        path.unlink(missing_ok=True)
    assert back.heads == 2 and set(back.params) == set(model.params)
    for k, v in model.params.items():
        np.testing.assert_array_equal(back.params[k], v.astype(np.float32).astype(np.float64))


def test_the_base_mostly_answers_at_once_and_its_immediate_answers_are_far_behind():
    s = warmup.form_stats(warmup.base_model(), task.held_out_problems(), 4, seed=1)
    assert s.worked_share < 0.25
    assert s.worked_right - s.immediate_right >= 0.4
    assert 0.05 <= s.pass1 <= 0.35


def test_the_plan_counts_its_examples():
    plan = warmup.WarmupPlan(batch=10, steps=7, worked_share=0.3)
    assert plan.examples == 70 and plan.worked_examples == 21


SHORT = 20   # warm-up steps of the cross-kernel check
ROOT = Path(__file__).resolve().parents[2]
NO_SIMD = "X86_V3 X86_V4 AVX512_ICL AVX512_SPR"  # numpy's SIMD kernels off: another processor's last bits


def test_a_short_warmup_on_other_kernels_gives_the_same_weights_within_float_rounding(tmp_path):
    """On another processor (numpy's baseline kernels, in a
    subprocess) its weights agree to 1e-9: each kernel rounds exp, tanh … differently in the last bit (~1e-16),
    and 20–60 Adam steps grow that to ~1e-15 here; 1e-9 leaves room for that growth and still catches any step that
    computes something else. The full warm-up's float32 weights then differ by at most a float32 step or so
    (rtol 1e-5, the exhaustive test below)."""
    plan = warmup.WarmupPlan(steps=SHORT)
    here = warmup.warm_up(plan)
    out = tmp_path / "other.npz"
    script = ("import sys, numpy as np; from rlcore.studies.zero import warmup; "
              f"np.savez(sys.argv[1], **warmup.warm_up(warmup.WarmupPlan(steps={SHORT})).params)")
    env = {**os.environ, "NPY_DISABLE_CPU_FEATURES": NO_SIMD, "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-c", script, str(out)], check=True, env=env, cwd=ROOT, timeout=120)
    with np.load(out) as other:
        assert set(other.files) == set(here.params)
        for k, v in here.params.items():
            np.testing.assert_allclose(other[k], v, rtol=0, atol=1e-9, err_msg=k)


@pytest.mark.exhaustive
def test_the_warmup_script_reproduces_the_shipped_weights():
    rebuilt = warmup.warm_up(warmup.WARMUP)
    shipped = warmup.base_model()
    for k, v in shipped.params.items():
        # the file keeps float32: the rebuilt float64 weights, rounded the same way, must be the same numbers
        np.testing.assert_allclose(rebuilt.params[k].astype(np.float32), v, rtol=1e-5, atol=1e-6, err_msg=k)
