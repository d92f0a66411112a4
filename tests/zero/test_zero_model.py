"""The tiny transformer: its backward against finite differences, the KV cache against the full pass, the sampler
against the softmax."""

from __future__ import annotations

import numpy as np
import pytest

from rlcore.studies.zero import model as M
from tests.rejects import rejects


def _small(seed=1, layers=2):
    m = M.init_model(7, 9, width=8, layers=layers, heads=2, seed=seed)
    rng = np.random.default_rng(seed)
    # random (not initial) weights everywhere, the value head included, so no gradient is trivially zero
    return M.Model({k: v + 0.3 * rng.normal(size=v.shape) for k, v in m.params.items()}, m.heads)


def _perturbed(model, key, idx, h):
    p = {k: v.copy() for k, v in model.params.items()}
    p[key][idx] += h
    return M.Model(p, model.heads)


@pytest.mark.parametrize("layers", [1, 2])
def test_backward_matches_finite_differences_on_every_weight(layers):
    model = _small(layers=layers)
    rng = np.random.default_rng(0)
    tokens = rng.integers(0, 7, (3, 6))
    r_logits, r_values = rng.normal(size=(3, 6, 7)), rng.normal(size=(3, 6))

    def loss(m):  # any linear read-out of logits and values: its gradient is backward(r_logits, r_values)
        f = M.forward(m, tokens)
        return float(np.sum(f.logits * r_logits) + np.sum(f.values * r_values))

    grads = M.backward(model, M.forward(model, tokens), r_logits, r_values)
    assert set(grads) == set(model.params)
    h = 1e-6
    for key, value in model.params.items():
        for flat in rng.choice(value.size, size=min(4, value.size), replace=False):
            idx = np.unravel_index(flat, value.shape)
            numeric = (loss(_perturbed(model, key, idx, h)) - loss(_perturbed(model, key, idx, -h))) / (2 * h)
            assert grads[key][idx] == pytest.approx(numeric, rel=1e-5, abs=1e-6), (key, idx)


def test_the_kv_cache_gives_the_full_pass_logits_and_values():
    model = _small()
    tokens = np.random.default_rng(2).integers(0, 7, (4, 9))
    full = M.forward(model, tokens)
    logits, cache = M.prefill(model, tokens[:, :3])
    np.testing.assert_allclose(logits, full.logits[:, :3], atol=1e-12)
    for t in range(3, 9):
        step_logits, step_values, cache = M.decode_step(model, tokens[:, t], t, cache)
        np.testing.assert_allclose(step_logits, full.logits[:, t], atol=1e-12)
        np.testing.assert_allclose(step_values, full.values[:, t], atol=1e-12)


def test_a_later_token_does_not_change_earlier_logits():
    model = _small()
    a = np.array([[1, 2, 3, 4]])
    b = np.array([[1, 2, 3, 6]])
    np.testing.assert_allclose(M.forward(model, a).logits[:, :3], M.forward(model, b).logits[:, :3], atol=1e-12)
    assert not np.allclose(M.forward(model, a).logits[:, 3], M.forward(model, b).logits[:, 3])


def test_token_log_probs_are_the_log_softmax_at_the_next_token():
    logits = np.array([[[0.0, np.log(3.0)], [np.log(4.0), 0.0], [0.0, 0.0]]])
    tokens = np.array([[0, 1, 0]])
    # position 0 predicts token 1: softmax(0, log 3)[1] = 3/4; position 1 predicts token 0: 4/5
    np.testing.assert_allclose(M.token_log_probs(logits, tokens), np.log([[0.75, 0.8]]), atol=1e-12)


def test_inverse_cdf_draws_follow_the_probabilities():
    probs = np.array([0.5, 0.3, 0.2, 0.0])
    n = 40_000
    draws = M.sample_tokens(np.tile(probs, (n, 1)), np.random.default_rng(3).random(n))
    freq = np.bincount(draws, minlength=4) / n
    tol = 5 * np.sqrt(probs * (1 - probs) / n)          # five standard errors of a share from n draws
    assert np.all(np.abs(freq - probs) <= tol + 1e-12)
    assert freq[3] == 0


@pytest.mark.parametrize("temperature", [0.5, 1.0, 2.0])
def test_generated_first_tokens_follow_the_softmax_at_the_temperature(temperature):
    model = _small()
    n = 20_000
    prompt = np.tile([[1, 2, 3]], (n, 1))
    out = M.generate(model, prompt, 1, np.random.default_rng(4), end=6, pad=5, temperature=temperature)
    z = M.forward(model, prompt[:1]).logits[0, -1] / temperature
    p = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
    freq = np.bincount(out[:, 3], minlength=7) / n
    assert np.all(np.abs(freq - p) <= 5 * np.sqrt(p * (1 - p) / n) + 1e-12)


def test_after_the_end_token_every_slot_is_padding():
    model = _small()
    out = M.generate(model, np.tile([[1, 2]], (300, 1)), 6, np.random.default_rng(5), end=0, pad=5)
    ans = out[:, 2:]
    ended = np.cumsum(ans == 0, axis=1)
    after_end = (ended >= 1) & ~((ended == 1) & (ans == 0))
    assert after_end.any()                       # some rows did end early, so the check below means something
    assert np.all(ans[after_end] == 5)


def test_adam_first_step_moves_each_weight_by_lr_against_its_gradient_sign():
    model = _small()
    grads = {k: np.full(v.shape, 0.01) for k, v in model.params.items()}
    moved, _, norm = M.adam_step(model, grads, M.adam_init(model), 0.1, max_norm=None)
    # step 1: m̂ = g, v̂ = g², so the update is lr·g/(|g| + ε) ≈ lr
    for k in model.params:
        np.testing.assert_allclose(model.params[k] - moved.params[k], 0.1 * 0.01 / (0.01 + 1e-8))
    assert norm == pytest.approx(0.01 * np.sqrt(sum(v.size for v in model.params.values())))


@pytest.mark.parametrize(("kwargs", "name"), [({"width": 9, "heads": 2}, "width"), ({"layers": 0}, "layers"),
                                              ({"vocab": 1}, "vocab")])
def test_bad_shapes_name_the_argument(kwargs, name):
    args = {"vocab": 7, "positions": 9, **kwargs}
    rejects(lambda: M.init_model(**args), name)


def test_too_long_an_input_or_answer_names_what_is_wrong():
    model = _small()
    rejects(lambda: M.forward(model, np.zeros((1, 10), dtype=int)), "tokens")
    with pytest.raises(ValueError, match="max_new"):
        M.generate(model, np.zeros((1, 5), dtype=int), 6, np.random.default_rng(0), end=0, pad=5)
    with pytest.raises(ValueError, match="temperature"):
        M.generate(model, np.zeros((1, 2), dtype=int), 2, np.random.default_rng(0), end=0, pad=5, temperature=0)


def test_the_logits_generate_returns_are_the_full_pass_logits_of_what_it_wrote():
    model = _small()
    out, logits = M.generate(model, np.tile([[1, 2, 3]], (50, 1)), 5, np.random.default_rng(6), end=0, pad=5,
                             return_logits=True)
    full = M.forward(model, out[:, :-1]).logits[:, 2:]
    live = np.cumsum(out[:, 3:] == 0, axis=1) - (out[:, 3:] == 0) == 0    # slots up to and including the end
    assert live.sum() > 50
    np.testing.assert_allclose(logits[live], full[live], atol=1e-12)
