"""The policy as a softmax over logits, and how gradient steps move it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .checks import (
    as_probs,
    as_samples,
    as_vector,
    count,
    finite,
    in_range,
    in_range_each,
    non_negative,
    positive,
    positive_each,
)
from .sampling import ScoreTable, sample_tokens

__all__ = [
    "BASELINES", "PolicyPath", "TrainingRun", "discovery_chance", "log_softmax", "logits_from_probs",
    "policy_gradient_path", "policy_gradient_step", "sampled_training", "sampled_training_many",
    "samples_to_discover", "softmax", "temperature_probs", "turning_steps",
]

BASELINES = ("none", "batch mean", "V")
_LOG_FLOOR = np.log(np.finfo(np.float64).tiny)


def softmax(logits, temperature: float = 1.0) -> np.ndarray:
    """Probabilities from logits at a sampling temperature.

    πₐ = exp(zₐ/τ) / Σ_b exp(z_b/τ).

    Shifting by the row's maximum before dividing by τ keeps exp from overflowing; a tiny τ then sends the
    other entries to −inf, which only means exp(·) = 0 (the argmax limit), so that overflow is not an error.

    Args:
        logits: shape [K] (or [..., K]: one distribution per row of the last axis), z.
        temperature: τ > 0; small τ sharpens towards the argmax, large τ flattens.

    Returns:
        logits' shape, each row sums to 1.

    >>> np.round(softmax(np.log([0.5, 0.3, 0.2])), 10).tolist()
    [0.5, 0.3, 0.2]
    """
    z = finite("logits", logits, min_ndim=1)
    tau = positive("temperature", temperature)
    with np.errstate(over="ignore"):
        shifted = (z - z.max(axis=-1, keepdims=True)) / tau
    e = np.exp(shifted)
    return e / e.sum(axis=-1, keepdims=True)


def log_softmax(logits) -> np.ndarray:
    """Log-probabilities from logits, computed stably.

    log πₐ = zₐ − log Σ_b exp(z_b).

    Args:
        logits: shape [K] (or [..., K]), z.

    Returns:
        logits' shape, log π per row of the last axis.

    >>> np.round(np.exp(log_softmax([0.0, 0.0])), 10).tolist()
    [0.5, 0.5]
    """
    return _log_softmax(finite("logits", logits, min_ndim=1))


def _log_softmax(z: np.ndarray) -> np.ndarray:
    """``log_softmax``'s formula for checked logits (the lab calls it until it calls ``log_softmax``)."""
    shifted = z - z.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def logits_from_probs(probs) -> np.ndarray:
    """Logits whose softmax is ``probs`` (log π; a zero probability gets a very negative logit)."""
    p = as_probs("probs", probs)
    with np.errstate(divide="ignore"):
        return np.maximum(np.log(p), _LOG_FLOOR)


def policy_gradient_step(logits, q, lr: float) -> np.ndarray:
    """One exact expected-gradient ascent step on V = Σ πₐ Qₐ.

    z ← z + η · π ⊙ (Q − V), since ∂V/∂zₐ = πₐ (Qₐ − V).

    Args:
        logits: shape [K], z.
        q: shape [K], Q of each token.
        lr: step size η ≥ 0.

    Returns:
        shape [K], the new logits.
    """
    z = as_vector("logits", logits)
    qv = as_vector("q", q)
    if z.size != qv.size:
        raise ValueError(f"logits and q must have the same length, got {z.size} and {qv.size}")
    eta = non_negative("lr", lr)
    p = softmax(z)
    return z + eta * p * (qv - p @ qv)


@dataclass(frozen=True)
class PolicyPath:
    """Exact policy-gradient trajectory."""

    probs: np.ndarray   # shape [steps+1, K]
    values: np.ndarray  # shape [steps+1]: V = Σ π Q at each step


def policy_gradient_path(probs, q, lr: float, steps: int) -> PolicyPath:
    """Probabilities and V along ``steps`` exact policy-gradient steps.

    Article: 0.50/0.30/0.20 → 0.15/0.36/0.49 → 0.04/0.11/0.86, V 4.3 → 6.5 → 8.3 (η = 1).

    Args:
        probs: shape [K], the starting policy.
        q: shape [K], Q of each token.
        lr: step size η ≥ 0.
        steps: number of steps (≥ 0).

    Returns:
        PolicyPath(probs [steps+1, K], values [steps+1]).
    """
    p = as_probs("probs", probs)
    qv = as_vector("q", q)
    if p.size != qv.size:
        raise ValueError(f"probs and q must have the same length, got {p.size} and {qv.size}")
    n = count("steps", steps, low=0)
    non_negative("lr", lr)  # checked here too: with 0 steps no step would check it
    # a token with π = 0 has logit −∞ and gradient π·(Q − V) = 0: it stays at exactly 0, so the steps run on
    # the others (a finite floor for its logit would give it about 1e-307 after one step)
    live = p > 0
    z = logits_from_probs(p[live])
    out = np.zeros((n + 1, p.size))
    out[0] = p
    for t in range(n):
        z = policy_gradient_step(z, qv[live], lr)
        out[t + 1, live] = softmax(z)
    return PolicyPath(out, out @ qv)


@dataclass(frozen=True)
class TrainingRun:
    """REINFORCE from sampled answers, one row per seed."""

    probs: np.ndarray       # shape [S, steps+1, K]: π at temperature 1 before each step and after the last
    mean_score: np.ndarray  # shape [S, steps]: mean judge score of each step's batch


def sampled_training_many(probs, samples, *, lr: float, steps: int, batch: int,
                          temperature: float = 1.0, greedy: bool = False,
                          baseline: str = "batch mean", seeds=(0,)) -> TrainingRun:
    """REINFORCE on the one decision, for several seeds at once (vectorised over seeds).

    Each step draws ``batch`` answers, first token aₙ from softmax(z/τ) (or argmax z when greedy),
    score Rₙ uniformly from that token's samples, and moves the logits by
    z ← z + η · mean over n of (Rₙ − b)(e_{aₙ} − π),  π = softmax(z).
    b is 0 ("none"), the batch's mean score ("batch mean"), or the expected score of the decoding
    actually used, Σ μₐ Qₐ with μ the sampling distribution ("V").
    Greedy decoding only ever sees its argmax token; with a batch-mean baseline every advantage
    cancels and the policy never moves.

    Args:
        probs: shape [K], the starting policy.
        samples: K lists of scores.
        lr: step size η ≥ 0.
        steps: number of updates (≥ 1).
        batch: answers per update (≥ 1).
        temperature: sampling temperature τ > 0 (ignored when greedy).
        greedy: decode with argmax instead of sampling.
        baseline: "none", "batch mean" or "V".
        seeds: one integer seed per run.

    Returns:
        TrainingRun(probs [S, steps+1, K], mean_score [S, steps]).
    """
    p = as_probs("probs", probs)
    groups = as_samples("samples", samples, p.size)
    eta = non_negative("lr", lr)
    n_steps = count("steps", steps, low=1, high=100_000)
    n_batch = count("batch", batch, low=1, high=100_000)
    tau = positive("temperature", temperature)
    if baseline not in BASELINES:
        raise ValueError(f"baseline must be one of {list(BASELINES)}, got {baseline!r}")
    seed_list = [count("seeds", s, low=0) for s in np.atleast_1d(np.asarray(seeds, dtype=object))]
    if not seed_list:
        raise ValueError("seeds must hold at least one seed")
    k, n_seeds = p.size, len(seed_list)
    rngs = [np.random.default_rng(s) for s in seed_list]
    q = np.array([g.mean() for g in groups])
    table = ScoreTable.of(groups)
    eye = np.eye(k)

    z = np.tile(logits_from_probs(p), (n_seeds, 1))
    probs_out = np.empty((n_seeds, n_steps + 1, k))
    scores_out = np.empty((n_seeds, n_steps))
    chunk = max(1, 1_000_000 // (2 * n_batch * n_seeds))  # steps of random numbers drawn at once
    for t in range(n_steps):
        pi = softmax(z)
        probs_out[:, t] = pi
        mu = eye[np.argmax(z, axis=1)] if greedy else softmax(z, tau)
        if t % chunk == 0:  # same numbers as drawing (2, B) per step: a generator's stream does not depend on
            draws = np.stack([r.random((min(chunk, n_steps - t), 2, n_batch)) for r in rngs])  # the draw sizes
        u = draws[:, t % chunk]                                        # [S, 2, B]
        actions = sample_tokens(mu, u[:, 0])                           # [S, B]
        scores = table.draw(actions, u[:, 1])                          # [S, B]
        scores_out[:, t] = scores.mean(axis=1)
        if baseline == "none":
            b = np.zeros((n_seeds, 1))
        elif baseline == "batch mean":
            b = scores.mean(axis=1, keepdims=True)
        else:
            b = (mu @ q)[:, None]
        weight = scores - b                                            # [S, B]
        counts = np.einsum("sb,sbk->sk", weight, eye[actions])         # Σ (R−b) e_a
        grad = (counts - weight.sum(axis=1, keepdims=True) * pi) / n_batch
        z = z + eta * grad
    probs_out[:, -1] = softmax(z)
    return TrainingRun(probs_out, scores_out)


def sampled_training(probs, samples, *, lr: float, steps: int, batch: int,
                     temperature: float = 1.0, greedy: bool = False,
                     baseline: str = "batch mean", seed: int = 0) -> TrainingRun:
    """REINFORCE from sampled answers for one seed: ``sampled_training_many`` with one seed.

    Returns:
        TrainingRun(probs [steps+1, K], mean_score [steps]).
    """
    run = sampled_training_many(probs, samples, lr=lr, steps=steps, batch=batch,
                                temperature=temperature, greedy=greedy, baseline=baseline,
                                seeds=(count("seed", seed, low=0),))
    return TrainingRun(run.probs[0], run.mean_score[0])


def discovery_chance(p, k) -> np.ndarray:
    """Chance of seeing a token at least once in k samples.

    P = 1 − (1 − p)^k.

    Args:
        p: the token's probability, in [0, 1]; or an array of them of any shape [...].
        k: shape [M], sample counts (≥ 0).

    Returns:
        shape [M]; or [..., M], a row per p.

    >>> np.round(discovery_chance(0.2, [1, 2]), 12).tolist()
    [0.2, 0.36]
    >>> np.round(discovery_chance([0.2, 0.5], [1, 2]), 12).tolist()
    [[0.2, 0.36], [0.5, 0.75]]
    """
    prob = in_range_each("p", p, 0.0, 1.0)
    ks = as_vector("k", k)
    if np.any(ks < 0):
        raise ValueError(f"k must be >= 0, got {ks.tolist()}")
    if np.ndim(prob):
        prob = prob[..., None]
    with np.errstate(divide="ignore", invalid="ignore"):
        # −expm1(k·log1p(−p)) keeps its precision for tiny p, where 1 − p would round to 1
        out = -np.expm1(ks * np.log1p(-prob))
    return np.where(ks == 0, 0.0, np.where(prob >= 1.0, 1.0, out))


def turning_steps(probs, tol: float = 1e-12) -> np.ndarray:
    """For each token, the first step at which its probability falls after having risen.

    Step t moves π_{t−1} to π_t. turnₐ = min{t : π_t,a < π_{t−1},a − tol and π_s,a > π_{s−1},a + tol
    for some s < t}; 0 when the token never turns (it only rises, only falls, or stays).

    Args:
        probs: shape [S+1, K], the policy before the first step and after each step.
        tol: changes no larger than tol ≥ 0 count as "no change".

    Returns:
        shape [K] int, the turning step of each token (1…S), or 0.

    >>> turning_steps([[0.5, 0.3, 0.2], [0.15, 0.36, 0.49], [0.04, 0.11, 0.85]]).tolist()
    [0, 2, 0]
    """
    try:
        p = np.asarray(probs, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"probs must be a 2-D array of numbers, got {probs!r}") from None
    if p.ndim != 2 or p.shape[0] < 1 or p.shape[1] < 1:
        raise ValueError(f"probs must have shape [steps+1, K], got shape {p.shape}")
    if not np.all(np.isfinite(p)):
        raise ValueError("probs must contain only finite numbers")
    t = non_negative("tol", tol)
    if p.shape[0] < 2:
        return np.zeros(p.shape[1], dtype=int)
    change = np.diff(p, axis=0)                        # [S, K]
    rose_before = np.cumsum(change > t, axis=0) > 0    # has risen at this step or earlier
    falls = (change < -t) & np.vstack([np.zeros((1, p.shape[1]), bool), rose_before[:-1]])
    return np.where(falls.any(axis=0), falls.argmax(axis=0) + 1, 0)


def temperature_probs(probs, temperature) -> np.ndarray:
    """The distribution that sampling at a temperature actually draws from.

    μₐ = softmax(log πₐ / τ) = πₐ^(1/τ) / Σ_b π_b^(1/τ); τ = 1 gives π back, τ → 0 the argmax,
    large τ the uniform distribution (over tokens with π > 0).

    Args:
        probs: shape [K], the policy π (at temperature 1).
        temperature: τ > 0, or an array of them of any shape [...] (a chart dragged over τ).

    Returns:
        shape [K], μ; or [..., K], μ at each τ.

    >>> np.round(temperature_probs([0.8, 0.2], 0.5), 10).tolist()
    [0.9411764706, 0.0588235294]
    >>> np.round(temperature_probs([0.8, 0.2], [0.5, 1.0]), 10).tolist()
    [[0.9411764706, 0.0588235294], [0.8, 0.2]]
    """
    p = as_probs("probs", probs)
    tau = positive_each("temperature", temperature)
    if np.ndim(tau):
        return _temperature_rows(p, tau)
    mu = np.where(p > 0, softmax(logits_from_probs(p), tau), 0.0)  # a token with π = 0 is never drawn
    return mu / mu.sum()


def _temperature_rows(p: np.ndarray, taus: np.ndarray) -> np.ndarray:
    """``temperature_probs`` for checked π [K] at checked τ [...]: [..., K], each row as the one-τ call gives it."""
    z = logits_from_probs(p)
    with np.errstate(over="ignore"):  # as softmax: shifted by the maximum, then divided by each τ
        shifted = (z - z.max()) / taus[..., None]
    mu = np.where(p > 0, softmax(np.maximum(shifted, np.finfo(np.float64).min)), 0.0)  # never drawn: π = 0
    return mu / mu.sum(axis=-1, keepdims=True)


def samples_to_discover(p, target: float) -> float:
    """The fewest samples that show a token at least once with a given chance.

    k* = min{k ≥ 0 : 1 − (1 − p)^k ≥ target} = ⌈log(1 − target) / log(1 − p)⌉.

    Args:
        p: the token's probability per sample, in [0, 1].
        target: the wanted chance, in [0, 1).

    Returns:
        k* as a whole number (a float); inf when p = 0 and target > 0, or when k* is beyond float64 (above
        ~1.8e308: p below ~1e-307 with a target near 1).

    >>> samples_to_discover(0.2, 0.5), samples_to_discover(0.2, 0.95)
    (4.0, 14.0)
    """
    prob = in_range("p", p, 0.0, 1.0)
    t = in_range("target", target, 0.0, 1.0)
    if t >= 1.0:
        raise ValueError(f"target must be < 1, got {t!r}")
    if t == 0.0:
        return 0.0
    if prob == 0.0:
        return float("inf")
    if prob == 1.0:
        return 1.0
    with np.errstate(over="ignore"):  # p below ~1e-307 with target near 1: k* is beyond float64
        ratio = np.log1p(-t) / np.log1p(-prob)
    if not np.isfinite(ratio):
        return float("inf")
    k = max(1.0, float(np.ceil(ratio)))
    # guard against rounding in the ratio of logs: step down if one sample fewer already reaches it
    if k > 1 and discovery_chance(prob, [k - 1])[0] >= t:
        k -= 1
    return k
