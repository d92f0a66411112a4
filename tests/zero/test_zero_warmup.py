"""The shipped base model: small, loadable, seldom working, right where the working leaves one step, and made by the
warm-up script (deterministic, and the same within rounding on another processor)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rlcore.studies.zero import model as M
from rlcore.studies.zero import task, warmup
from tests.rejects import rejects


def test_the_shipped_file_is_small_and_loads_as_the_plan_says():
    assert warmup.BASE_PATH.stat().st_size <= 1_000_000
    base, plan = warmup.base_model(), warmup.WARMUP
    assert (base.layers, base.width, base.heads) == (plan.layers, plan.width, plan.heads)
    assert (base.vocab, base.positions) == (len(task.VOCAB), task.POSITIONS)


def test_save_and_load_keep_every_weight_to_float32(tmp_path):
    model = M.init_model(len(task.VOCAB), task.POSITIONS, width=8, layers=1, heads=2, seed=3)
    warmup.save_model(model, tmp_path / "m.npz")
    back = warmup.load_model(tmp_path / "m.npz")
    assert back.heads == 2 and set(back.params) == set(model.params)
    for k, v in model.params.items():
        np.testing.assert_array_equal(back.params[k], v.astype(np.float32).astype(np.float64))


def test_the_decision_weights_put_the_optimum_where_the_plan_says():
    """The weighted cross-entropy's optimum at a decision is the weighted share of the rows that take each branch:
    counted here over many example rows, against the plan's shares."""
    rng = np.random.default_rng(0)
    sizes = rng.choice(task.SIZES, 200_000, p=task.SIZE_WEIGHTS)
    steps = warmup.example_steps(rng, sizes)
    w = warmup.decision_weights(sizes, steps)
    worked = steps != task.AT_ONCE
    assert w[worked, 0].sum() / w[:, 0].sum() == pytest.approx(warmup.WARMUP.start_share, abs=0.01)
    for i in range(task.MAX_SIZE - 2):
        at = worked & (steps >= i) & (sizes - 2 > i)
        go_on = w[at & (steps > i), 1 + i].sum() / w[at, 1 + i].sum()
        assert go_on == pytest.approx(warmup.WARMUP.keep_share, abs=0.02), i


def test_the_base_writes_little_working_in_many_lengths_and_is_right_where_one_step_is_left():
    s = warmup.sample(warmup.base_model(), task.held_out_problems(), 8, seed=2)
    assert 0.05 <= s.right.mean() <= 0.30
    right = s.by_size(s.right)
    assert right[2] >= 0.5 and max(right[m] for m in (4, 5, 6, 7)) <= 0.2    # one operation at once, not three
    assert len(np.unique(s.length)) >= 5
    assert np.mean(s.length == 2) >= 0.6 and s.worked.mean() <= 0.35     # mostly "= a"


def test_the_last_written_step_pays_and_the_rest_hardly_do():
    """Teacher-forced on the held-out problems: with one operation left to do in the head the base is right several
    times as often as with three or more left, which are near chance (a hundredth), so working pays only once it leaves
    about one operation, and the larger the problem, the more working that takes."""
    stats = warmup.base_stats()
    m = stats.sizes[:, None]
    left = m - 1 - np.arange(task.MAX_SIZE - 1)[None]       # column j: j results written, m − 1 − j operations left
    assert np.nanmin(stats.forced[left == 1]) >= 0.15
    assert np.nanmax(stats.forced[left >= 3]) <= 0.1
    assert np.all(stats.forced[1:][left[1:] == 1] >= 1.5 * stats.forced[1:, 0])   # sizes 3 … 7: the last one pays
    assert np.isnan(stats.forced[left < 1]).all() and not np.isnan(stats.forced[left >= 1]).any()


def test_the_warmup_is_deterministic_and_checks_its_plan():
    a, b = (warmup.warm_up(warmup.WarmupPlan(steps=2, batch=8)) for _ in range(2))
    for k, v in a.params.items():
        np.testing.assert_array_equal(b.params[k], v)
    rejects(lambda: warmup.WarmupPlan(start_share=1.5), r"^start_share must")


SHORT = 20   # warm-up steps of the cross-kernel check
ROOT = Path(__file__).resolve().parents[2]
NO_SIMD = "X86_V3 X86_V4 AVX512_ICL AVX512_SPR"  # numpy's SIMD kernels off: another processor's last bits


def test_a_short_warmup_on_other_kernels_gives_the_same_weights_within_float_rounding(tmp_path):
    """On another processor (numpy's baseline kernels, in a subprocess) its weights agree to 1e-9: each kernel rounds
    exp, tanh … differently in the last bit (~1e-16), and 20 Adam steps grow that to ~1e-15 here; 1e-9 leaves room
    for that growth and still catches any step that computes something else. The full warm-up's float32 weights
    then differ by at most a float32 step or so (rtol 1e-5, the exhaustive test below)."""
    here = warmup.warm_up(warmup.WarmupPlan(steps=SHORT, batch=32))
    out = tmp_path / "other.npz"
    script = ("import sys, numpy as np; from rlcore.studies.zero import warmup; "
              f"np.savez(sys.argv[1], **warmup.warm_up(warmup.WarmupPlan(steps={SHORT}, batch=32)).params)")
    env = {**os.environ, "NPY_DISABLE_CPU_FEATURES": NO_SIMD, "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-c", script, str(out)], check=True, env=env, cwd=ROOT, timeout=120)
    with np.load(out) as other:
        assert set(other.files) == set(here.params)
        for k, v in here.params.items():
            np.testing.assert_allclose(other[k], v, rtol=0, atol=1e-9, err_msg=k)


@pytest.mark.exhaustive
def test_the_warmup_script_reproduces_the_shipped_weights():
    rebuilt, shipped = warmup.warm_up(warmup.WARMUP), warmup.base_model()
    for k, v in shipped.params.items():
        # the file keeps float32: the rebuilt float64 weights, rounded the same way, must be the same numbers
        np.testing.assert_allclose(rebuilt.params[k].astype(np.float32), v, rtol=1e-5, atol=1e-6, err_msg=k)
