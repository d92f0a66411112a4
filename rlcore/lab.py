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

Algorithms come in families (FAMILIES): REINFORCE, the group baselines (GRPO, Dr. GRPO, RLOO) and PPO.
A family is an advantage function (scored group → per-token advantages), a loss aggregation, whether it
clips, and where its KL term goes; sampling, scoring and the gradient step (``policy_update``) are shared.
A new family is one advantage function and one entry in FAMILIES (and its algorithms in ALGORITHMS and
FAMILY_OF); a new way to add up token losses is one entry in LOSS_AGGREGATIONS.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ._checks import count, in_range, non_negative
from .credit import GROUP_EPS, GROUP_METHODS, _group_advantages, gae_batch
from .example import FLATTERY, Scenario
from .kl import _kl_estimates
from .policy import _log_softmax, logits_from_probs
from .ppo import _clipped_mask, _surrogate
from .sampling import ScoreTable, sample_tokens

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

FAMILY_OF = {"reinforce": "reinforce", "reinforce_mean": "reinforce", **dict.fromkeys(GROUP_METHODS, "group"),
             "ppo": "ppo"}
"""The family of each algorithm (a key of FAMILIES): algorithms of a family differ only inside its advantage
function."""

LOSS_AGGREGATIONS = {
    "token-mean": lambda mask, n_tokens: mask / mask.sum(axis=(1, 2), keepdims=True),  # mean over all tokens
    "seq-mean-token-mean": lambda mask, n_tokens: mask / (mask.shape[1] * n_tokens[..., None]),  # per answer, then G
    "seq-mean-token-sum": lambda mask, n_tokens: mask / mask.shape[1],                 # sum per answer, mean over G
}
"""How the token losses of a group add up to the loss: each maps the real-token mask [S, G, 2] and the answers'
lengths [S, G] to the weight of every token (the names are verl's ``loss_agg_mode``; Liu et al. 2025 discuss
why the per-answer mean biases the update by length)."""

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
        loss_agg: how token losses add up (a key of LOSS_AGGREGATIONS); None: the family's own (REINFORCE
            "seq-mean-token-sum", the GRPO family "seq-mean-token-mean", PPO "token-mean").
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
    loss_agg: str | None = None

    def __post_init__(self):
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm must be one of {list(ALGORITHMS)}, got {self.algorithm!r}")
        if self.judge not in JUDGES:
            raise ValueError(f"judge must be one of {list(JUDGES)}, got {self.judge!r}")
        if not isinstance(self.flattery, (bool, np.bool_)):
            raise ValueError(f"flattery must be True or False, got {self.flattery!r}")
        if self.loss_agg is not None and self.loss_agg not in LOSS_AGGREGATIONS:
            raise ValueError(f"loss_agg must be None or one of {list(LOSS_AGGREGATIONS)}, got {self.loss_agg!r}")
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

    @property
    def family(self) -> str:
        """The algorithm's family, a key of FAMILIES."""
        return FAMILY_OF[self.algorithm]


class LabHistory(NamedTuple):
    """A training run, one row per seed (leading axis S); T steps, G answers per step.

    T is ``config.steps``, or the steps before ``diverged_at`` when the run diverged (``run_training``).

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
    diverged_at: int | None = None  # the step (1-based) whose update overflowed; the arrays then stop before it


class Group(NamedTuple):
    """One step's sampled group: G answers per seed, as the advantage functions and the update see them.

    Token axis (size 2) as in LabHistory: position 0 is the first token, position 1 the continuation, which
    only answers inside the best branch have (``mask``); a padded position holds 0.
    """

    first: np.ndarray          # [S, G] int: first token a₀ ~ π(decision 0)
    second: np.ndarray         # [S, G] int: continuation a₁ ~ π(decision 1) inside the best branch, else −1
    mask: np.ndarray           # [S, G, 2] bool: real tokens
    n_tokens: np.ndarray       # [S, G] int: 1 or 2 tokens per answer
    scores: np.ndarray         # [S, G]: the judge's score of each answer
    logp_old: np.ndarray       # [S, G, 2]: log π_old of each token (the policy that wrote the group)
    logp_ref: np.ndarray       # [S, G, 2]: log π_ref of each token
    onehot_first: np.ndarray   # [S, G, K]: e_{a₀}
    onehot_second: np.ndarray  # [S, G, 2]: e_{a₁}, a zero row for answers without a continuation


class LabState(NamedTuple):
    """What an algorithm carries from one step to the next besides the policy."""

    baseline: np.ndarray  # [S]: REINFORCE's running mean of the groups' mean scores
    critic: np.ndarray    # [S, 2]: PPO's tabular V(decision 0), V(decision 1)


def _token_logp(logp0: np.ndarray, logp1: np.ndarray, group: Group) -> np.ndarray:
    """log π of every token of the group: [S, G, 2], 0 at padding.

    logp0 [S, K] and logp1 [S, 2] hold one policy per seed; [K] and [2], one policy for every seed (π_ref).
    """
    second = np.maximum(group.second, 0)
    if logp0.ndim == 2:
        rows = np.arange(logp0.shape[0])[:, None]
        lp_first, lp_second = logp0[rows, group.first], logp1[rows, second]
    else:
        lp_first, lp_second = logp0[group.first], logp1[second]
    return np.stack([lp_first, np.where(group.mask[..., 1], lp_second, 0.0)], axis=-1)


def _sample_group(tree: LabTree, c: LabConfig, logp0: np.ndarray, logp1: np.ndarray, u: np.ndarray,
                  normal: np.ndarray | None, table: ScoreTable, logref: tuple[np.ndarray, np.ndarray]) -> Group:
    """Write G answers per seed with the current policy and score them (u [S, 3, G] uniforms, normal [S, G])."""
    k = len(tree.tokens)
    first = sample_tokens(np.exp(logp0), u[:, 0])                                # [S, G]
    branch = (first == tree.best) & tree.flattery                                 # reaches decision 1
    second = np.where(branch, sample_tokens(np.exp(logp1), u[:, 1]), -1)          # [S, G]
    leaf = np.where(second == 1, k, first)
    scores = table.draw(leaf, u[:, 2]) if c.judge == "samples" else tree.leaf_means[leaf] + c.noise * normal
    mask = np.stack([np.ones_like(branch), branch], axis=-1)
    partial = Group(first, second, mask, mask.sum(axis=-1), scores, None, None, None, None)
    return partial._replace(logp_old=_token_logp(logp0, logp1, partial), logp_ref=_token_logp(*logref, partial),
                            onehot_first=np.eye(k)[first],
                            onehot_second=np.eye(2)[np.maximum(second, 0)] * branch[..., None])


# ---------------------------------------------------------------- one advantage function per family
# Each takes the group, the carried state and the config, and returns (per-token rewards, per-token
# advantages, new state), all [S, G, 2] with 0 at padding.


def _outcome_rewards(group: Group, kl_coef: float) -> np.ndarray:
    """rₜ = −β·k1ₜ on every token, plus the score on the last one (k1ₜ = log π_old(aₜ) − log π_ref(aₜ))."""
    on_last = np.arange(2) == (group.n_tokens - 1)[..., None]
    # the loop calls the checked functions' formulas directly: their checks cost more than the training
    # itself, and these arrays are valid by construction
    k1 = _kl_estimates(group.logp_old, group.logp_ref).k1
    return np.where(on_last, group.scores[..., None], 0.0) - kl_coef * k1 * group.mask


def reinforce_advantages(group: Group, state: LabState, c: LabConfig):
    """REINFORCE: Âₜ = Gₜ − b, Gₜ = Σ_{t'≥t} γ^{t'−t} r_{t'}; b = 0, or the running mean of the groups' mean
    scores (b₁ = 0, b_{n+1} = b_n + α(mean sₙ − b_n)) for "reinforce_mean"."""
    rewards = _outcome_rewards(group, c.beta)
    returns = gae_batch(rewards, np.zeros((*group.mask.shape[:-1], 3)), c.gamma, 1.0, group.mask)  # λ = 1, V = 0
    base = state.baseline if c.algorithm == "reinforce_mean" else np.zeros_like(state.baseline)
    adv = np.where(group.mask, returns - base[:, None, None], 0.0)
    baseline = state.baseline + c.baseline_rate * (group.scores.mean(axis=1) - state.baseline)
    return rewards, adv, state._replace(baseline=baseline)


def group_baseline_advantages(group: Group, state: LabState, c: LabConfig):
    """GRPO, Dr. GRPO, RLOO: every token of answer i gets group_advantages(scores, algorithm)ᵢ; KL is in the loss."""
    rewards = np.where(np.arange(2) == (group.n_tokens - 1)[..., None], group.scores[..., None], 0.0)
    per_answer = np.stack([_group_advantages(s, c.algorithm, GROUP_EPS) for s in group.scores])   # [S, G]
    return rewards, np.where(group.mask, per_answer[..., None], 0.0), state


def critic_advantages(group: Group, state: LabState, c: LabConfig):
    """PPO: Â = gae(r, V, γ, λ) per answer with the critic's V; then the critic takes ``epochs`` steps
    V(d) ← V(d) + critic_lr·(mean λ-return Â + V at d − V(d)) on each decision point d the group visited."""
    rewards = _outcome_rewards(group, c.beta)
    v_pad = np.concatenate([state.critic[:, None, :] * group.mask, np.zeros((*group.mask.shape[:-1], 1))], axis=-1)
    adv = gae_batch(rewards, v_pad, c.gamma, c.lam, group.mask)
    visits = group.mask.sum(axis=1)                                                       # [S, 2]
    target_sum = ((adv + v_pad[..., :2]) * group.mask).sum(axis=1)
    critic = state.critic
    for _ in range(c.epochs):
        mean_target = np.divide(target_sum, visits, out=critic.copy(), where=visits > 0)
        critic = critic + c.critic_lr * (mean_target - critic)
    return rewards, adv, state._replace(critic=critic)


class Family(NamedTuple):
    """What sets an algorithm family apart; everything else (sampling, the update) is shared."""

    advantages: Callable  # (group, state, config) → (rewards, advantages, state)
    loss_agg: str         # how token losses are averaged (a key of LOSS_AGGREGATIONS), unless the config says
    clipped: bool         # clipped ratio over several epochs (else one plain policy-gradient step)
    kl_in_loss: bool      # β·k3 in the loss (else −β·k1 in the reward, through ``advantages``)


FAMILIES = {
    "reinforce": Family(reinforce_advantages, "seq-mean-token-sum", clipped=False, kl_in_loss=False),
    "group": Family(group_baseline_advantages, "seq-mean-token-mean", clipped=True, kl_in_loss=True),
    "ppo": Family(critic_advantages, "token-mean", clipped=True, kl_in_loss=False),
}
"""Each family of algorithms: its advantage function, loss aggregation, clipping and KL placement."""


# ---------------------------------------------------------------- the shared update


def policy_update(z0: np.ndarray, z1: np.ndarray, logp0: np.ndarray, logp1: np.ndarray, group: Group, adv: np.ndarray,
            weight: np.ndarray, c: LabConfig, family: Family):
    """Epochs of gradient descent z ← z − η·∂Loss/∂z on the logits, Loss = −Σ weight·Lₜ.

    Clipped families: ρ = π(aₜ)/π_old(aₜ), Lₜ = min(ρÂ, clip(ρ, 1−ε, 1+ε)Â) (− β·k3ₜ when the KL is in the
    loss), ∂Lₜ/∂log π(aₜ) = ρÂ unless clipped (then 0), − β(π_ref/π − 1). REINFORCE: Lₜ = Âₜ log π(aₜ), one
    epoch. For a token a at a decision with policy π, ∂log π(a)/∂z = e_a − π.

    Returns:
        (z0, z1, loss, grad_norm, clip_fraction): the new logits; the loss and gradient norm at the first
        epoch, where ρ = 1 (what a trainer logs first); the share of tokens clipped, averaged over epochs.
    """
    epochs = c.epochs if family.clipped else 1
    kl_coef = c.beta if family.kl_in_loss else 0.0
    n_real = group.mask.sum(axis=(1, 2))
    clipped_sum = np.zeros(z0.shape[0])
    for epoch in range(epochs):
        first = epoch == 0
        lp0_now, lp1_now = (logp0, logp1) if first else (_log_softmax(z0), _log_softmax(z1))
        lp = _token_logp(lp0_now, lp1_now, group)
        if family.clipped:
            ratio = np.exp(lp - group.logp_old)
            clipped = _clipped_mask(ratio, adv, c.eps, c.eps)
            coeff = np.where(clipped, 0.0, adv * ratio)                         # ∂L/∂log π
            if kl_coef > 0:
                coeff = coeff + kl_coef * np.expm1(group.logp_ref - lp)         # −β ∂k3/∂log π
            clipped_sum += clipped.sum(axis=(1, 2)) / n_real
        else:
            coeff = adv
        if first:
            if family.clipped:
                objective = _surrogate(ratio, adv, c.eps, c.eps)
                if kl_coef > 0:
                    objective = objective - kl_coef * _kl_estimates(lp, group.logp_ref).k3
            else:
                objective = adv * lp
            loss = -(weight * objective).sum(axis=(1, 2))
        w = weight * coeff                                                      # [S, G, 2]
        grad0 = -((w[:, None, :, 0] @ group.onehot_first)[:, 0] - w[..., 0].sum(axis=1)[:, None] * np.exp(lp0_now))
        grad1 = -((w[:, None, :, 1] @ group.onehot_second)[:, 0] - w[..., 1].sum(axis=1)[:, None] * np.exp(lp1_now))
        if first:
            grad_norm = np.sqrt((grad0**2).sum(axis=1) + (grad1**2).sum(axis=1))
        z0 = z0 - c.lr * grad0
        z1 = z1 - c.lr * grad1
    return z0, z1, loss, grad_norm, clipped_sum / epochs


# ---------------------------------------------------------------- the loop


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


def run_training(scenario: Scenario, config: LabConfig, seeds=(0,)) -> LabHistory:
    """``train``, except that a run that diverges returns its history up to there, with ``diverged_at`` set.

    A step size too large for the KL term (β·π_ref/π explodes on a rare token) overflows a logit; instead of
    filling the history with inf and NaN, the run stops at that step: the history holds the steps before it
    (finite) and ``diverged_at`` is the step (1-based) that overflowed. All seeds stop together.
    """
    if not isinstance(config, LabConfig):
        raise ValueError(f"config must be an rlcore.LabConfig, got {type(config).__name__}")
    tree = lab_tree(scenario, config.flattery)
    seed_list = [count("seeds", s, low=0) for s in np.atleast_1d(np.asarray(seeds, dtype=object))]
    if not seed_list:
        raise ValueError("seeds must hold at least one seed")
    if len(seed_list) > 64:
        raise ValueError(f"seeds may hold at most 64 seeds, got {len(seed_list)}")
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        return training_loop(tree, config, seed_list)


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
        LabHistory with a leading seed axis (see its fields). A run whose logits overflow raises
        ValueError naming lr; ``run_training`` returns its history up to there instead.
    """
    history = run_training(scenario, config, seeds)
    if history.diverged_at is not None:
        raise ValueError(f"lr: the run diverged at step {history.diverged_at} (a logit overflowed); try a step "
                         f"size below {config.lr:g}, fewer epochs or a smaller β")
    return history


def training_loop(tree: LabTree, c: LabConfig, seed_list: list[int], progress: list[int] | None = None) -> LabHistory:
    """The loop behind ``train``: each step samples a group, scores it, computes advantages, updates the policy.

    Call ``train`` or ``run_training`` instead: they check the inputs, build the tree and turn on the
    floating-point errors by which this loop notices an overflow (it then stops and sets ``diverged_at``).
    ``progress[0]``, if given, holds the step being run.
    """
    family = FAMILIES[c.family]
    aggregate = LOSS_AGGREGATIONS[c.loss_agg or family.loss_agg]
    n_seeds, g = len(seed_list), c.group_size
    # Random numbers for the whole run, drawn up front per seed: [S, T, 3, G] uniforms (first token,
    # continuation, which sample) and, for the noise judge, [S, T, G] standard normals.
    rngs = [np.random.default_rng(s) for s in seed_list]
    uniforms = np.stack([r.random((c.steps, 3, g)) for r in rngs])
    normals = np.stack([r.standard_normal((c.steps, g)) for r in rngs]) if c.judge == "noise" else None
    table = ScoreTable.of(tree.leaf_samples)
    logref = (logits_from_probs(tree.ref_first), logits_from_probs(tree.ref_branch))
    z0, z1 = (np.tile(r, (n_seeds, 1)) for r in logref)
    state = LabState(baseline=np.zeros(n_seeds), critic=np.zeros((n_seeds, 2)))
    log = _Log.empty(n_seeds, c.steps, g, len(tree.tokens))

    for t in range(c.steps + 1):  # the last pass only records the final policy
        step = min(t, c.steps - 1)
        if progress is not None:
            progress[0] = step
        try:
            logp0, logp1 = _log_softmax(z0), _log_softmax(z1)
        except FloatingPointError:  # the last update left logits too far apart: the history ends before it
            return log.history(tree, logref, t - 1, diverged_at=step + 1)
        log.policy(t, logp0, logp1, state.critic if c.algorithm == "ppo" else None)
        if t == c.steps:
            break
        try:
            group = _sample_group(tree, c, logp0, logp1, uniforms[:, t],
                                  None if normals is None else normals[:, t], table, logref)
            rewards, adv, state = family.advantages(group, state, c)
            z0, z1, loss, grad_norm, clip = policy_update(z0, z1, logp0, logp1, group, adv,
                                                    aggregate(group.mask, group.n_tokens), c, family)
        except FloatingPointError:
            return log.history(tree, logref, t, diverged_at=t + 1)
        log.step(t, group, rewards, adv, loss, grad_norm, clip)
    return log.history(tree, logref, c.steps, diverged_at=None)


@dataclass
class _Log:
    """The arrays of a LabHistory, filled step by step."""

    logp0: np.ndarray
    logp1: np.ndarray
    values: np.ndarray
    loss: np.ndarray
    grad_norm: np.ndarray
    clip: np.ndarray
    scores: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray
    advantages: np.ndarray

    @classmethod
    def empty(cls, n_seeds: int, n_steps: int, g: int, k: int) -> _Log:
        per_step = (n_seeds, n_steps)
        return cls(np.empty((n_seeds, n_steps + 1, k)), np.empty((n_seeds, n_steps + 1, 2)),
                   np.full((n_seeds, n_steps + 1, 2), np.nan), np.empty(per_step), np.empty(per_step),
                   np.zeros(per_step), np.empty((*per_step, g)), np.full((*per_step, g, 2), -1, dtype=np.int64),
                   np.zeros((*per_step, g, 2)), np.zeros((*per_step, g, 2)))

    def policy(self, t: int, logp0: np.ndarray, logp1: np.ndarray, critic: np.ndarray | None) -> None:
        self.logp0[:, t], self.logp1[:, t] = logp0, logp1
        if critic is not None:
            self.values[:, t] = critic

    def step(self, t: int, group: Group, rewards, adv, loss, grad_norm, clip) -> None:
        self.loss[:, t], self.grad_norm[:, t], self.clip[:, t] = loss, grad_norm, clip
        self.scores[:, t] = group.scores
        self.actions[:, t, :, 0], self.actions[:, t, :, 1] = group.first, group.second
        self.rewards[:, t], self.advantages[:, t] = rewards, adv

    def history(self, tree: LabTree, logref, n: int, diverged_at: int | None) -> LabHistory:
        """The history of the first n steps (the policy before each and after the last)."""
        logp0, logp1 = self.logp0[:, :n + 1], self.logp1[:, :n + 1]
        expected, kl_exact = _exact_stats(tree, logp0, logp1, *logref)
        probs1 = np.exp(logp1) if tree.flattery else np.broadcast_to([1.0, 0.0], logp1.shape).copy()
        scores = self.scores[:, :n]
        return LabHistory(np.exp(logp0), probs1, expected, kl_exact, scores.mean(axis=2), self.clip[:, :n],
                          self.loss[:, :n], self.grad_norm[:, :n], self.values[:, :n + 1], np.ptp(scores, axis=2) == 0,
                          scores, self.actions[:, :n], self.rewards[:, :n], self.advantages[:, :n], diverged_at)


def first_step_loss(history: LabHistory) -> tuple[float, float]:
    """The first step's loss and gradient norm, median over seeds: "loss 0, yet it learns".

    Returns:
        (loss, grad_norm) at the first epoch of step 1.
    """
    if not isinstance(history, LabHistory):
        raise ValueError(f"history must be an rlcore.LabHistory, got {type(history).__name__}")
    return float(np.median(history.loss[:, 0])), float(np.median(history.grad_norm[:, 0]))
