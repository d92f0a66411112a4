"""The graded base model: small, loadable, seldom working, and right where the working leaves one step."""

from __future__ import annotations

import numpy as np
import pytest

from rlcore.studies.zero import graded as g
from rlcore.studies.zero import graded_warmup as gw
from rlcore.studies.zero.task import VOCAB
from tests.rejects import rejects


def test_the_shipped_file_is_small_and_loads_as_the_plan_says():
    assert gw.BASE_PATH.stat().st_size <= 1_000_000
    base, plan = gw.base_model(), gw.GRADED
    assert (base.layers, base.width, base.heads) == (plan.layers, plan.width, plan.heads)
    assert (base.vocab, base.positions) == (len(VOCAB), g.POSITIONS)


def test_the_decision_weights_put_the_optimum_where_the_plan_says():
    """The weighted cross-entropy's optimum at a decision is the weighted share of the rows that take each branch:
    counted here over many example rows, against the plan's shares."""
    rng = np.random.default_rng(0)
    sizes = rng.choice(g.SIZES, 200_000, p=g.SIZE_WEIGHTS)
    steps = gw.example_steps(rng, sizes)
    w = gw.decision_weights(sizes, steps)
    worked = steps != g.AT_ONCE
    assert w[worked, 0].sum() / w[:, 0].sum() == pytest.approx(gw.GRADED.start_share, abs=0.01)
    for i in range(g.MAX_SIZE - 2):
        at = worked & (steps >= i) & (sizes - 2 > i)
        go_on = w[at & (steps > i), 1 + i].sum() / w[at, 1 + i].sum()
        assert go_on == pytest.approx(gw.GRADED.keep_share, abs=0.02), i


def test_the_base_writes_little_working_in_many_lengths_and_is_right_on_about_a_quarter():
    s = gw.sample(gw.base_model(), g.held_out_problems(), 8, seed=2)
    assert 0.18 <= s.right.mean() <= 0.30
    assert len(np.unique(s.length)) >= 5
    assert np.mean(s.length == 2) >= 0.6                  # mostly "= a"


def test_each_written_step_makes_the_rest_easier():
    acc = gw.forced_accuracy(gw.base_model(), g.held_out_problems())
    m = np.arange(g.MAX_SIZE + 1)[:, None]
    remaining = m - 1 - np.maximum(np.arange(g.MAX_SIZE) - 1, 0)[None]    # column 0 at once, column s + 1
    assert np.nanmin(acc[remaining == 1]) >= 0.9
    assert np.nanmax(acc[remaining >= 3]) <= 0.4


def test_the_warmup_is_deterministic_and_checks_its_plan():
    a, b = gw.warm_up(gw.GradedPlan(steps=2, batch=8)), gw.warm_up(gw.GradedPlan(steps=2, batch=8))
    for k, v in a.params.items():
        np.testing.assert_array_equal(b.params[k], v)
    rejects(lambda: gw.GradedPlan(start_share=1.5), r"^start_share must")
