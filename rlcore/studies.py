"""Studies: the bundles of numbers one page shows, each built from the formulas of the other modules.

A study runs several rlcore functions on the same inputs (often the same sampled answers) and returns every
number its page prints or draws, so that the text, the metrics and the charts of a page can never disagree.
The formulas themselves live in the topic modules (returns, estimates, credit, policy, ppo, kl); nothing here
is a new piece of RL maths.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .checks import as_probs, as_real, as_samples, as_vector, count, in_range, non_negative, rng_from
from .credit import GROUP_METHODS, GROUP_SEED, GROUP_SIZE, AnswerTrace, answer_trace, gae, group_advantages, td_errors
from .estimates import (
    advantages,
    expected_value,
    gradient_stats,
    histogram_counts,
    running_mean,
    sample_answers,
    sample_checkpoints,
)
from .example import FLATTERY, Scenario, check_scenario
from .generation import answer_text
from .kl import KLEstimates, kl_divergence, kl_estimators, kl_regularized_objective
from .policy import TrainingRun, discovery_chance, policy_gradient_path, turning_steps
from .ppo import clip_bounds
from .returns import outcome_judge

# ---------- Home page: one headline number per term


@dataclass(frozen=True)
class Summary:
    """One number (or a few) per RL term, computed for a scenario."""

    likely: int                  # index of the most probable token (what greedy decoding writes)
    best: int                    # index of the token with the highest Q
    q: np.ndarray                # Q per token
    v: float                     # V = Σ π Q
    advantage: np.ndarray        # A = Q − V
    weighted_advantage: float    # Σ π A (0 up to rounding)
    answer_tokens: tuple[str, ...]  # the answer that starts with the most probable token
    answer_score: float          # its judge score, Q(likely)
    td_at_action: float          # δ at the decision token of that answer (γ = 1)
    gae_first_token: float       # GAE(γ = 1, λ = 0.95) at the answer's first token
    variance_no_baseline: float  # tr Cov of the REINFORCE estimate with b = 0
    variance_v_baseline: float   # ... with b = V
    probs_after_step: np.ndarray  # π after one exact policy-gradient step (η = 1)
    v_after_step: float
    discover_best_10: float      # chance the best token shows up at least once in 10 samples
    clip_range_best: tuple[float, float]  # range π(best) can reach on one batch, ε = 0.2
    group_likely: np.ndarray     # GRPO advantages of the likely token's answers in group_credit's default group
    group_advantage_likely: float  # their mean (0 when the group has no such answer)
    kl_flattery_90: float        # KL(π‖π_ref) when 90% of the best branch's answers flatter

    @property
    def variance_ratio(self) -> float:
        return self.variance_v_baseline / self.variance_no_baseline if self.variance_no_baseline else 0.0


def summarize(scenario: Scenario, *, lam: float = 0.95, eps: float = 0.2, k: int = 10) -> Summary:
    """Compute every headline number for ``scenario`` (defaults: λ 0.95, ε 0.2, 10 samples).

    The group numbers are those of ``group_credit`` with the default group (GROUP_SIZE answers, GROUP_SEED,
    GRPO), the very call the TD error and GAE page makes at its defaults.
    """
    pi, q = check_scenario(scenario).pi, scenario.q
    v = expected_value(pi, q)
    adv = advantages(pi, q)
    likely, best = int(np.argmax(pi)), int(np.argmax(q))
    trace = answer_trace(scenario, scenario.tokens[likely], 1.0)
    path = policy_gradient_path(pi, q, 1.0, 1)
    group = group_credit(scenario, scenario.tokens[likely], GROUP_SIZE, GROUP_METHODS[0], GROUP_SEED)
    likely_group = group.advantages[group.members]
    return Summary(
        likely=likely, best=best, q=q, v=v, advantage=adv, weighted_advantage=float(pi @ adv),
        answer_tokens=trace.tokens, answer_score=trace.score,
        td_at_action=float(td_errors(trace.rewards, trace.values, 1.0)[trace.action_index]),
        gae_first_token=float(gae(trace.rewards, trace.values, 1.0, lam)[0]),
        variance_no_baseline=gradient_stats(pi, scenario.samples, 0.0).total_variance,
        variance_v_baseline=gradient_stats(pi, scenario.samples, v).total_variance,
        probs_after_step=path.probs[1], v_after_step=float(path.values[1]),
        discover_best_10=float(discovery_chance(pi[best], [k])[0]),
        clip_range_best=clip_bounds(pi[best], eps),
        group_likely=likely_group,
        group_advantage_likely=float(likely_group.mean()) if likely_group.size else 0.0,
        kl_flattery_90=kl_regularized_objective([0.1, 0.9], FLATTERY.rewards, FLATTERY.p_ref, 1.0).kl,
    )


# ---------- Loop and reward pages: what an outcome-only judge cannot see


@dataclass(frozen=True)
class BlindSpot:
    """Two answers with the same conclusion, one with its own reasoning and one with borrowed reasoning."""

    conclusion: str       # the token with the highest Q: the right conclusion
    borrowed_from: str    # the token with the lowest Q among the others: whose reasoning is borrowed
    sound: str            # the answer with the conclusion's own reasoning
    unsound: str          # the same conclusion followed by the borrowed reasoning
    sound_score: float    # outcome_judge of each
    unsound_score: float


def outcome_blind_spot(scenario, full_marks: float = 10.0) -> BlindSpot:
    """What an outcome-only judge cannot see: right conclusion, wrong reasoning, same score.

    The conclusion is argmax Q; the reasoning is borrowed from argmin Q among the other tokens
    (the first one on a tie); both answers go to ``outcome_judge`` with the conclusion as expected.

    Args:
        scenario: the running example, with at least two tokens.
        full_marks: the judge's score for a right conclusion.

    Returns:
        BlindSpot(conclusion, borrowed_from, sound, unsound, sound_score, unsound_score).

    >>> from .example import ARTICLE_SCENARIO
    >>> b = outcome_blind_spot(ARTICLE_SCENARIO)
    >>> b.unsound, b.sound, b.unsound_score == b.sound_score == 10.0
    ("OpenAI is partly. It's in the name.", 'OpenAI is partly: some open weights.', True)
    """
    if len(getattr(scenario, "tokens", ())) < 2:
        raise ValueError("scenario must have at least two tokens to borrow reasoning from another")
    q = scenario.q
    best = int(np.argmax(q))
    others = [i for i in range(q.size) if i != best]
    worst = others[int(np.argmin(q[others]))]
    token, other = scenario.tokens[best], scenario.tokens[worst]
    sound = answer_text(scenario, token)
    unsound = answer_text(scenario, token, reasoning_of=other)
    return BlindSpot(token, other, sound, unsound, outcome_judge(sound, token, full_marks),
                     outcome_judge(unsound, token, full_marks))


# ---------- V, Q and advantage page: every term of one decision


@dataclass(frozen=True)
class ValueBreakdown:
    """Every term of Q, V and A for one decision, so a page can print the sums it shows."""

    counts: np.ndarray              # shape [K]: number of sampled scores per token
    sums: np.ndarray                # shape [K]: sum of each token's sampled scores
    q: np.ndarray                   # shape [K]: Qₐ = sumₐ / countₐ
    weighted_q: np.ndarray          # shape [K]: πₐ Qₐ (the terms of V)
    v: float                        # V = Σₐ πₐ Qₐ
    advantage: np.ndarray           # shape [K]: Aₐ = Qₐ − V
    weighted_advantage: np.ndarray  # shape [K]: πₐ Aₐ (the terms of the check Σ π·A = 0)
    advantage_check: float          # Σₐ πₐ Aₐ, zero up to rounding
    sample_mean: float              # the plain mean of all sampled scores
    sample_share: np.ndarray        # shape [K]: countₐ / Σ count, the share of samples per token
    mean_matches: bool              # whether the plain mean equals V (within 1e-9)
    centered: tuple[np.ndarray, ...]  # K arrays: R − V for each sampled score of each token


def value_breakdown(probs, samples) -> ValueBreakdown:
    """Q, V and A of one decision with every intermediate term.

    Qₐ = (1/nₐ) Σᵢ Rₐᵢ;  V = Σₐ πₐ Qₐ;  Aₐ = Qₐ − V;  Σₐ πₐ Aₐ = 0.
    The plain mean of all scores, Σₐ nₐ Qₐ / Σₐ nₐ, equals V only when the sample shares nₐ/N
    weight the Q values the way π does (in the article 5 / 3 / 2 answers follow π = 0.5 / 0.3 / 0.2).

    Args:
        probs: shape [K], the policy π.
        samples: K lists of scores, the sampled judge scores of the answers that began with each token.

    Returns:
        ValueBreakdown (see its fields).

    >>> bd = value_breakdown([0.5, 0.3, 0.2], [[3, 1, 2, 1, 3], [5, 4, 6], [10, 8]])
    >>> bd.q.tolist(), round(bd.v, 10), np.round(bd.advantage, 10).tolist()
    ([2.0, 5.0, 9.0], 4.3, [-2.3, 0.7, 4.7])
    >>> np.round(bd.weighted_advantage, 10).tolist(), bd.mean_matches
    ([-1.15, 0.21, 0.94], True)
    >>> np.round(bd.centered[0], 10).tolist()
    [-1.3, -3.3, -2.3, -3.3, -1.3]
    """
    p = as_probs("probs", probs)
    groups = as_samples("samples", samples, p.size)
    counts = np.array([g.size for g in groups])
    sums = np.array([g.sum() for g in groups])
    q = sums / counts
    v = float(p @ q)
    adv = q - v
    total = counts.sum()
    sample_mean = float(sums.sum() / total)
    return ValueBreakdown(
        counts=counts, sums=sums, q=q, weighted_q=p * q, v=v, advantage=adv,
        weighted_advantage=p * adv, advantage_check=float(p @ adv), sample_mean=sample_mean,
        sample_share=counts / total, mean_matches=bool(abs(sample_mean - v) <= 1e-9 * max(1.0, abs(v))),
        centered=tuple(g - v for g in groups))


# ---------- Baseline page: the same answers under several baselines


@dataclass(frozen=True)
class BaselineStudy:
    """The REINFORCE estimate with several baselines, on one shared set of sampled answers."""

    baselines: np.ndarray              # shape [B]
    mean: np.ndarray                   # shape [B, K]: exact E[g], the same for every b
    total_variance: np.ndarray         # shape [B]: exact tr Cov[g]
    variance_ratio: np.ndarray         # shape [B]: total_variance / total_variance[0]
    sample_total_variance: np.ndarray  # shape [B]: tr of the sample covariance of the n draws
    token: int                         # the logit whose gradient component is histogrammed
    sample_mean: np.ndarray            # shape [B]: mean of that component over the n draws
    right_direction: np.ndarray        # shape [B]: share of draws whose component has the sign of its exact mean
    edges: np.ndarray                  # shape [bins+1]: shared histogram bin edges
    shares: np.ndarray                 # shape [B, bins]: share of draws per bin
    at: np.ndarray                     # shape [C]: sample counts of the running mean
    running: np.ndarray                # shape [B, C]: running mean of that component


def baseline_study(probs, samples, baselines, n: int, rng, *, token: int, bins: int = 30,
                   points: int = 200) -> BaselineStudy:
    """Compare baselines on the same n sampled answers: same mean update, different noise.

    gᵢ(b) = (Rᵢ − b)(e_{aᵢ} − π) for n answers (aᵢ, Rᵢ) drawn once and reused for every b
    (common random numbers), with the exact moments from ``gradient_stats``.

    Source: Williams (1992); Greensmith, Bartlett & Baxter (2004) for the baseline's effect on variance.

    Args:
        probs: shape [K], π.
        samples: K lists of scores.
        baselines: shape [B], the baselines to compare (the first is the reference of variance_ratio).
        n: number of sampled answers (≥ 2).
        rng: a numpy Generator or an integer seed.
        token: index in 0…K−1 of the logit whose gradient component is histogrammed and averaged.
        bins: number of histogram bins.
        points: largest number of running-mean checkpoints (log-spaced, from 1 to n).

    Returns:
        BaselineStudy (see its fields).
    """
    p = as_probs("probs", probs)
    groups = as_samples("samples", samples, p.size)
    b = as_vector("baselines", baselines)
    m = count("n", n, low=2)
    k = count("token", token, low=0, high=p.size - 1)
    actions, scores = sample_answers(p, groups, m, rng)
    direction = np.eye(p.size)[actions] - p                      # [n, K]: e_a − π
    g = (scores[None, :] - b[:, None])[:, :, None] * direction   # [B, n, K]
    stats = [gradient_stats(p, groups, float(bi)) for bi in b]
    total = np.array([s.total_variance for s in stats])
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(total[0] > 0, total / total[0], np.nan)
    comp = g[:, :, k]                                            # [B, n]
    hist = histogram_counts(comp, bins)
    at = sample_checkpoints(m, points)
    sign = np.sign(np.array([s.mean[k] for s in stats]))        # [B]: the direction the average takes
    right = np.where(sign != 0, (np.sign(comp) == sign[:, None]).mean(axis=1), np.nan)
    return BaselineStudy(
        baselines=b, mean=np.array([s.mean for s in stats]), total_variance=total, variance_ratio=ratio,
        sample_total_variance=g.var(axis=1, ddof=1).sum(axis=1), token=k, sample_mean=comp.mean(axis=1),
        right_direction=right,
        edges=hist.edges, shares=hist.shares, at=at, running=running_mean(comp.T, at).T)


# ---------- TD error and GAE page: a wrong critic, and a group scored against itself


@dataclass(frozen=True)
class CriticErrorStudy:
    """How far GAE's estimate of the decision token's advantage lands from the truth, per λ."""

    lams: np.ndarray      # shape [L]
    bias: np.ndarray      # shape [L]: mean estimate − true advantage
    variance: np.ndarray  # shape [L]: variance of the estimate over draws
    mse: np.ndarray       # shape [L]: bias² + variance
    true_advantage: float

    @property
    def bias_squared(self) -> np.ndarray:
        """Shape [L]: the squared bias, the part of the MSE that more draws would not remove."""
        return self.bias**2

    @property
    def best_lam(self) -> float:
        """The λ of the grid with the smallest mean squared error (the first one on a tie)."""
        return float(self.lams[int(np.argmin(self.mse))])


def critic_error_study(trace: AnswerTrace, scores, *, gamma: float, lams, bias: float,
                       noise: float, n_draws: int, seed) -> CriticErrorStudy:
    """GAE with a wrong critic: bias against variance as λ moves from 0 to 1.

    Each draw takes a score R uniformly from ``scores`` (the judge's spread for this answer) and a
    critic V̂ₜ = Vₜ + noise·zₜ (zₜ ~ N(0, 1)) for every state before the end, plus ``bias`` on every
    state after the decision token (the critic misjudges where that token leads); V̂_T = 0.
    The estimate is Â at the decision token; the truth is γ^(T−1−a)·(Q(a) − V(s)).
    Small λ leans on V̂ (inherits its bias); λ near 1 leans on R (inherits its noise).

    Args:
        trace: the answer, from ``answer_trace``.
        scores: shape [M], the judge scores an answer of this kind can get.
        gamma: γ in [0, 1].
        lams: shape [L], the λ values to compare, each in [0, 1].
        bias: the critic's error after the decision token.
        noise: standard deviation of the critic's noise (≥ 0).
        n_draws: number of seeded draws (≥ 2).
        seed: integer seed or numpy Generator.

    Returns:
        CriticErrorStudy(lams, bias, variance, mse, true_advantage).
    """
    if not isinstance(trace, AnswerTrace):
        raise ValueError(f"trace must be an AnswerTrace from answer_trace(), got {type(trace).__name__}")
    g = in_range("gamma", gamma, 0.0, 1.0)
    lam = as_vector("lams", lams)
    if np.any(lam < 0) or np.any(lam > 1):
        raise ValueError(f"lams must lie in [0, 1], got {lam.tolist()}")
    s = as_samples("scores", [scores])[0]
    b = as_real("bias", bias)
    sigma = non_negative("noise", noise)
    m = count("n_draws", n_draws, low=2)
    rng = rng_from("seed", seed)
    values = trace.values
    n, a = values.size - 1, trace.action_index
    true_adv = float(td_errors(trace.rewards, values, g)[a])

    r = np.zeros((m, n))
    r[:, -1] = rng.choice(s, size=m)
    v_hat = values + sigma * rng.standard_normal((m, n + 1))
    v_hat[:, a + 1:] += b
    v_hat[:, -1] = 0.0
    delta = r + g * v_hat[:, 1:] - v_hat[:, :-1]          # [m, T]
    # Â_a = Σ_k (γλ)^k δ_{a+k}, for every λ at once: [L, m]
    powers = np.power.outer(g * lam, np.arange(n - a))    # [L, T−a]
    est = powers @ delta[:, a:].T
    mean = est.mean(axis=1)
    var = est.var(axis=1, ddof=1)
    bias_out = mean - true_adv
    return CriticErrorStudy(lam, bias_out, var, bias_out**2 + var, true_adv)


@dataclass(frozen=True)
class GroupCredit:
    """A group of sampled answers to one prompt, scored against each other (GRPO-style)."""

    actions: np.ndarray     # shape [G]: index of each answer's first (decision) token
    scores: np.ndarray      # shape [G]: each answer's judge score
    advantages: np.ndarray  # shape [G]: each answer's advantage, shared by all its tokens
    members: np.ndarray     # shape [M]: positions of the answers that start with the chosen token
    dead: bool              # every score is equal (or G = 1): every advantage is 0, no signal


def group_credit(scenario: Scenario, token: str, group_size: int, method: str = "grpo",
                 seed=0) -> GroupCredit:
    """Sample a group of answers, score each against the group, find those starting with ``token``.

    aᵢ ~ π, sᵢ drawn uniformly from the scores of token aᵢ, Aᵢ = group_advantages(s)ᵢ.
    The group is "dead" when all sᵢ are equal: Aᵢ = 0 for every answer, nothing is learned.

    Source: Shao et al. (2024), DeepSeekMath (GRPO); Liu et al. (2025) (Dr. GRPO); Ahmadian et al. (2024).

    Args:
        scenario: the running example.
        token: one of scenario.tokens, the decision whose answers to pick out.
        group_size: G ≥ 1, answers sampled for the prompt.
        method: "grpo", "dr_grpo" or "rloo".
        seed: integer seed or numpy Generator.

    Returns:
        GroupCredit(actions [G], scores [G], advantages [G], members [M], dead).
    """
    i = check_scenario(scenario).index(token)
    g = count("group_size", group_size, low=1, high=100_000)
    actions, scores = sample_answers(scenario.pi, scenario.samples, g, rng_from("seed", seed))
    adv = group_advantages(scores, method)
    dead = bool(np.ptp(scores) == 0)
    return GroupCredit(actions, scores, adv, np.flatnonzero(actions == i), dead)


# ---------- Policy-gradient page: what moved the policy at each step


@dataclass(frozen=True)
class PolicyTrace:
    """Exact policy-gradient trajectory with what moved it at each step."""

    probs: np.ndarray          # shape [S+1, K]: π before the first step and after each step
    values: np.ndarray         # shape [S+1]: V = Σ π Q at each of those points
    advantages: np.ndarray     # shape [S+1, K]: A = Q − V at each point
    logit_changes: np.ndarray  # shape [S, K]: η πₐ Aₐ, the update applied in step t (row t−1)
    direction: np.ndarray      # shape [S, K] int: +1 if the step raised the token's probability, −1 lowered, 0
    turning_step: np.ndarray   # shape [K] int: first step at which the token falls after rising, or 0


def policy_gradient_trace(probs, q, lr: float, steps: int, tol: float = 1e-12) -> PolicyTrace:
    """``policy_gradient_path`` plus, for every step, the logit changes and where each token turns.

    Δzₜ = η · πₜ ⊙ (Q − Vₜ); a token with Q above the current V gets a positive push, but its
    probability rises only if its push beats the π-weighted mean push, so it turns once V passes Q.

    Args:
        probs: shape [K], the starting policy.
        q: shape [K], Q of each token.
        lr: step size η ≥ 0.
        steps: number of steps (≥ 0).
        tol: probability changes no larger than this count as "no change" (≥ 0).

    Returns:
        PolicyTrace(probs [S+1, K], values [S+1], advantages [S+1, K], logit_changes [S, K],
        direction [S, K], turning_step [K]).
    """
    path = policy_gradient_path(probs, q, lr, steps)
    qv = as_vector("q", q)
    eta = non_negative("lr", lr)
    t = non_negative("tol", tol)
    adv = qv[None, :] - path.values[:, None]
    change = np.diff(path.probs, axis=0)
    direction = np.where(change > t, 1, np.where(change < -t, -1, 0))
    return PolicyTrace(path.probs, path.values, adv, eta * path.probs[:-1] * adv[:-1], direction,
                       turning_steps(path.probs, t))


# ---------- Exploration page: which seeds found a token


@dataclass(frozen=True)
class ExplorationOutcome:
    """Where each seed of a training run ended up, for one token."""

    final: np.ndarray       # shape [S]: the token's probability after the last step
    converged: np.ndarray   # shape [S], bool: final > threshold
    fraction: float         # share of seeds that converged
    first_step: np.ndarray  # shape [S], int: first step at which the probability exceeded threshold, −1 if never


def exploration_outcome(run: TrainingRun, token: int, threshold: float = 0.9) -> ExplorationOutcome:
    """Which seeds of a run found a token and settled on it.

    A seed converges to token a when its final π(a) > threshold (0.9 by default).

    Args:
        run: a TrainingRun from ``sampled_training_many`` (probs [S, steps+1, K]) or
            ``sampled_training`` (probs [steps+1, K], treated as one seed).
        token: the index of the token, in [0, K−1].
        threshold: in (0, 1).

    Returns:
        ExplorationOutcome(final [S], converged [S], fraction, first_step [S]).
    """
    if not isinstance(run, TrainingRun):
        raise ValueError(f"run must be a TrainingRun from sampled_training(_many), got {type(run).__name__}")
    probs = np.asarray(run.probs, dtype=np.float64)
    if probs.ndim == 2:
        probs = probs[None]
    if probs.ndim != 3 or probs.shape[1] < 1 or probs.shape[2] < 1:
        raise ValueError(f"run.probs must have shape [S, steps+1, K], got {probs.shape}")
    a = count("token", token, low=0, high=probs.shape[2] - 1)
    t = in_range("threshold", threshold, 0.0, 1.0)
    if t in (0.0, 1.0):
        raise ValueError(f"threshold must lie strictly between 0 and 1, got {t!r}")
    path = probs[:, :, a]
    above = path > t
    first = np.where(above.any(axis=1), above.argmax(axis=1), -1)
    converged = path[:, -1] > t
    return ExplorationOutcome(path[:, -1].copy(), converged, float(converged.mean()), first)


# ---------- Clipping and KL page: Schulman's three estimators side by side


@dataclass(frozen=True)
class KLEstimatorStudy:
    """Schulman's k1, k2, k3 on tokens sampled from π, against the exact KL(π‖π_ref)."""

    tokens: np.ndarray       # shape [N], int: the sampled tokens
    estimates: KLEstimates   # each shape [N]: the per-token values
    exact: float             # KL(π‖π_ref)
    expected: np.ndarray     # shape [3]: E_π[k1], E_π[k2], E_π[k3], exactly
    bias: np.ndarray         # shape [3]: expected − exact (0 for k1 and k3; rounding below 1e-12 set to 0)
    spread: np.ndarray       # shape [3]: exact standard deviation of one per-token value
    sample_mean: np.ndarray  # shape [3]: mean over the N sampled tokens
    sample_std: np.ndarray   # shape [3]: standard deviation over the N sampled tokens
    negative_share: np.ndarray  # shape [3]: share of the N values below 0


def kl_estimator_study(p, p_ref, n: int, seed) -> KLEstimatorStudy:
    """Draw n tokens from π and estimate KL(π‖π_ref) from them with k1, k2 and k3.

    E_π[k1] = KL(π‖π_ref) always; E_π[k3] = KL − (π_ref's mass where π = 0), so k3 is unbiased when π
    can write every token π_ref can (its usual setting); E_π[k2] = ½ Σₐ πₐ (log πₐ/π_refₐ)² (biased, close to
    KL only when π ≈ π_ref). Exact moments sum over the tokens; sample moments use the n draws.

    Source: J. Schulman, "Approximating KL Divergence" (2020), http://joschu.net/blog/kl-approx.html

    Args:
        p: shape [K], π, the policy that writes the tokens.
        p_ref: shape [K], π_ref, > 0 wherever π > 0.
        n: number of sampled tokens (1 to 1,000,000).
        seed: an integer seed or a numpy Generator.

    Returns:
        KLEstimatorStudy(tokens, estimates, exact, expected, bias, spread, sample_mean, sample_std,
        negative_share).
    """
    pp = as_probs("p", p)
    ref = as_probs("p_ref", p_ref)
    if pp.size != ref.size:
        raise ValueError(f"p and p_ref must have the same length, got {pp.size} and {ref.size}")
    support = pp > 0
    if np.any(ref[support] == 0):
        raise ValueError(f"p_ref must be > 0 wherever p > 0 (else the KL is infinite), got {ref.tolist()}")
    m = count("n", n, low=1, high=1_000_000)
    rng = rng_from("seed", seed)
    logp = np.log(np.where(support, pp, 1.0))
    logp_ref = np.log(np.where(support, ref, 1.0))
    each = kl_estimators(logp[support], logp_ref[support])
    per_token = np.stack([each.k1, each.k2, each.k3])                        # [3, K⁺]
    weights = pp[support]
    expected = per_token @ weights
    centred = per_token - expected[:, None]
    scale = np.maximum(np.abs(centred).max(axis=1), np.finfo(np.float64).tiny)  # rescaled: no overflow
    spread = scale * np.sqrt(((centred / scale[:, None]) ** 2) @ weights)
    tokens = rng.choice(pp.size, size=m, p=pp)
    est = kl_estimators(logp[tokens], logp_ref[tokens])
    values = np.stack([est.k1, est.k2, est.k3])
    exact = kl_divergence(pp, ref)
    bias = expected - exact
    bias[np.abs(bias) <= 1e-12 * max(1.0, exact)] = 0.0  # k1 and k3: only rounding is left
    return KLEstimatorStudy(tokens, est, exact, expected, bias, spread,
                            values.mean(axis=1), values.std(axis=1), (values < 0).mean(axis=1))
