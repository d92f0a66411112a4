"""The training lab: the whole RL loop on the running example, one algorithm against another.

The environment is a tiny tabular "language model": a tree of token decisions. Decision 0 picks the
first token after the answer prefix (the scenario's tokens, reference probabilities = the scenario's).
Inside the best branch (the token with the highest Q) decision 1 picks between the plain continuation
and a flattering one (the article's reward-hacking example). A trajectory is one path through the tree,
one or two decision tokens long; the judge scores the leaf it reaches.

The policy is a table of logits per decision point, the reference policy is the starting one, and each
algorithm below turns a batch of scored answers into a gradient step on that table. Every algorithm runs
vectorised over seeds and over the answers of a step; Python loops only over steps, epochs and the
(at most two) token positions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ._checks import count, in_range, non_negative
from .credit import GROUP_EPS, GROUP_METHODS, _group_advantages
from .example import FLATTERY, Scenario
from .kl import _kl_estimates
from .policy import logits_from_probs
from .ppo import _clipped_mask, _surrogate

ALGORITHMS = ("reinforce", "reinforce_mean", *GROUP_METHODS, "ppo")
"""Every algorithm the lab runs: REINFORCE without and with a running-mean baseline, the three group
baselines of ``group_advantages`` (GRPO, Dr. GRPO, RLOO), and PPO with a learned critic."""

ALGORITHM_NAMES = {
    "reinforce": "REINFORCE",
    "reinforce_mean": "REINFORCE + running mean",
    "grpo": "GRPO",
    "dr_grpo": "Dr. GRPO",
    "rloo": "RLOO",
    "ppo": "PPO",
}
"""The name a learner reads for each algorithm."""

JUDGES = ("samples", "noise")
"""How the judge scores a leaf: one of its sampled scores, uniformly; or its mean plus Gaussian noise."""

MAX_TOKENS_PER_ANSWER = 2  # decision 0, then decision 1 inside the best branch


class LabTree(NamedTuple):
    """The tree of token decisions built from a scenario."""

    tokens: tuple[str, ...]               # K first tokens (decision 0)
    ref_first: np.ndarray                 # shape [K]: π_ref at decision 0 (the scenario's probabilities)
    best: int                             # index of the token whose branch holds decision 1
    flattery: bool                        # whether decision 1 exists (the flattering branch is on)
    branch: tuple[str, str]               # decision 1: the plain and the flattering continuation
    ref_branch: np.ndarray                # shape [2]: π_ref at decision 1
    leaf_names: tuple[str, ...]           # K leaves (+1 when flattery is on: best token, then flattery)
    leaf_samples: tuple[np.ndarray, ...]  # the judge scores each leaf can get
    leaf_means: np.ndarray                # shape [L]: mean judge score of each leaf
    leaf_ref_probs: np.ndarray            # shape [L]: probability that π_ref writes each leaf


def lab_tree(scenario: Scenario, flattery: bool = True) -> LabTree:
    """The lab's environment: the scenario's first-token choice, and a plain/flattering choice in its best branch.

    Leaf k < K is "first token k" (for the best token b: b, then the plain continuation); with flattery on,
    leaf K is "b, then flattery", whose scores are b's samples shifted by the article's gap
    (FLATTERY.scores[1] − FLATTERY.scores[0] = +0.6), so the article's 9 becomes 9.6.
    π_ref(leaf) = π_ref(first token) · π_ref(continuation | b).

    Args:
        scenario: the running example (tokens, probabilities, sampled judge scores).
        flattery: whether the best branch offers the flattering continuation.

    Returns:
        LabTree(tokens, ref_first [K], best, flattery, branch, ref_branch [2], leaf_names, leaf_samples,
        leaf_means [L], leaf_ref_probs [L]).

    >>> from rlcore.example import ARTICLE_SCENARIO
    >>> tree = lab_tree(ARTICLE_SCENARIO)
    >>> tree.leaf_names[tree.best], tree.leaf_means.tolist()
    ('partly', [2.0, 5.0, 9.0, 9.6])
    """
    if not isinstance(scenario, Scenario):
        raise ValueError(f"scenario must be an rlcore.Scenario, got {type(scenario).__name__}")
    if not isinstance(flattery, (bool, np.bool_)):
        raise ValueError(f"flattery must be True or False, got {flattery!r}")
    ref_first = scenario.pi
    q = scenario.q
    best = int(np.argmax(q))
    ref_branch = FLATTERY.p_ref
    samples = [np.asarray(s, dtype=np.float64) for s in scenario.samples]
    names = list(scenario.tokens)
    leaf_ref = ref_first.copy()
    if flattery:
        gap = FLATTERY.scores[1] - FLATTERY.scores[0]
        samples.append(samples[best] + gap)
        names.append(f"{scenario.tokens[best]} + flattery")
        leaf_ref = np.append(leaf_ref, ref_first[best] * ref_branch[1])
        leaf_ref[best] = ref_first[best] * ref_branch[0]
    means = np.array([s.mean() for s in samples])
    return LabTree(scenario.tokens, ref_first, best, bool(flattery), FLATTERY.continuations, ref_branch,
                   tuple(names), tuple(samples), means, leaf_ref)


@dataclass(frozen=True)
class LabConfig:
    """Everything one training run needs besides the scenario and the seeds.

    Fields:
        algorithm: one of ALGORITHMS.
        steps: number of updates (1 to 2,000); each samples a fresh group.
        group_size: G, answers sampled per step (2 to 512).
        lr: step size η ≥ 0 of plain gradient descent on the logits.
        epochs: passes over each group for the clipped algorithms (GRPO family, PPO), 1 to 50;
            REINFORCE always takes one step per group.
        eps: clip distance ε in (0, 1).
        beta: KL coefficient β ≥ 0 (at most 100).
        lam: GAE λ in [0, 1] (PPO).
        gamma: discount γ in [0, 1] (PPO and REINFORCE's returns).
        critic_lr: PPO critic's step size in [0, 1] per epoch.
        baseline_rate: REINFORCE's running-mean rate α in (0, 1].
        judge: "samples" (a leaf's sampled scores, uniformly) or "noise" (its mean plus N(0, noise²)).
        noise: standard deviation of the "noise" judge, ≥ 0.
        flattery: whether the best branch offers the flattering continuation.
    """

    algorithm: str = "grpo"
    steps: int = 100
    group_size: int = 8
    lr: float = 0.3
    epochs: int = 4
    eps: float = 0.2
    beta: float = 0.04
    lam: float = 0.95
    gamma: float = 1.0
    critic_lr: float = 0.5
    baseline_rate: float = 0.1
    judge: str = "samples"
    noise: float = 1.0
    flattery: bool = True

    def __post_init__(self):
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm must be one of {list(ALGORITHMS)}, got {self.algorithm!r}")
        if self.judge not in JUDGES:
            raise ValueError(f"judge must be one of {list(JUDGES)}, got {self.judge!r}")
        if not isinstance(self.flattery, (bool, np.bool_)):
            raise ValueError(f"flattery must be True or False, got {self.flattery!r}")
        clean = {
            "steps": count("steps", self.steps, low=1, high=2_000),
            "group_size": count("group_size", self.group_size, low=2, high=512),
            "lr": non_negative("lr", self.lr),
            "epochs": count("epochs", self.epochs, low=1, high=50),
            "eps": in_range("eps", self.eps, 0.0, 1.0),
            "beta": in_range("beta", self.beta, 0.0, 100.0),
            "lam": in_range("lam", self.lam, 0.0, 1.0),
            "gamma": in_range("gamma", self.gamma, 0.0, 1.0),
            "critic_lr": in_range("critic_lr", self.critic_lr, 0.0, 1.0),
            "baseline_rate": in_range("baseline_rate", self.baseline_rate, 0.0, 1.0),
            "noise": non_negative("noise", self.noise),
            "flattery": bool(self.flattery),
        }
        if clean["eps"] in (0.0, 1.0):
            raise ValueError(f"eps must lie strictly between 0 and 1, got {clean['eps']!r}")
        if clean["baseline_rate"] == 0.0:
            raise ValueError("baseline_rate must be > 0, got 0.0")
        if clean["lr"] > 100:
            raise ValueError(f"lr must be <= 100, got {clean['lr']!r}")
        for name, value in clean.items():
            object.__setattr__(self, name, value)

    @property
    def clipped(self) -> bool:
        """Whether the algorithm optimises the clipped ratio over several epochs."""
        return self.algorithm in GROUP_METHODS or self.algorithm == "ppo"


class LabHistory(NamedTuple):
    """A training run, one row per seed (leading axis S); T steps, G answers per step.

    Token axis (size 2): position 0 is the first token (decision 0), position 1 the continuation picked
    at decision 1; answers outside the best branch (or with flattery off) have only position 0, and their
    position 1 holds action −1 and zeros.
    """

    probs_first: np.ndarray     # [S, T+1, K]: π at decision 0 before each step and after the last
    probs_branch: np.ndarray    # [S, T+1, 2]: π(plain), π(flattery) at decision 1 ((1, 0) with flattery off)
    expected_score: np.ndarray  # [S, T+1]: the policy's exact mean judge score, Σ_leaf π(leaf)·Q(leaf)
    kl: np.ndarray              # [S, T+1]: exact KL(π‖π_ref) over whole answers, in nats
    mean_score: np.ndarray      # [S, T]: mean judge score of each step's group
    clip_fraction: np.ndarray   # [S, T]: share of the group's tokens clipped, averaged over epochs
    loss: np.ndarray            # [S, T]: the policy loss at the first epoch (ratio 1)
    grad_norm: np.ndarray       # [S, T]: norm of the gradient of that loss with respect to all logits
    values: np.ndarray          # [S, T+1, 2]: PPO's critic V(decision 0), V(decision 1); NaN otherwise
    dead: np.ndarray            # [S, T] bool: every answer of the group got the same score
    scores: np.ndarray          # [S, T, G]: the judge's score of each answer
    actions: np.ndarray         # [S, T, G, 2] int: the token picked at each position (−1: none)
    rewards: np.ndarray         # [S, T, G, 2]: per-token rewards (score on the last token, −β·k1 for PPO
                                #               and REINFORCE)
    advantages: np.ndarray      # [S, T, G, 2]: the advantage each token was trained with (0 at padding)


def _log_softmax_rows(z: np.ndarray) -> np.ndarray:
    shifted = z - z.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def _sample_rows(probs: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Inverse-CDF sampling: probs [S, K], u [S, G] uniform in [0, 1) → indices [S, G]."""
    cdf = np.cumsum(probs, axis=1)
    cdf[:, -1] = 1.0
    return np.minimum((u[:, :, None] >= cdf[:, None, :]).sum(axis=2), probs.shape[1] - 1)


def _padded_gae(rewards: np.ndarray, values: np.ndarray, mask: np.ndarray, gamma: float,
                lam: float) -> np.ndarray:
    """``gae`` for a batch of answers of different lengths, padded to a common length.

    The same recursion as ``rlcore.gae`` (Âₜ = δₜ + γλ Âₜ₊₁), run over the last axis for every answer at
    once; a padded position gets 0 and does not feed earlier tokens.

    Args:
        rewards: shape [..., T], 0 at padding.
        values: shape [..., T+1], V(s₀)… with 0 from the end of each answer on.
        mask: shape [..., T] bool, True on real tokens (a prefix of each answer).
    """
    adv = np.zeros_like(rewards)
    last_gae = np.zeros(rewards.shape[:-1])
    for t in range(rewards.shape[-1] - 1, -1, -1):
        delta = rewards[..., t] + gamma * values[..., t + 1] - values[..., t]
        last_gae = np.where(mask[..., t], delta + gamma * lam * last_gae, 0.0)
        adv[..., t] = last_gae
    return adv


def _exact_stats(tree: LabTree, logp0: np.ndarray, logp1: np.ndarray, logref0: np.ndarray,
                 logref1: np.ndarray):
    """Exact expected score and KL(π‖π_ref) over whole answers, for policies [..., K] and [..., 2].

    KL(π‖π_ref) = KL₀ + π₀(b)·KL₁ (chain rule over the two decisions); both in log space, so a token
    that π_ref never writes (log floored) adds 0 instead of 0·log 0.
    """
    p0, p1 = np.exp(logp0), np.exp(logp1)
    kl0 = np.maximum((p0 * (logp0 - logref0)).sum(axis=-1), 0.0)
    q = tree.leaf_means
    score = (p0 * q[: p0.shape[-1]]).sum(axis=-1)
    if not tree.flattery:
        return score, kl0
    b = tree.best
    kl1 = np.maximum((p1 * (logp1 - logref1)).sum(axis=-1), 0.0)
    score = score + p0[..., b] * p1[..., 1] * (q[-1] - q[b])
    return score, kl0 + p0[..., b] * kl1


def train(scenario: Scenario, config: LabConfig, seeds=(0,)) -> LabHistory:
    """Run one algorithm on the lab's tree for ``config.steps`` steps, for several seeds at once.

    Each step, for every seed: sample G answers from π_old = the current policy (first token a₀ ~ π₀;
    inside the best branch a₁ ~ π₁); the judge scores each leaf (``config.judge``); then:

    REINFORCE (Williams 1992): per-token reward rₜ = −β·k1ₜ, plus the score on the last token
    (k1ₜ = log π_old(aₜ) − log π_ref(aₜ), the sequence-level KL penalty of Ahmadian et al. 2024);
    Âₜ = Gₜ − b with Gₜ = Σ_{t'≥t} γ^{t'−t} r_{t'}; b = 0 ("reinforce") or a running mean of the
    groups' mean scores, b₁ = 0, b_{n+1} = b_n + α(mean sₙ − b_n) ("reinforce_mean").
    Loss = −(1/G) Σᵢ Σₜ Âᵢₜ log π(aᵢₜ); one gradient step per group.

    GRPO family (Shao et al. 2024): Âᵢₜ = group_advantages(s, method)ᵢ for every token t of answer i
    (GRPO: (s − mean)/(std + 10⁻⁶); Dr. GRPO: s − mean; RLOO: s − mean of the others; the three share
    everything else, so they differ in the baseline alone). For E epochs:
    ρ = π(aₜ)/π_old(aₜ), Lₜ = min(ρÂ, clip(ρ, 1−ε, 1+ε)Â) − β·k3ₜ with k3 = π_ref/π − 1 − log(π_ref/π),
    Loss = −(1/G) Σᵢ (1/|oᵢ|) Σₜ Lᵢₜ. At the first epoch ρ = 1 and Σᵢ Âᵢ = 0, so with β = 0 the loss
    is 0 while its gradient is not.

    PPO (Schulman et al. 2017; KL in the reward as in Ouyang et al. 2022): rₜ = −β·k1ₜ, plus the score
    on the last token; a tabular critic V(decision point); Â = gae(r, V, γ, λ) per answer; for E epochs
    Loss = −mean over all tokens of min(ρÂ, clip(ρ, 1−ε, 1+ε)Â), and each visited V(d) moves by
    critic_lr·(mean target − V(d)) towards the λ-returns Â + V (the gradient of ½(V − target)²).

    Every step is plain gradient descent z ← z − η·∂Loss/∂z on the logits of each decision point; for
    a token a at a decision with policy π, ∂log π(a)/∂z = e_a − π. The loss and gradient norm kept in
    the history are those of the first epoch, where ρ = 1 (what a trainer logs first).

    Args:
        scenario: the running example.
        config: a LabConfig (algorithm, steps, group size, η, epochs, ε, β, λ, ...).
        seeds: one integer seed per run; the runs share nothing, so a seed's history does not depend on
            the other seeds.

    Returns:
        LabHistory with a leading seed axis (see its fields).
    """
    if not isinstance(config, LabConfig):
        raise ValueError(f"config must be an rlcore.LabConfig, got {type(config).__name__}")
    tree = lab_tree(scenario, config.flattery)
    seed_list = [count("seeds", s, low=0) for s in np.atleast_1d(np.asarray(seeds, dtype=object))]
    if not seed_list:
        raise ValueError("seeds must hold at least one seed")
    if len(seed_list) > 64:
        raise ValueError(f"seeds may hold at most 64 seeds, got {len(seed_list)}")
    # A step size too large for the KL term (β·π_ref/π explodes on a rare token) overflows: report it
    # as a diverged run instead of filling the history with inf and NaN.
    progress = [0]
    try:
        with np.errstate(over="raise", invalid="raise", divide="raise"):
            return training_loop(tree, config, seed_list, progress)
    except FloatingPointError:
        raise ValueError(f"lr: the run diverged at step {progress[0] + 1} (a logit overflowed); try a step "
                         f"size below {config.lr:g}, fewer epochs or a smaller β") from None


def training_loop(tree: LabTree, c: LabConfig, seed_list: list[int], progress: list[int]) -> LabHistory:
    """The loop behind ``train``, step by step: sample, score, advantages, epochs of gradient descent.

    Call ``train`` instead: it checks the inputs, builds the tree and turns an overflow into a
    ValueError. ``progress[0]`` holds the step being run.
    """
    algo = c.algorithm
    n_seeds, n_steps, g, k = len(seed_list), c.steps, c.group_size, len(tree.tokens)
    b, flat = tree.best, tree.flattery
    group = algo in GROUP_METHODS
    epochs = c.epochs if c.clipped else 1

    # Random numbers for the whole run, drawn up front per seed: [S, T, 3, G] uniforms (first token,
    # continuation, which sample) and, for the noise judge, [S, T, G] standard normals.
    rngs = [np.random.default_rng(s) for s in seed_list]
    uniforms = np.stack([r.random((n_steps, 3, g)) for r in rngs])
    normals = np.stack([r.standard_normal((n_steps, g)) for r in rngs]) if c.judge == "noise" else None
    lengths = np.array([s.size for s in tree.leaf_samples])
    offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    flat_samples = np.concatenate(tree.leaf_samples)

    logref0 = logits_from_probs(tree.ref_first)
    logref1 = logits_from_probs(tree.ref_branch)
    z0 = np.tile(logref0, (n_seeds, 1))
    z1 = np.tile(logref1, (n_seeds, 1))
    eye0, eye1 = np.eye(k), np.eye(2)
    rows = np.arange(n_seeds)[:, None]
    critic = np.zeros((n_seeds, 2))
    running_b = np.zeros(n_seeds)

    probs0 = np.empty((n_seeds, n_steps + 1, k))
    logps0 = np.empty((n_seeds, n_steps + 1, k))
    logps1 = np.empty((n_seeds, n_steps + 1, 2))
    values = np.full((n_seeds, n_steps + 1, 2), np.nan)
    mean_score = np.empty((n_seeds, n_steps))
    clip_frac = np.zeros((n_seeds, n_steps))
    loss_out = np.empty((n_seeds, n_steps))
    grad_out = np.empty((n_seeds, n_steps))
    scores_out = np.empty((n_seeds, n_steps, g))
    actions_out = np.full((n_seeds, n_steps, g, 2), -1, dtype=np.int64)
    rewards_out = np.zeros((n_seeds, n_steps, g, 2))
    adv_out = np.zeros((n_seeds, n_steps, g, 2))

    for t in range(n_steps):
        progress[0] = t
        logp0, logp1 = _log_softmax_rows(z0), _log_softmax_rows(z1)
        p0, p1 = np.exp(logp0), np.exp(logp1)
        logps0[:, t], logps1[:, t], probs0[:, t] = logp0, logp1, p0
        if algo == "ppo":
            values[:, t] = critic

        # 1. Sample a group of answers and score them.
        u = uniforms[:, t]
        a0 = _sample_rows(p0, u[:, 0])                                     # [S, G]
        branch = (a0 == b) & flat                                          # reaches decision 1
        a1 = np.where(branch, _sample_rows(p1, u[:, 1]), -1)               # [S, G]
        leaf = np.where(a1 == 1, k, a0)
        if c.judge == "samples":
            picks = (u[:, 2] * lengths[leaf]).astype(np.int64)
            scores = flat_samples[offsets[leaf] + picks]
        else:
            scores = tree.leaf_means[leaf] + c.noise * normals[:, t]
        mask = np.stack([np.ones_like(branch), branch], axis=-1)           # [S, G, 2] real tokens
        n_tok = mask.sum(axis=-1)                                          # 1 or 2 tokens per answer
        onehot0 = eye0[a0]                                                 # [S, G, K]
        onehot1 = eye1[np.maximum(a1, 0)] * branch[..., None]              # [S, G, 2]

        a1_safe = np.maximum(a1, 0)

        def token_logp(lp0, lp1, a0=a0, a1_safe=a1_safe, branch=branch):
            out = np.empty((n_seeds, g, 2))                                # [S, G, 2], 0 at padding
            out[..., 0] = lp0[rows, a0]
            out[..., 1] = np.where(branch, lp1[rows, a1_safe], 0.0)
            return out

        lp_old = token_logp(logp0, logp1)
        lp_ref = token_logp(np.broadcast_to(logref0, logp0.shape), np.broadcast_to(logref1, logp1.shape))
        k1 = _kl_estimates(lp_old, lp_ref).k1  # the loop calls the checked functions' formulas directly:
        # their checks cost more than the training itself, and these arrays are valid by construction

        # 2. Advantages (and per-token rewards) of every token.
        last = n_tok - 1                                                   # position of the last token
        on_last = np.arange(2) == last[..., None]                          # [S, G, 2]
        if group:
            rewards = np.where(on_last, scores[..., None], 0.0)
            adv_answer = np.stack([_group_advantages(s, algo, GROUP_EPS) for s in scores])   # [S, G]
            adv = np.where(mask, adv_answer[..., None], 0.0)
        else:
            rewards = np.where(on_last, scores[..., None], 0.0) - c.beta * k1 * mask
            if algo == "ppo":
                v_pad = np.concatenate([critic[:, None, :] * mask, np.zeros((n_seeds, g, 1))], axis=-1)
                adv = _padded_gae(rewards, v_pad, mask, c.gamma, c.lam)
                targets = adv + v_pad[..., :2]
            else:
                returns = _padded_gae(rewards, np.zeros((n_seeds, g, 3)), mask, c.gamma, 1.0)
                base = running_b if algo == "reinforce_mean" else np.zeros(n_seeds)
                adv = np.where(mask, returns - base[:, None, None], 0.0)
                running_b = running_b + c.baseline_rate * (scores.mean(axis=1) - running_b)

        # 3. Token weights of the loss: REINFORCE sums an answer's tokens, the GRPO family averages
        #    them (1/|oᵢ|), then both average over the G answers; PPO averages over all tokens.
        if algo == "ppo":
            weight = mask / mask.sum(axis=(1, 2), keepdims=True)
        elif group:
            weight = mask / (g * n_tok[..., None])
        else:
            weight = mask / g

        # 4. Epochs of gradient descent on the loss.
        clipped_sum = np.zeros(n_seeds)
        n_real = mask.sum(axis=(1, 2))
        for epoch in range(epochs):
            first = epoch == 0
            lp0_now, lp1_now = (logp0, logp1) if first else (_log_softmax_rows(z0), _log_softmax_rows(z1))
            lp = token_logp(lp0_now, lp1_now)
            if c.clipped:
                ratio = np.exp(lp - lp_old)
                clipped = _clipped_mask(ratio, adv, c.eps, c.eps)
                coeff = np.where(clipped, 0.0, adv * ratio)                     # ∂L/∂log π
                if group and c.beta > 0:
                    coeff = coeff + c.beta * np.expm1(lp_ref - lp)              # −β ∂k3/∂log π
                clipped_sum += clipped.sum(axis=(1, 2)) / n_real
            else:
                coeff = adv
            if first:  # the loss as a trainer logs it: at the first epoch, where ρ = 1
                if c.clipped:
                    objective = _surrogate(ratio, adv, c.eps, c.eps)
                    if group and c.beta > 0:
                        objective = objective - c.beta * _kl_estimates(lp, lp_ref).k3
                else:
                    objective = adv * lp
                loss_out[:, t] = -(weight * objective).sum(axis=(1, 2))
            w = weight * coeff                                                  # [S, G, 2]
            grad0 = -((w[:, None, :, 0] @ onehot0)[:, 0] - w[..., 0].sum(axis=1)[:, None] * np.exp(lp0_now))
            grad1 = -((w[:, None, :, 1] @ onehot1)[:, 0] - w[..., 1].sum(axis=1)[:, None] * np.exp(lp1_now))
            if first:
                grad_out[:, t] = np.sqrt((grad0**2).sum(axis=1) + (grad1**2).sum(axis=1))
            z0 = z0 - c.lr * grad0
            z1 = z1 - c.lr * grad1
            if algo == "ppo":
                visits = mask.sum(axis=1)                                       # [S, 2]
                target_sum = (targets * mask).sum(axis=1)
                mean_target = np.divide(target_sum, visits, out=critic.copy(), where=visits > 0)
                critic = critic + c.critic_lr * (mean_target - critic)
        clip_frac[:, t] = clipped_sum / epochs

        mean_score[:, t] = scores.mean(axis=1)
        scores_out[:, t] = scores
        actions_out[:, t, :, 0], actions_out[:, t, :, 1] = a0, a1
        rewards_out[:, t] = rewards
        adv_out[:, t] = adv


    logps0[:, -1], logps1[:, -1] = _log_softmax_rows(z0), _log_softmax_rows(z1)
    probs0[:, -1] = np.exp(logps0[:, -1])
    if algo == "ppo":
        values[:, -1] = critic
    expected, kl_exact = _exact_stats(tree, logps0, logps1, logref0, logref1)
    probs1 = np.exp(logps1) if flat else np.broadcast_to([1.0, 0.0], logps1.shape).copy()
    dead = np.ptp(scores_out, axis=2) == 0
    return LabHistory(probs0, probs1, expected, kl_exact, mean_score, clip_frac, loss_out, grad_out,
                      values, dead, scores_out, actions_out, rewards_out, adv_out)


def thin_steps(n: int, max_points: int) -> np.ndarray:
    """At most ``max_points`` evenly spaced indices of 0…n−1, always with the first and the last.

    What a chart keeps of a long run so that it stays small.

    >>> thin_steps(11, 4).tolist()
    [0, 4, 8, 10]
    >>> thin_steps(3, 10).tolist()
    [0, 1, 2]
    """
    size = count("n", n, low=1)
    top = count("max_points", max_points, low=2)
    if size <= top:
        return np.arange(size)
    stride = -(-size // (top - 1))
    idx = np.arange(0, size, stride)
    return idx if idx[-1] == size - 1 else np.append(idx, size - 1)


def dead_share(dead, window: int = 1) -> np.ndarray:
    """Share of dead groups per step: over the seeds, and over the last ``window`` steps.

    shareₜ = mean over seeds and over steps t−w+1…t of deadₛ,ₜ (fewer steps at the start).

    Args:
        dead: shape [S, T] bool, ``LabHistory.dead``.
        window: w ≥ 1 steps to average over.

    Returns:
        shape [T], in [0, 1].

    >>> dead_share([[True, False, False, True]], window=2).tolist()
    [1.0, 0.5, 0.0, 0.5]
    """
    d = np.asarray(dead)
    if d.ndim != 2 or d.size == 0:
        raise ValueError(f"dead must have shape [S, T] with S, T ≥ 1, got {d.shape}")
    if d.dtype != bool and not np.all(np.isin(d, (0, 1))):
        raise ValueError("dead must hold only True/False")
    w = count("window", window, low=1)
    per_step = d.astype(np.float64).mean(axis=0)
    total = np.cumsum(np.concatenate([[0.0], per_step]))
    starts = np.maximum(np.arange(per_step.size) + 1 - w, 0)
    return (total[1:] - total[starts]) / (np.arange(per_step.size) + 1 - starts)


def first_step_loss(history: LabHistory) -> tuple[float, float]:
    """The first step's loss and gradient norm, median over seeds: "loss 0, yet it learns".

    Returns:
        (loss, grad_norm) at the first epoch of step 1.
    """
    if not isinstance(history, LabHistory):
        raise ValueError(f"history must be an rlcore.LabHistory, got {type(history).__name__}")
    return float(np.median(history.loss[:, 0])), float(np.median(history.grad_norm[:, 0]))

