"""Bad arguments raise ValueError whose message opens with the argument's name (a page shows it as it is).

tests/rlcore/test_fuzz.py draws every kind of bad value for every argument of every formula (NaN, ±inf, wrong
lengths, probabilities that do not sum to 1, γ or λ outside [0, 1], non-positive ε, τ, β, counts below their
minimum, text, ...) and requires a ValueError naming it. Here: one case of each kind, for what the fuzz does not
check: the message opens with the name (``"probs must ..."``, or ``"p and q must ..."`` for a pair) and says what
was expected; and the edges of the tolerances, which random draws rarely hit.
"""

from __future__ import annotations

import numpy as np
import pytest

import rlcore
from rlcore import ARTICLE_SCENARIO as S
from tests.rejects import names

PI = [0.5, 0.3, 0.2]
Q = [2.0, 5.0, 9.0]
SAMPLES = [[3, 1, 2, 1, 3], [5, 4, 6], [10, 8]]


def scenario(**kw):
    return rlcore.Scenario(**{"tokens": ("open", "closed", "partly"), "probs": (0.5, 0.3, 0.2),
                              "samples": ((2,), (5,), (9,)), **kw})


@pytest.mark.parametrize(("call", "name", "says"), [
    (lambda: rlcore.expected_value([0.5, 0.3, 0.1], Q), "probs", "sum to 1"),
    (lambda: rlcore.kl_divergence([0.5, 0.5], [0.6, 0.5]), "q", "sum to 1"),
    (lambda: rlcore.ppo_epochs([0.5, 0.3, 0.3], [0], [1.0], lr=0.1, epochs=1), "p_old", "sum to 1"),
    (lambda: rlcore.importance_ratio([0.1], [0.0]), "p_old", "(0, 1]"),
    (lambda: rlcore.td_errors([0.0, 2.0], [4.3, 2.0], 1.0), "values", "len(rewards) + 1 = 3"),
    (lambda: rlcore.expected_value(PI, [2.0, 5.0]), "probs and q", "same length"),
    (lambda: rlcore.discounted_returns([0.0, 2.0], 1.1), "gamma", "[0, 1]"),
    (lambda: rlcore.gae([2.0], [1.0, 0.0], 1.0, -0.1), "lam", "[0, 1]"),
    (lambda: rlcore.clipped_objective([1.0], [1.0], eps=0.0), "eps", "> 0"),
    (lambda: rlcore.softmax([0.0, 1.0], -1.0), "temperature", "> 0"),
    (lambda: rlcore.policy_gradient_step([0.0, 0.0], [1.0, 2.0], -0.1), "lr", ">= 0"),
    (lambda: rlcore.group_advantages([1.0, 2.0], "GRPO"), "method", "one of"),
    (lambda: rlcore.answer_trace(S, "maybe"), "token", "one of"),
    (lambda: scenario(tokens=("open", "closed", "open")), "tokens", "unique"),
    (lambda: scenario(samples=((2,), (), (9,))), r"samples\[1\]", "closed"),
    (lambda: scenario(probs=(0.5, 0.5)), "probs", "one"),
])
def test_the_message_opens_with_the_name_and_says_what_was_expected(call, name, says):
    assert says in names(call, name)


@pytest.mark.parametrize(("call", "name"), [
    (lambda: rlcore.expected_value([1e-6 + 0.5, 0.3, 0.2], Q), "probs"),  # off by 1e-6: beyond the 1e-9 tolerance
    (lambda: rlcore.kl_divergence([0.95 + 1e-6, 0.05], [0.95, 0.05]), "p"),
    (lambda: scenario(probs=(0.5, 0.3, 0.2 + 1e-6)), "probs"),
    (lambda: rlcore.clipped_objective([1.0], [1.0], eps=1.0), "eps"),  # 1 - eps = 0 would let a ratio reach 0
    (lambda: rlcore.clipped_objective([1.0], [1.0], dual_clip=1.0), "dual_clip"),
    (lambda: rlcore.kl_optimal_policy([0.95, 0.05], [9, 9.6], 0.0), "beta"),  # it divides by β
    (lambda: rlcore.share_curve([0.5], [9, 9.6], [1.0, 0.0], 1.0), "p_ref"),
    (lambda: rlcore.discounted_returns([0.0, 2.0], True), "gamma"),  # a bool is no number
    (lambda: rlcore.gradient_stats(PI, SAMPLES, None), "baseline"),
    (lambda: rlcore.sample_answers(PI, SAMPLES, 3, np.random.default_rng(0).random()), "rng"),
    (lambda: rlcore.token_weights([[1, 1, 1, 1]], "seq-mean-token-sum-norm", max_len=3), "max_len"),  # below 4
    (lambda: rlcore.sequence_ratio([[0.0]], [[-1e308]], [[1]]), "logp_new"),  # exp(1e308) overflows
    (lambda: rlcore.kl_gradients([0.5, 0.5], [1.0, 0.0]), "pi_ref"),  # KL(π‖π_ref) infinite
    (lambda: rlcore.next_step(S, ["open", ".", "It", "'s", "in", "the", "name", "."], seed=0), "written"),  # done
])
def test_edges_of_each_domain(call, name):
    names(call, name)


def test_probs_off_by_rounding_are_accepted():
    # the tolerance is 1e-9: a sum like 0.7 + 0.2 + 0.1 (= 0.9999999999999999 in floats) is fine
    assert sum([0.7, 0.2, 0.1]) != 1.0
    assert rlcore.expected_value([0.7, 0.2, 0.1], [1.0, 1.0, 1.0]) == pytest.approx(1.0)
    assert scenario(probs=(0.7, 0.2, 0.1)).probs == (0.7, 0.2, 0.1)
