"""The training lab: the whole RL loop on the running example, one algorithm against another.

The environment is a tiny tabular "language model": a tree of token decisions. Decision 0 picks the
first token after the answer prefix (the scenario's tokens, reference probabilities = the scenario's).
Inside the best branch (the token with the highest Q) decision 1 picks between the plain continuation
and a flattering one (the article's reward-hacking example). With ``LabConfig.length`` L > 0 an answer
then goes on with up to L "length tokens", stop/continue decisions from a table of their own per first
token (π_ref: continue with probability LENGTH_REF_CONTINUE). The judge scores an answer's content alone.

The policy is a table of logits per decision point; the reference policy is the starting one. ``train``
is the loop, one step after another: sample a group of answers, score it, turn the scores into
advantages, and take the loss's gradient step on the logits. What sets one algorithm apart from another
sits in one row of ALGORITHM_TABLE (its advantage function, loss aggregation, clip, KL placement and
gradient weight); a new algorithm is one row there (and, if it needs one, an advantage function). Every
step is vectorised over seeds and over the answers of a group; Python loops only over steps and epochs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields, replace

import numpy as np

from ..formulas.aggregation import (
    AGGREGATION_MODES,
    gradient_weights,
    informative_groups,
    sequence_ratio,
    token_weights,
)
from ..formulas.checks import as_vector, count, finite, in_range, non_negative, same_length, show
from ..formulas.credit import gae, group_advantages
from ..formulas.diagnostics import entropy, pass_at_k
from ..formulas.estimates import SeedBands, seed_bands
from ..formulas.example import FLATTERY, Scenario
from ..formulas.kl import kl_estimators
from ..formulas.policy import log_softmax, logits_from_probs
from ..formulas.ppo import clipped_objective, is_clipped
from ..formulas.sampling import ScoreTable, sample_tokens
from .clips import GSPO_EPS

__all__ = [
    "ALGORITHMS",
    "ALGORITHM_NAMES",
    "JUDGES",
    "PER_STEP",
    "SETTINGS",
    "Algorithm",
    "Group",
    "LabBands",
    "LabConfig",
    "LabHistory",
    "LabQuestion",
    "LabState",
    "LabTree",
    "dead_share",
    "first_step_loss",
    "lab_bands",
    "lab_is_light",
    "lab_pass_at_k",
    "lab_question",
    "lab_seed_count",
    "lab_tree",
    "train",
]

LOSS_AGGREGATIONS = AGGREGATION_MODES
"""How the token losses of a group add up to the loss (verl's ``loss_agg_mode`` names): ``token_weights`` of the
real-token mask [S, G, P] (one group per seed) with L_max the longest possible answer, i.e. 1/Σ|o_j|, 1/(G·|o_i|),
1/G and 1/(G·L_max) (Liu et al. 2025 discuss why the per-answer mean biases the update by length)."""

LENGTH_REF_CONTINUE = 0.5
"""π_ref(continue) at every length decision: with ``length`` L the reference writes 1 + ½ + … + ½^(L−1) length
tokens on average (just under 2)."""

MAX_LENGTH = 16
"""The most length tokens an answer may have (``LabConfig.length``)."""

JUDGES = ("samples", "noise")
"""How the judge scores a leaf: one of its sampled scores, uniformly; or its mean plus Gaussian noise."""

MAX_TOKENS_PER_ANSWER = 2  # decision 0, then decision 1 inside the best branch

MAX_TOKEN_UPDATES = 1_000_000
"""The largest run the app asks for, in ``LabConfig.token_updates`` (steps × epochs × G × longest answer × seeds):
about a quarter of a second of one core per algorithm, so a rerun of three stays under a second on a small
server shared by a class. rlcore itself trains any size LabConfig accepts."""

LIGHT_TOKEN_UPDATES = MAX_TOKEN_UPDATES // 10
"""A panel of runs at most this size in all (``lab_is_light``) is short: a tenth of one run of the largest size."""


# ---------------------------------------------------------------- the environment


@dataclass(frozen=True)
class LabTree:
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
    right: np.ndarray                     # shape [K] bool: the first tokens whose Q is the best (ties included)

    @property
    def likeliest_wrong(self) -> int | None:
        """The wrong first token (not ``right``) π_ref writes most; None when every first token is right."""
        wrong = np.flatnonzero(~self.right)
        return int(wrong[np.argmax(self.ref_first[wrong])]) if wrong.size else None


def lab_tree(scenario: Scenario, flattery: bool = True) -> LabTree:
    """The lab's environment: the scenario's first-token choice, and a plain/flattering choice in its best branch.

    Leaf k < K is "first token k" (for the best token b: b, then the plain continuation); with flattery on,
    leaf K is "b, then flattery", whose scores are b's samples shifted by the article's gap
    (FLATTERY.scores[1] − FLATTERY.scores[0] = +0.6), so the article's 9 becomes 9.6.
    π_ref(leaf) = π_ref(first token) · π_ref(continuation | b).

    >>> from rlcore.example import ARTICLE_SCENARIO
    >>> tree = lab_tree(ARTICLE_SCENARIO)
    >>> tree.leaf_names[tree.best], tree.leaf_means.tolist()
    ('partly', [2.0, 5.0, 9.0, 9.6])
    >>> tree.tokens[tree.likeliest_wrong]  # open (0.5) and closed (0.3) are wrong: π_ref writes open more
    'open'
    """
    if not isinstance(scenario, Scenario):
        raise ValueError(f"scenario must be an rlcore.Scenario, got {type(scenario).__name__}")
    if not isinstance(flattery, (bool, np.bool_)):
        raise ValueError(f"flattery must be True or False, got {flattery!r}")
    best = int(np.argmax(scenario.q))
    samples = [np.asarray(s, dtype=np.float64) for s in scenario.samples]
    names = list(scenario.tokens)
    leaf_ref = scenario.pi.copy()
    if flattery:
        samples.append(samples[best] + (FLATTERY.scores[1] - FLATTERY.scores[0]))
        names.append(f"{scenario.tokens[best]} + flattery")
        leaf_ref = np.append(leaf_ref, scenario.pi[best] * FLATTERY.p_ref[1])
        leaf_ref[best] = scenario.pi[best] * FLATTERY.p_ref[0]
    means = np.array([s.mean() for s in samples])
    return LabTree(tokens=scenario.tokens, ref_first=scenario.pi, best=best, flattery=bool(flattery),
                   branch=FLATTERY.continuations, ref_branch=FLATTERY.p_ref, leaf_names=tuple(names),
                   leaf_samples=tuple(samples), leaf_means=means, leaf_ref_probs=leaf_ref,
                   right=means[:len(scenario.q)] >= means[best])


# ---------------------------------------------------------------- the run's settings


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
        loss_agg: how token losses add up (a key of LOSS_AGGREGATIONS); None: the algorithm's own
            (``Algorithm.loss_agg``).
        length: L, the most length tokens after an answer's content (0 to MAX_LENGTH); 0: no length tokens,
            every answer is its content alone (one or two tokens).
        eps_high: the upper clip distance ε_high in (0, 1) of DAPO and CISPO (their ratio or weight is
            clipped to [1 − ε, 1 + ε_high]); the other algorithms clip at 1 + ε.
        resample: DAPO's dynamic sampling, 1 to 16: it writes up to this many groups per step and trains on
            the first whose scores are not all equal (the first one when none is).
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
    length: int = 0
    eps_high: float = 0.28
    resample: int = 4

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
            "length": count("length", self.length, low=0, high=MAX_LENGTH),
            "eps_high": in_range("eps_high", self.eps_high, 0.0, 1.0),
            "resample": count("resample", self.resample, low=1, high=16),
        }
        for name in ("eps", "eps_high"):
            if clean[name] in (0.0, 1.0):
                raise ValueError(f"{name} must lie strictly between 0 and 1, got {clean[name]!r}")
        if clean["baseline_rate"] == 0.0:
            raise ValueError("baseline_rate must be > 0, got 0.0")
        if clean["lr"] > 100:
            raise ValueError(f"lr must be <= 100, got {clean['lr']!r}")
        for name, value in clean.items():
            object.__setattr__(self, name, value)

    def token_updates(self, n_seeds: int = 1) -> int:
        """The size of a run: steps × epochs × G × (2 + length) × seeds, an upper bound on the token
        log-probabilities it updates (what its cost grows with).

        >>> LabConfig(steps=100, epochs=4, group_size=8).token_updates(5)
        32000
        """
        return self.steps * self.epochs * self.group_size * (MAX_TOKENS_PER_ANSWER + self.length) * count(
            "n_seeds", n_seeds, low=1)

    def canonical(self) -> LabConfig:
        """The same run, with every field the algorithm does not read set to its default (``epochs`` to 1 for
        REINFORCE, which takes one step per group; ``loss_agg`` to None when it names the algorithm's own).

        Two configs with the same canonical form train exactly alike, so a cache keyed by it shares their runs:
        a learner who moves λ retrains PPO alone. Fields dropped: λ and critic_lr but for PPO; γ but for PPO and
        REINFORCE; baseline_rate but for REINFORCE + running mean; epochs and ε for REINFORCE (and ε for GSPO,
        which clips at ``GSPO_EPS``); ε_high but for DAPO and CISPO; resample but for DAPO; noise but for the
        noise judge.

        >>> LabConfig(algorithm="grpo", lam=0.5, eps_high=0.4).canonical() == LabConfig(algorithm="grpo")
        True
        """
        a = ALGORITHM_TABLE[self.algorithm]
        critic = a.advantages is _critic_advantages
        reads = {"lam": critic, "critic_lr": critic, "gamma": a.advantages is not _group_baseline_advantages,
                 "baseline_rate": a.baseline == "running mean", "eps": a.clipped and a.weight != "gspo",
                 "eps_high": a.clip_higher, "resample": a.dynamic_sampling, "noise": self.judge == "noise"}
        dropped = {f.name: f.default for f in fields(self) if not reads.get(f.name, True)}
        if not a.clipped:
            dropped["epochs"] = 1
        if self.loss_agg == a.loss_agg:
            dropped["loss_agg"] = None
        return replace(self, **dropped)

    @property
    def clipped(self) -> bool:
        """Whether the algorithm optimises the clipped ratio over several epochs."""
        return ALGORITHM_TABLE[self.algorithm].clipped


# ---------------------------------------------------------------- the loop


@dataclass(frozen=True)
class LabHistory:
    """A training run, one row per seed (leading axis S); T steps, G answers per step.

    T is ``config.steps``, or the steps before ``diverged_at`` when the run diverged.

    Token axis (size P = 2 + ``config.length``): position 0 is the first token (decision 0), position 1 the
    continuation picked at decision 1, positions 2… the length tokens; answers outside the best branch (or
    with flattery off) have no position 1, and a missing token holds action −1 and zeros. Length tokens
    hold 0 (continue) or 1 (stop).

    "Right" (``p_correct``): an answer whose first token has the best Q (ties included); its continuation
    (flattery) and its length do not change that, since they do not change the answer's content.
    """

    probs_first: np.ndarray     # [S, T+1, K]: π at decision 0 before each step and after the last
    probs_branch: np.ndarray    # [S, T+1, 2]: π(plain), π(flattery) at decision 1 ((1, 0) with flattery off)
    expected_score: np.ndarray  # [S, T+1]: the policy's exact mean judge score, Σ_leaf π(leaf)·Q(leaf)
    kl: np.ndarray              # [S, T+1]: exact KL(π‖π_ref) over whole answers (length tokens included), in nats
    mean_score: np.ndarray      # [S, T]: mean judge score of each step's group
    clip_fraction: np.ndarray   # [S, T]: share of the group's tokens clipped, averaged over epochs
    loss: np.ndarray            # [S, T]: the policy loss at the first epoch (ratio 1)
    grad_norm: np.ndarray       # [S, T]: norm of the gradient of that loss with respect to all logits
    values: np.ndarray          # [S, T+1, 2]: PPO's critic V(decision 0), V(decision 1); NaN otherwise
    dead: np.ndarray            # [S, T] bool: every answer of the group trained on got the same score
    scores: np.ndarray          # [S, T, G]: the judge's score of each answer
    actions: np.ndarray         # [S, T, G, P] int: the token picked at each position (−1: none)
    rewards: np.ndarray         # [S, T, G, P]: per-token rewards (score on the last token, −β·k1 for PPO
                                #               and REINFORCE)
    advantages: np.ndarray      # [S, T, G, P]: the advantage each token was trained with (0 at padding)
    entropy: np.ndarray         # [S, T+1]: entropy of π at decision 0, in nats (``rlcore.entropy``)
    p_correct: np.ndarray       # [S, T+1]: exact chance that one answer is right (pass@1; see above)
    mean_length: np.ndarray     # [S, T+1]: exact mean number of tokens per answer, Σ_k π₀(k)·token_length(k)
    token_length: np.ndarray    # [S, T+1, K]: exact mean number of tokens of an answer that starts with token k
    groups_drawn: np.ndarray    # [S, T] int: groups written per step (1; DAPO: until one is not dead)
    diverged_at: int | None = None  # the step (1-based) whose update overflowed; the arrays then stop before it


def train(scenario: Scenario, config: LabConfig, seeds=(0,), betas=None) -> LabHistory:
    """Run one algorithm on the lab's tree for ``config.steps`` steps, for several seeds at once.

    Each step, for every seed: sample G answers from π_old = the current policy (first token a₀ ~ π₀;
    inside the best branch a₁ ~ π₁; then, with ``length`` L > 0, stop/continue tokens from the length
    table of a₀ until a stop or L of them); the judge scores each leaf (``config.judge``), whatever the
    length; then:

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

    DAPO (Yu et al. 2025): GRPO's Â and KL term, clip(ρ, 1−ε, 1+ε_high) (clip-higher), Loss = −(1/Σᵢ|oᵢ|)
    Σᵢₜ Lᵢₜ (token-mean), and dynamic sampling: up to ``resample`` groups per step, the first whose scores
    are not all equal is trained on. GSPO (Zheng et al. 2025): one ratio per answer sᵢ = (Πₜ ρᵢₜ)^(1/|oᵢ|),
    Lᵢ = min(sᵢÂᵢ, clip(sᵢ, 1 − 3·10⁻⁴, 1 + 4·10⁻⁴)Âᵢ), Loss = −(1/G) Σᵢ Lᵢ − β·k3 as in GRPO. CISPO
    (MiniMax 2025): Loss = −(1/Σᵢ|oᵢ|) Σᵢₜ sg(clip(ρ, 1−ε, 1+ε_high))·Âᵢ·log π(aᵢₜ) (+ β·k3): the weight is
    clipped, no token loses its gradient. The lab keeps β's KL term for all three so that β means the same
    for every algorithm (the DAPO paper drops it: set β = 0 to match).

    PPO (Schulman et al. 2017; KL in the reward as in Ouyang et al. 2022): rₜ = −β·k1ₜ, plus the score
    on the last token; a tabular critic V(decision point); Â = gae(r, V, γ, λ) per answer; for E epochs
    Loss = −mean over all tokens of min(ρÂ, clip(ρ, 1−ε, 1+ε)Â), and each visited V(d) moves by
    critic_lr·(mean target − V(d)) towards the λ-returns Â + V (the gradient of ½(V − target)²).

    Every step is plain gradient descent z ← z − η·∂Loss/∂z on the logits of each decision point; for
    a token a at a decision with policy π, ∂log π(a)/∂z = e_a − π. The loss and gradient norm kept in
    the history are those of the first epoch, where ρ = 1 (what a trainer logs first).

    A step size too large for the KL term (β·π_ref/π explodes on a rare token) overflows a logit; the run
    then stops at that step: the history holds the steps before it (finite) and ``diverged_at`` is the step
    (1-based) that overflowed. All seeds stop together.

    Args:
        scenario: the running example.
        config: a LabConfig (algorithm, steps, group size, η, epochs, ε, β, λ, length, ...).
        seeds: one integer seed per run (1 to 64 of them); the runs share nothing, so a seed's history does
            not depend on the other seeds.
        betas: None, or one KL coefficient per run (each 0 to 100, as ``config.beta``) that replaces
            ``config.beta`` for that run: several β trained in one vectorised run. Runs with the same seed draw
            the same random numbers, so each run is the one ``config`` with its β would give.

    Returns:
        LabHistory with a leading seed axis (see its fields).
    """
    if not isinstance(config, LabConfig):
        raise ValueError(f"config must be an rlcore.LabConfig, got {type(config).__name__}")
    tree = lab_tree(scenario, config.flattery)
    seeds = [count("seeds", s, low=0) for s in np.atleast_1d(np.asarray(seeds, dtype=object))]
    if not 1 <= len(seeds) <= 64:
        raise ValueError(f"seeds must hold 1 to 64 seeds, got {len(seeds)}")
    c, algo, k = config, ALGORITHM_TABLE[config.algorithm], len(tree.tokens)
    kl = np.full(len(seeds), c.beta) if betas is None else np.array(
        [in_range("betas", b, 0.0, 100.0) for b in as_vector("betas", betas)])
    same_length("seeds", seeds, "betas", kl)
    kl = kl[:, None, None]  # each run's β, against its [G, P] tokens
    loss_agg = c.loss_agg or algo.loss_agg
    max_len = 1 + tree.flattery + c.length  # the longest possible answer (Dr. GRPO's L_max)
    table = ScoreTable.of(tree.leaf_samples)  # the judge's scores of every leaf
    ref_logits = (logits_from_probs(tree.ref_first), logits_from_probs(tree.ref_branch))
    if c.length:
        ref_logits += (np.tile(logits_from_probs([LENGTH_REF_CONTINUE, 1 - LENGTH_REF_CONTINUE]), (k, 1)),)
    z = tuple(np.tile(x, (len(seeds),) + (1,) * x.ndim) for x in ref_logits)  # the policy starts at π_ref
    # normalised like the policy's logits, so that at step 0, where the policy is the reference, log π − log π_ref
    # is exactly 0 (not 10⁻¹⁶, which a chart of the first step prints as an axis of 1e-16)
    logref = _log_policy(ref_logits)
    state = LabState(baseline=np.zeros(len(seeds)), critic=np.zeros((len(seeds), 2 + (k if c.length else 0))))
    log = _Log(c, len(seeds), k, critic=algo.advantages is _critic_advantages)
    with np.errstate(over="raise", invalid="raise", divide="raise"):  # an overflow ends the run, see above
        logps = _log_policy(z)
        log.policy(0, logps, state)
        for t, draws in enumerate(_random_numbers(c, seeds, c.resample if algo.dynamic_sampling else 1)):
            try:
                group, drawn = _sample_group(tree, c, logps, logref, table, draws)  # 1. sample and score
                rewards, adv, state = algo.advantages(group, state, c, algo, kl)    # 2. advantages
                weights = token_weights(group.mask, loss_agg, max_len)
                z, loss, grad_norm, clip = _policy_update(z, logps, group, adv, weights, c, algo, kl)  # 3. update
                logps = _log_policy(z)
            except FloatingPointError:  # a logit overflowed: the history ends before this step
                return log.history(tree, logref, t, diverged_at=t + 1)
            log.step(t, group, rewards=rewards, advantages=adv, loss=loss, grad_norm=grad_norm, clip_fraction=clip,
                     groups_drawn=drawn)
            log.policy(t + 1, logps, state)
        return log.history(tree, logref, c.steps, diverged_at=None)


def _log_policy(z: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    """log π of every logit table (decision 0 [S, K], decision 1 [S, 2], the length tables [S, K, 2])."""
    return tuple(log_softmax(x) for x in z)


def _random_numbers(c: LabConfig, seeds: list[int], n: int):
    """Each step's random numbers for n candidate groups per seed (n = 1 but for DAPO's dynamic sampling):
    uniforms [S, n, 3, G] (first token, continuation, which sample), for the noise judge standard normals
    [S, n, G], with length tokens uniforms [S, n, G, L]; None where a run needs none.

    Drawn up front per seed, in the order the lab has always drawn them (the first group's numbers for every
    step, then the extra candidates'), so that a seed gives the same run as ever and a run without length
    tokens or resampling draws what it always did.
    """
    def block(rng, m):  # m groups' numbers for every step
        return (rng.random((c.steps, m, 3, c.group_size)),
                rng.standard_normal((c.steps, m, c.group_size)) if c.judge == "noise" else None,
                rng.random((c.steps, m, c.group_size, c.length)) if c.length else None)

    per_seed = []
    for rng in (np.random.default_rng(s) for s in seeds):
        first = block(rng, 1)
        extra = block(rng, n - 1) if n > 1 else (None, None, None)
        per_seed.append([a if b is None else np.concatenate([a, b], axis=1) for a, b in zip(first, extra, strict=True)])
    arrays = [None if a[0] is None else np.stack(a) for a in zip(*per_seed, strict=True)]   # [S, T, n, ...]
    for t in range(c.steps):
        yield tuple(None if a is None else a[:, t] for a in arrays)


# ---------------------------------------------------------------- 1. sample and score


@dataclass(frozen=True)
class Group:
    """One step's sampled group: G answers per seed, as the advantage functions and the update see them.

    Token axis (size P) as in LabHistory: position 0 is the first token, position 1 the continuation, which
    only answers inside the best branch have, positions 2… the length tokens (``mask``: the real ones); a
    padded position holds 0.
    """

    first: np.ndarray          # [S, G] int: first token a₀ ~ π(decision 0)
    second: np.ndarray         # [S, G] int: continuation a₁ ~ π(decision 1) inside the best branch, else −1
    mask: np.ndarray           # [S, G, P] bool: real tokens
    n_tokens: np.ndarray       # [S, G] int: tokens per answer
    scores: np.ndarray         # [S, G]: the judge's score of each answer
    length_actions: np.ndarray | None = None  # [S, G, L] int: 0 continue, 1 stop, −1 none (None: no length)
    onehot_first: np.ndarray | None = None    # [S, G, K]: e_{a₀}
    onehot_second: np.ndarray | None = None   # [S, G, 2]: e_{a₁}, a zero row for answers without a continuation
    onehot_length: np.ndarray | None = None   # [S, G, L, 2]: e of each length token, zero rows at padding
    logp_old: np.ndarray | None = None        # [S, G, P]: log π_old of each token (the policy that wrote it)
    logp_ref: np.ndarray | None = None        # [S, G, P]: log π_ref of each token
    k1: np.ndarray | None = None              # [S, G, P]: log π_old − log π_ref (``kl_estimators``)
    k3: np.ndarray | None = None              # [S, G, P]: π_ref/π_old − 1 − log(π_ref/π_old)


def _sample_group(tree: LabTree, c: LabConfig, logps: tuple[np.ndarray, ...], logref: tuple[np.ndarray, ...],
                 table: ScoreTable, draws: tuple) -> tuple[Group, np.ndarray]:
    """Write the n candidate groups per seed of ``draws`` with the current policy, score them, and keep the
    first whose scores are not all equal (``informative_groups``; the first when none is): DAPO's dynamic
    sampling, the same as drawing groups one after another until one is informative. With n = 1, the group.

    Returns:
        (the group trained on, groups_drawn [S]: the candidates written until the kept one, n when none was).
    """
    n_seeds, n = draws[0].shape[:2]
    policy = logps if n == 1 else tuple(np.repeat(lp, n, axis=0) for lp in logps)   # one row per candidate
    group = _write(tree, c, policy, table, *(None if a is None else a.reshape(n_seeds * n, *a.shape[2:])
                                             for a in draws))
    drawn = np.ones(n_seeds, dtype=np.int64)
    if n > 1:
        informative = informative_groups(group.scores).reshape(n_seeds, n)
        pick = np.argmax(informative, axis=1)                       # the first informative one (0 when none is)
        chosen = np.arange(n_seeds) * n + pick
        group = Group(**{f.name: None if (v := getattr(group, f.name)) is None else v[chosen] for f in fields(Group)})
        drawn = np.where(informative.any(axis=1), pick + 1, n)
    length, real = group.length_actions, group.mask[..., None]
    logp_old, logp_ref = _token_logp(logps, group), _token_logp(logref, group)
    kl = kl_estimators(logp_old, logp_ref)
    return replace(group,
        onehot_first=np.eye(len(tree.tokens))[group.first],
        onehot_second=np.eye(2)[np.maximum(group.second, 0)] * real[:, :, 1],
        onehot_length=None if length is None else np.eye(2)[np.maximum(length, 0)] * real[:, :, 2:],
        logp_old=logp_old, logp_ref=logp_ref, k1=kl.k1, k3=kl.k3), drawn


def _write(tree: LabTree, c: LabConfig, logps: tuple[np.ndarray, ...], table: ScoreTable, u: np.ndarray,
           normal: np.ndarray | None, u_len: np.ndarray | None) -> Group:
    """G answers per row of ``logps`` (one policy per row), scored, without their one-hots and log-probabilities
    yet: u [R, 3, G] uniforms, normal [R, G] for the noise judge, u_len [R, G, L] for the length tokens."""
    k = len(tree.tokens)
    first = sample_tokens(np.exp(logps[0]), u[:, 0])                               # [R, G]
    branch = (first == tree.best) & tree.flattery                                 # reaches decision 1
    second = np.where(branch, sample_tokens(np.exp(logps[1]), u[:, 1]), -1)       # [R, G]
    leaf = np.where(second == 1, k, first)
    scores = table.draw(leaf, u[:, 2]) if c.judge == "samples" else tree.leaf_means[leaf] + c.noise * normal
    mask = np.ones((*first.shape, 2 + c.length), dtype=bool)   # position 0 always; 1 in the branch; the length tokens
    mask[..., 1] = branch
    length_actions = None
    if u_len is not None:  # stop/continue after the content; a token exists while every one before it continued
        rows = np.arange(first.shape[0])[:, None]
        drawn = sample_tokens(np.exp(logps[2])[rows, first], u_len)               # [R, G, L]: 0 continue, 1 stop
        real = np.concatenate([np.ones_like(drawn[..., :1], dtype=bool),
                               np.logical_and.accumulate(drawn[..., :-1] == 0, axis=-1)], axis=-1)
        length_actions = np.where(real, drawn, -1)
        mask[..., 2:] = real
    return Group(first=first, second=second, mask=mask, n_tokens=mask.sum(axis=-1), scores=scores,
                 length_actions=length_actions)


def _token_logp(logps: tuple[np.ndarray, ...], group: Group) -> np.ndarray:
    """log π of every token of the group: [S, G, P], 0 at padding.

    logps holds the tables (decision 0 [S, K], decision 1 [S, 2], length decisions [S, K, 2] when the group
    has length tokens), one policy per seed; without the seed axis, one policy for every seed (π_ref).
    """
    logp0, logp1 = logps[0], logps[1]
    second = np.maximum(group.second, 0)
    if logp0.ndim == 2:
        rows = np.arange(logp0.shape[0])[:, None]
        lp_first, lp_second = logp0[rows, group.first], logp1[rows, second]
    else:
        lp_first, lp_second = logp0[group.first], logp1[second]
    out = np.empty(group.mask.shape)
    out[..., 0], out[..., 1] = lp_first, np.where(group.mask[..., 1], lp_second, 0.0)
    if group.length_actions is not None:
        table = logps[2][rows, group.first] if logp0.ndim == 2 else logps[2][group.first]    # [S, G, 2]
        lp_len = np.where(group.length_actions == 1, table[..., 1:], table[..., :1])           # stop, else continue
        out[..., 2:] = np.where(group.mask[..., 2:], lp_len, 0.0)
    return out


# ---------------------------------------------------------------- 2. advantages
# Each takes the group, the carried state, the config and the algorithm's row, and returns (per-token rewards,
# per-token advantages, new state), all [S, G, P] with 0 at padding.


@dataclass(frozen=True)
class LabState:
    """What an algorithm carries from one step to the next besides the policy."""

    baseline: np.ndarray  # [S]: REINFORCE's running mean of the groups' mean scores
    critic: np.ndarray    # [S, 2] (+K with length tokens): PPO's tabular V(decision 0), V(decision 1), then
                          #   V(length decision after first token k)


def _on_last(mask: np.ndarray) -> np.ndarray:
    """[S, G, P] bool: each answer's last real token (its length tokens, when it has them, come last)."""
    last = mask.shape[-1] - 1 - np.argmax(mask[..., ::-1], axis=-1)
    return np.arange(mask.shape[-1]) == last[..., None]


def _gae(rewards: np.ndarray, values: np.ndarray, gamma: float, lam: float, mask: np.ndarray) -> np.ndarray:
    """``gae`` for answers whose real tokens need not be a prefix of the row: with length tokens, an
    answer outside the best branch has a gap at position 1. The real tokens are moved to the front (stable
    order), GAE runs there, and the advantages go back to their positions."""
    if mask.shape[-1] == 2:  # only position 1 can be padding, and nothing follows it: already a prefix
        return gae(rewards, values, gamma, lam, mask)
    order = np.argsort(~mask, axis=-1, kind="stable")

    def front(a):
        return np.take_along_axis(a, order, axis=-1)

    packed = gae(front(rewards), np.concatenate([front(values[..., :-1]), values[..., -1:]], axis=-1),
                       gamma, lam, front(mask))
    out = np.empty_like(packed)
    np.put_along_axis(out, order, packed, axis=-1)
    return out


def _outcome_rewards(group: Group, kl_coef: np.ndarray) -> np.ndarray:
    """rₜ = −β·k1ₜ on every token, plus the score on the last one (k1ₜ = log π_old(aₜ) − log π_ref(aₜ))."""
    return np.where(_on_last(group.mask), group.scores[..., None], 0.0) - kl_coef * group.k1 * group.mask


def _reinforce_advantages(group: Group, state: LabState, c: LabConfig, algo: Algorithm, kl: np.ndarray):
    """REINFORCE: Âₜ = Gₜ − b, Gₜ = Σ_{t'≥t} γ^{t'−t} r_{t'}; b = 0, or with ``algo.baseline`` "running mean" the
    running mean of the groups' mean scores (b₁ = 0, b_{n+1} = b_n + α(mean sₙ − b_n))."""
    rewards = _outcome_rewards(group, kl)
    zeros = np.zeros((*group.mask.shape[:-1], group.mask.shape[-1] + 1))
    returns = _gae(rewards, zeros, c.gamma, 1.0, group.mask)  # λ = 1, V = 0
    base = state.baseline if algo.baseline == "running mean" else np.zeros_like(state.baseline)
    adv = np.where(group.mask, returns - base[:, None, None], 0.0)
    baseline = state.baseline + c.baseline_rate * (group.scores.mean(axis=1) - state.baseline)
    return rewards, adv, replace(state, baseline=baseline)


def _group_baseline_advantages(group: Group, state: LabState, c: LabConfig, algo: Algorithm, kl: np.ndarray):
    """GRPO, Dr. GRPO, RLOO (and DAPO, GSPO, CISPO with GRPO's formula): every token of answer i gets
    group_advantages(scores, algo.baseline)ᵢ; KL is in the loss."""
    rewards = np.where(_on_last(group.mask), group.scores[..., None], 0.0)
    per_answer = group_advantages(group.scores, algo.baseline)   # [S, G]: one group per row
    return rewards, np.where(group.mask, per_answer[..., None], 0.0), state


def _decisions(group: Group) -> np.ndarray:
    """[S, G, P] int: the decision point of each position (0, 1, then 2 + k for the length table of token k)."""
    fixed = np.broadcast_to(np.arange(2), group.mask[..., :2].shape)
    if group.length_actions is None:
        return fixed
    return np.concatenate([fixed, np.broadcast_to((2 + group.first)[..., None], group.length_actions.shape)], -1)


def _critic_advantages(group: Group, state: LabState, c: LabConfig, algo: Algorithm, kl: np.ndarray):
    """PPO: Â = gae(r, V, γ, λ) per answer with the critic's V; then the critic takes ``epochs`` steps
    V(d) ← V(d) + critic_lr·(mean λ-return Â + V at d − V(d)) on each decision point d the group visited
    (with length tokens, one V per length table, shared by all of its positions)."""
    rewards = _outcome_rewards(group, kl)
    if group.length_actions is None:
        v_pad = np.concatenate([state.critic[:, None, :] * group.mask, np.zeros((*group.mask.shape[:-1], 1))],
                               axis=-1)
        adv = _gae(rewards, v_pad, c.gamma, c.lam, group.mask)
        visits = group.mask.sum(axis=1)                                                       # [S, 2]
        target_sum = ((adv + v_pad[..., :2]) * group.mask).sum(axis=1)
    else:
        rows = np.arange(state.critic.shape[0])[:, None, None]
        decisions = _decisions(group)
        v = state.critic[rows, decisions] * group.mask
        adv = _gae(rewards, np.concatenate([v, np.zeros((*v.shape[:-1], 1))], axis=-1), c.gamma, c.lam, group.mask)
        onehot = np.eye(state.critic.shape[1])[decisions] * group.mask[..., None]         # [S, G, P, D]
        visits = onehot.sum(axis=(1, 2))
        target_sum = (onehot * (adv + v)[..., None]).sum(axis=(1, 2))
    critic = state.critic
    for _ in range(c.epochs):
        mean_target = np.divide(target_sum, visits, out=critic.copy(), where=visits > 0)
        critic = critic + c.critic_lr * (mean_target - critic)
    return rewards, adv, replace(state, critic=critic)


# ---------------------------------------------------------------- what sets each algorithm apart


@dataclass(frozen=True)
class Algorithm:
    """One algorithm's row: everything that sets it apart (sampling, scoring and the update are shared)."""

    name: str                  # what a learner reads
    advantages: Callable       # (group, state, config, algorithm) → (rewards, advantages, state), section 2
    baseline: str = ""         # REINFORCE: "running mean" or ""; the group algorithms: their group_advantages method
    loss_agg: str = "seq-mean-token-mean"  # how token losses add up (LOSS_AGGREGATIONS), unless the config says
    clipped: bool = True       # E epochs of the clipped ratio (else one plain policy-gradient step)
    kl_in_loss: bool = True    # β·k3 in the loss (else −β·k1 in the reward, through ``advantages``)
    weight: str = "ppo"        # the gradient weight: "ppo" (token ratio, 0 past the clip), "gspo" (one ratio per
                               #   answer, 0 past GSPO_EPS), "cispo" (the clipped ratio as a weight, gradient kept)
    clip_higher: bool = False       # the upper clip is 1 + eps_high (DAPO's clip-higher) instead of 1 + eps
    dynamic_sampling: bool = False  # draw up to ``resample`` groups per step, train on the first informative one


_REINFORCE = {"advantages": _reinforce_advantages, "loss_agg": "seq-mean-token-sum", "clipped": False,
              "kl_in_loss": False}
ALGORITHM_TABLE = {
    "reinforce": Algorithm(name="REINFORCE", **_REINFORCE),
    "reinforce_mean": Algorithm(name="REINFORCE + running mean", baseline="running mean", **_REINFORCE),
    "grpo": Algorithm(name="GRPO", advantages=_group_baseline_advantages, baseline="grpo"),
    "dr_grpo": Algorithm(name="Dr. GRPO", advantages=_group_baseline_advantages, baseline="dr_grpo"),
    "rloo": Algorithm(name="RLOO", advantages=_group_baseline_advantages, baseline="rloo"),
    "ppo": Algorithm(name="PPO", advantages=_critic_advantages, loss_agg="token-mean", kl_in_loss=False),
    "dapo": Algorithm(name="DAPO", advantages=_group_baseline_advantages, baseline="grpo", loss_agg="token-mean",
                      clip_higher=True, dynamic_sampling=True),
    "gspo": Algorithm(name="GSPO", advantages=_group_baseline_advantages, baseline="grpo", weight="gspo"),
    "cispo": Algorithm(name="CISPO", advantages=_group_baseline_advantages, baseline="grpo", loss_agg="token-mean",
                       weight="cispo", clip_higher=True),
}
"""Every algorithm the lab runs, by its key: REINFORCE without and with a running-mean baseline, the three group
baselines of ``group_advantages`` (GRPO, Dr. GRPO, RLOO), PPO with a learned critic (KL in the reward, as in
Ouyang et al. 2022), and three after PPO with GRPO's advantages: DAPO (Yu et al. 2025: clip-higher, token-mean,
dynamic sampling), GSPO (Zheng et al. 2025: one length-normalised ratio per answer, clipped per answer) and CISPO
(MiniMax 2025: the ratio clipped as a stopped weight, so every token keeps a gradient)."""

ALGORITHMS = tuple(ALGORITHM_TABLE)
"""The keys of ALGORITHM_TABLE, in the order the app lists them."""

ALGORITHM_NAMES = {key: a.name for key, a in ALGORITHM_TABLE.items()}
"""The name a learner reads for each algorithm."""


# ---------------------------------------------------------------- 3. loss and update


def _clipped_terms(lp: np.ndarray, group: Group, adv: np.ndarray, algo: Algorithm, low: float, high: float,
                   objective: bool):
    """A clipped algorithm's ∂Lₜ/∂log π(aₜ) for each token, which tokens count as clipped, and (when
    ``objective``) Lₜ itself.

    ppo:   ρ = π/π_old per token; ∂ = ρÂ, or 0 where min(ρÂ, clip(ρ, 1−ε_low, 1+ε_high)Â) takes the clipped term;
           L = that min.
    gspo:  the same with one ratio per answer, sᵢ = exp(Σₜ(log π − log π_old)/|oᵢ|) (``sequence_ratio``), on every
           token of answer i; with the per-answer weight 1/(G|oᵢ|) this is ∂Jᵢ/∂log π(aₜ) = sᵢÂᵢ/|oᵢ|, GSPO's.
    cispo: ∂ = sg(clip(ρ, 1−ε_low, 1+ε_high))·Â, never 0 (``gradient_weights``); L = sg(clip(ρ))·Â·log π, the
           loss CISPO minimises; "clipped" means the weight was.
    A padded token has ρ = 1 and Â = 0, so it is never clipped and adds nothing.
    """
    if algo.weight == "cispo":
        ratio = np.exp(lp - group.logp_old)
        coeff = gradient_weights(ratio, adv, "cispo", low, high)
        return coeff, (ratio < 1.0 - low) | (ratio > 1.0 + high), coeff * lp if objective else None
    if algo.weight == "gspo":
        ratio, adv = sequence_ratio(lp, group.logp_old, group.mask)[..., None], adv[..., :1]
    else:
        ratio = np.exp(lp - group.logp_old)
    clipped = is_clipped(ratio, adv, low, high)
    coeff = np.where(clipped, 0.0, adv * ratio)
    value = clipped_objective(ratio, adv, low, high) if objective else None
    if algo.weight == "gspo":  # answer-level terms on each real token
        clipped, coeff = clipped & group.mask, np.where(group.mask, coeff, 0.0)
        value = value if value is None else np.where(group.mask, value, 0.0)
    return coeff, clipped, value


def _logit_gradients(w: np.ndarray, group: Group, logps: tuple[np.ndarray, ...]) -> list[np.ndarray]:
    """∂/∂z of −Σₜ wₜ log π(aₜ) for each logit table: −Σₜ wₜ(e_{aₜ} − π) over the tokens written at it."""
    grads = [-((w[:, None, :, 0] @ group.onehot_first)[:, 0] - w[..., 0].sum(axis=1)[:, None] * np.exp(logps[0])),
             -((w[:, None, :, 1] @ group.onehot_second)[:, 0] - w[..., 1].sum(axis=1)[:, None] * np.exp(logps[1]))]
    if len(logps) == 3:  # length tables: answer i's length tokens all sit in the table of its first token
        w_len = w[..., 2:]                                                  # [S, G, L]
        per_answer = (w_len[..., None] * group.onehot_length).sum(axis=2)   # [S, G, 2]: Σₜ wₜ e_{aₜ}
        by_token = group.onehot_first.transpose(0, 2, 1)                    # [S, K, G]
        grads.append(-(by_token @ per_answer - (by_token @ w_len.sum(axis=-1)[..., None]) * np.exp(logps[2])))
    return grads


def _policy_update(z: tuple[np.ndarray, ...], logps: tuple[np.ndarray, ...], group: Group, adv: np.ndarray,
                  weight: np.ndarray, c: LabConfig, algo: Algorithm, kl: np.ndarray):
    """Epochs of gradient descent z ← z − η·∂Loss/∂z on the logits, Loss = −Σ weight·Lₜ.

    z and logps: the logit tables and their log-softmax (π_old). Clipped algorithms: Lₜ and ∂Lₜ/∂log π(aₜ) from
    ``_clipped_terms`` (PPO's min(ρÂ, clip(ρ, 1−ε, 1+ε)Â), with ε_high above for DAPO and CISPO), − β·k3ₜ when
    the KL is in the loss, whose ∂ is − β(π_ref/π − 1). REINFORCE: Lₜ = Âₜ log π(aₜ), one epoch.

    Returns:
        (z, loss, grad_norm, clip_fraction): the new logits; the loss and gradient norm at the first epoch,
        where ρ = 1 (what a trainer logs first); the share of tokens clipped, averaged over epochs.
    """
    epochs = c.epochs if algo.clipped else 1
    beta = kl if algo.kl_in_loss and np.any(kl > 0) else None  # each run's β [S, 1, 1]
    low, high = GSPO_EPS if algo.weight == "gspo" else (c.eps, c.eps_high if algo.clip_higher else c.eps)
    n_real = group.mask.sum(axis=(1, 2))
    clipped_sum = np.zeros(z[0].shape[0])
    for epoch in range(epochs):
        tables = logps if epoch == 0 else _log_policy(z)
        lp = group.logp_old if epoch == 0 else _token_logp(tables, group)
        if algo.clipped:
            coeff, clipped, objective = _clipped_terms(lp, group, adv, algo, low, high, epoch == 0)
            if beta is not None:
                coeff = coeff + beta * np.expm1(group.logp_ref - lp)            # −β ∂k3/∂log π
            clipped_sum += clipped.sum(axis=(1, 2)) / n_real
        else:
            coeff, objective = adv, adv * lp
        grads = _logit_gradients(weight * coeff, group, tables)
        if epoch == 0:  # what a trainer logs: the loss at π = π_old (ρ = 1), and its gradient's norm
            loss = -(weight * (objective - beta * group.k3 if beta is not None else objective)).sum(axis=(1, 2))
            grad_norm = np.sqrt(sum((g**2).reshape(len(g), -1).sum(axis=1) for g in grads))
        z = tuple(x - c.lr * g for x, g in zip(z, grads, strict=True))
    return z, loss, grad_norm, clipped_sum / epochs


# ---------------------------------------------------------------- the history


class _Log:
    """The history's arrays, filled as the loop runs: the policy before each step and after the last
    ([S, T+1, ...]), and each step's group, advantages and update ([S, T, ...])."""

    def __init__(self, c: LabConfig, n_seeds: int, k: int, critic: bool):
        s, t, g, p = n_seeds, c.steps, c.group_size, 2 + c.length
        self.n_len, self.critic = c.length, critic
        self.logps = [np.empty((s, t + 1, k)), np.empty((s, t + 1, 2)), np.empty((s, t + 1, k, 2)) if p > 2 else None]
        self.values = np.full((s, t + 1, 2), np.nan)
        self.steps = {"loss": np.empty((s, t)), "grad_norm": np.empty((s, t)), "clip_fraction": np.empty((s, t)),
                      "scores": np.empty((s, t, g)), "actions": np.empty((s, t, g, p), dtype=np.int64),
                      "rewards": np.empty((s, t, g, p)), "advantages": np.empty((s, t, g, p)),
                      "groups_drawn": np.empty((s, t), dtype=np.int64)}

    def policy(self, t: int, logps: tuple[np.ndarray, ...], state: LabState) -> None:
        for kept, table in zip(self.logps, logps, strict=False):  # without length tokens the third stays None
            kept[:, t] = table
        if self.critic:
            self.values[:, t] = state.critic[:, :2]

    def step(self, t: int, group: Group, **arrays) -> None:
        actions = self.steps["actions"][:, t]
        actions[..., 0], actions[..., 1] = group.first, group.second
        if group.length_actions is not None:
            actions[..., 2:] = group.length_actions
        self.steps["scores"][:, t] = group.scores
        for name, a in arrays.items():
            self.steps[name][:, t] = a

    def history(self, tree: LabTree, logref, n: int, diverged_at: int | None) -> LabHistory:
        """The history of the first n steps (the policy before each and after the last)."""
        logp0, logp1, logpl = (None if a is None else a[:, :n + 1] for a in self.logps)
        expected, kl_exact = _exact_stats(tree, logp0, logp1, *logref[:2])
        token_length, kl_length = _length_stats(tree, logp0, logpl, logref[2] if self.n_len else None, self.n_len)
        probs0 = np.exp(logp0)
        steps = {name: a[:, :n] for name, a in self.steps.items()}
        return LabHistory(
            probs_first=probs0,
            probs_branch=np.exp(logp1) if tree.flattery else np.broadcast_to([1.0, 0.0], logp1.shape).copy(),
            expected_score=expected, kl=kl_exact + kl_length, values=self.values[:, :n + 1],
            mean_score=steps["scores"].mean(axis=2), dead=np.ptp(steps["scores"], axis=2) == 0,
            entropy=entropy(probs0), p_correct=np.minimum(probs0[..., tree.right].sum(axis=-1), 1.0),
            mean_length=(probs0 * token_length).sum(axis=-1), token_length=token_length, diverged_at=diverged_at,
            **steps)


def _length_stats(tree: LabTree, logp0: np.ndarray, logpl: np.ndarray | None, logrefl: np.ndarray | None,
                  length: int):
    """Exact mean tokens per answer after each first token [..., K], and the length tokens' KL(π‖π_ref) [...].

    An answer after first token k has 1 token, +1 inside the best branch with flattery on, + E[ℓ | k] length
    tokens, E[ℓ | k] = Σ_{j<L} q_k^j with q_k = π(continue | k) (token j exists when the j before it
    continued). Each length token is one draw from the same table, so their KL is E[ℓ | k]·KL(q_k‖q_ref)
    (Wald's identity), weighted by π₀(k).
    """
    k = logp0.shape[-1]
    content = 1.0 + (np.arange(k) == tree.best) * tree.flattery
    if logpl is None:
        return np.broadcast_to(content, logp0.shape).copy(), 0.0
    pl = np.exp(logpl)
    expected = (pl[..., 0, None] ** np.arange(length)).sum(axis=-1)                # [..., K]
    kl_each = np.maximum((pl * (logpl - logrefl)).sum(axis=-1), 0.0)             # [..., K]
    return content + expected, (np.exp(logp0) * expected * kl_each).sum(axis=-1)


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


def first_step_loss(history: LabHistory) -> tuple[float, float]:
    """The first step's loss and gradient norm, median over seeds: "loss 0, yet it learns".

    Returns:
        (loss, grad_norm) at the first epoch of step 1.
    """
    if not isinstance(history, LabHistory):
        raise ValueError(f"history must be an rlcore.LabHistory, got {type(history).__name__}")
    return float(np.median(history.loss[:, 0])), float(np.median(history.grad_norm[:, 0]))


# ---------------------------------------------------------------- what the lab page shows of a run

DEAD_WINDOW = 10
"""Steps the lab page's share of dead groups is averaged over (``LabBands.dead``)."""


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
    d = finite("dead", dead, ndim=2)
    if not np.isin(d, (0.0, 1.0)).all():
        raise ValueError(f"dead must hold only 0 and 1 (or False and True), got {show(d)}")
    w = count("window", window, low=1)
    per_step = d.mean(axis=0)
    total = np.cumsum(np.concatenate([[0.0], per_step]))
    starts = np.maximum(np.arange(per_step.size) + 1 - w, 0)
    return (total[1:] - total[starts]) / (np.arange(per_step.size) + 1 - starts)


@dataclass(frozen=True)
class LabBands:
    """What the lab page draws of one algorithm's runs: a band over the seeds per curve, small enough for a server
    to keep many (about 40 KB at 100 steps). A run that diverged holds only ``diverged_at``; every other field is
    then None (the page leaves that run out and says so)."""

    score: SeedBands | None = None         # [T+1]: the exact mean judge score (``LabHistory.expected_score``)
    probs: SeedBands | None = None         # [T+1, K]: π at the first token
    flattery: SeedBands | None = None      # [T+1]: π(flattery) inside the best branch
    kl: SeedBands | None = None            # [T+1]: KL(π‖π_ref) over whole answers
    clip: SeedBands | None = None          # [T]: share of tokens clipped
    loss: SeedBands | None = None          # [T]: the loss at the first epoch
    grad: SeedBands | None = None          # [T]: its gradient norm
    first: tuple[float, float] | None = None  # loss and gradient norm at step 1 (``first_step_loss``)
    values: SeedBands | None = None        # [T+1, 2]: PPO's critic; None for every other algorithm
    dead: SeedBands | None = None          # [T]: share of dead groups over the seeds and the last DEAD_WINDOW steps
                                           #      (one share per step: median = low = high)
    dead_total: float | None = None        # share of dead groups over the whole run
    length: SeedBands | None = None        # [T+1]: mean tokens per answer
    token_length: SeedBands | None = None  # [T+1, K]: mean tokens per answer after each first token
    entropy: SeedBands | None = None       # [T+1]: entropy of the first token's policy
    pass1: SeedBands | None = None         # [T+1]: chance that one answer is right
    p_correct: np.ndarray | None = None    # [S, T+1], per seed: pass@k follows from it for any k (``lab_pass_at_k``)
    groups_drawn: float | None = None      # groups written per step, on average (DAPO resamples dead ones)
    diverged_at: int | None = None         # the step (1-based) whose update overflowed, or None


def lab_bands(scenario: Scenario, config: LabConfig, n_seeds: int = 1) -> LabBands:
    """One algorithm trained for seeds 0 … n_seeds − 1 (``train``, every seed in one vectorised call), reduced to
    what the lab page draws: the median, lowest and highest over the seeds of each curve (``seed_bands``).

    Args:
        scenario: the running example.
        config: a LabConfig.
        n_seeds: seeds to train (1 to 64).

    Returns:
        LabBands; a run that diverged has only ``diverged_at`` (the step that overflowed).

    >>> from rlcore.example import ARTICLE_SCENARIO
    >>> b = lab_bands(ARTICLE_SCENARIO, LabConfig(steps=2, group_size=2), 2)
    >>> b.score.median.shape, b.probs.median.shape, b.loss.median.shape, b.values, b.diverged_at
    ((3,), (3, 3), (2,), None, None)
    """
    h = train(scenario, config, tuple(range(count("n_seeds", n_seeds, low=1, high=64))))
    if h.diverged_at is not None:
        return LabBands(diverged_at=h.diverged_at)
    return LabBands(
        score=seed_bands(h.expected_score), probs=seed_bands(h.probs_first),
        flattery=seed_bands(h.probs_branch[..., 1]), kl=seed_bands(h.kl),
        clip=seed_bands(h.clip_fraction), loss=seed_bands(h.loss),
        grad=seed_bands(h.grad_norm), first=first_step_loss(h),
        values=seed_bands(h.values) if config.algorithm == "ppo" else None,
        dead=SeedBands(*[dead_share(h.dead, window=DEAD_WINDOW)] * 3), dead_total=float(h.dead.mean()),
        length=seed_bands(h.mean_length), token_length=seed_bands(h.token_length),
        entropy=seed_bands(h.entropy), pass1=seed_bands(h.p_correct), p_correct=h.p_correct,
        groups_drawn=float(h.groups_drawn.mean()),
    )


def lab_pass_at_k(bands: LabBands, k: int) -> SeedBands:
    """pass@k = 1 − (1 − pass@1)^k of each seed at each step (``pass_at_k``), as a band over the seeds.

    Args:
        bands: the LabBands of a run that did not diverge.
        k: whole number ≥ 1.

    Returns:
        SeedBands of shape [T+1].

    >>> from rlcore.example import ARTICLE_SCENARIO
    >>> b = lab_bands(ARTICLE_SCENARIO, LabConfig(steps=2, group_size=2), 2)
    >>> round(float(lab_pass_at_k(b, 8).median[0]), 12) == round(1 - 0.8 ** 8, 12)   # π(partly) = 0.2 at first
    True
    """
    if not isinstance(bands, LabBands):
        raise ValueError(f"bands must be an rlcore.LabBands, got {type(bands).__name__}")
    return seed_bands(pass_at_k(finite("bands.p_correct", bands.p_correct, ndim=2), k))


# The settings a learner moves besides the algorithm, as LabConfig's fields: (the link's name, lowest, highest,
# step) for those a page offers as sliders (``SETTINGS``), and the curves measured from step 1 (``PER_STEP``).
SETTINGS = {"lr": ("lr", 0.01, 1.0, 0.01), "group_size": ("G", 2, 32, 1), "seeds": ("seeds", 1, 10, 1),
            "epochs": ("epochs", 1, 8, 1), "eps": ("eps", 0.05, 0.5, 0.05), "eps_high": ("eps_high", 0.05, 0.5, 0.01),
            "lam": ("lam", 0.0, 1.0, 0.05), "resample": ("resample", 1, 8, 1), "length": ("len", 0, 12, 1)}
PER_STEP = ("clip", "loss", "grad", "dead")  # LabBands' curves of T points (from step 1), the others of T + 1


@dataclass(frozen=True)
class LabQuestion:
    """What the lab asks before it shows the runs, and its answer, read from the runs themselves."""

    kind: str                                # "length" or "score" (several algorithms), "flattery" or "token" (one)
    ranking: tuple[tuple[str, float], ...]   # (name, final median) from the highest down; empty for one algorithm
    answer: int                              # the right option: a name's place in ``names``; a share's third
                                             # (0 below ¼, 1 up to ¾, 2 above); the favoured first token
    final: float                             # the number the answer reads: the winner's, flattery's share, π's top


def lab_question(bands: dict, names, *, length: int, flattery: bool) -> LabQuestion:
    """Which algorithm ends highest (with length tokens on: with the longest answers); for one algorithm, how much
    the runs flatter (with flattery on) or which first token they favour.

    Args:
        bands: name → LabBands of a finished run, for every name in ``names``.
        names: the algorithms shown, in the order the options list them.
        length: the lab's length tokens (0: off).
        flattery: whether the tree holds the flattering branch.

    >>> band = lambda *v: SeedBands(np.array(v), np.array(v), np.array(v))
    >>> runs = {"GRPO": LabBands(score=band(4.3, 7.9)), "PPO": LabBands(score=band(4.3, 8.6))}
    >>> q = lab_question(runs, ["GRPO", "PPO"], length=0, flattery=False)
    >>> q.kind, q.answer, q.ranking[0]
    ('score', 1, ('PPO', 8.6))
    """
    if not isinstance(bands, dict):
        raise ValueError(f"bands must be a dict of name → LabBands, got {type(bands).__name__}")
    if not isinstance(names, (list, tuple)) or not names or not all(isinstance(n, str) for n in names):
        raise ValueError(f"names must be a non-empty list of algorithm names, got {names!r:.80}")
    if not isinstance(length, (int, np.integer)) or isinstance(length, bool) or length < 0:
        raise ValueError(f"length must be a whole number of tokens ≥ 0, got {length!r:.40}")
    if not isinstance(flattery, (bool, np.bool_)):
        raise ValueError(f"flattery must be True or False, got {flattery!r:.40}")
    names = list(names)
    if any(n not in bands or not isinstance(bands[n], LabBands) or bands[n].diverged_at is not None for n in names):
        raise ValueError(f"bands must hold a finished LabBands for every name, got {list(bands)!r:.80}")
    kind = "length" if length and len(names) > 1 else "flattery" if flattery and len(names) == 1 else None
    if kind and any(getattr(bands[n], kind) is None for n in names):
        raise ValueError(f"bands must hold the {kind} of every run (length and flattery say the lab measured it)")
    if len(names) > 1:
        kind = kind or "score"
        final = {n: float(getattr(bands[n], kind).median[-1]) for n in names}
        ranking = tuple(sorted(final.items(), key=lambda kv: -kv[1]))
        return LabQuestion(kind, ranking, names.index(ranking[0][0]), ranking[0][1])
    only = bands[names[0]]
    if flattery:
        share = float(only.flattery.median[-1])
        return LabQuestion("flattery", (), 0 if share < 0.25 else 1 if share <= 0.75 else 2, share)
    probs = only.probs.median[-1]
    return LabQuestion("token", (), int(np.argmax(probs)), float(np.max(probs)))


def lab_seed_count(configs, n_seeds: int) -> int:
    """How many of the ``n_seeds`` seeds asked for the lab trains: as many as keep every run of ``configs`` within
    MAX_TOKEN_UPDATES token updates (``LabConfig.token_updates``), and at least one.

    Args:
        configs: one LabConfig or more, the runs trained side by side.
        n_seeds: seeds asked for (≥ 1).

    Returns:
        a whole number in [1, n_seeds].

    >>> lab_seed_count([LabConfig(steps=300, epochs=8, group_size=32, length=4)], 10)   # 460,800 updates a seed
    2
    """
    runs, n = _lab_runs(configs), count("n_seeds", n_seeds, low=1)
    return max(1, min(n, MAX_TOKEN_UPDATES // max(c.token_updates() for c in runs)))


def _lab_runs(configs) -> list:
    """``configs`` (one LabConfig or more) as a list, checked."""
    try:
        runs = list(configs)
    except TypeError:
        raise ValueError(f"configs must be a list, got {show(configs)}") from None
    if not runs:
        raise ValueError("configs must not be empty")
    for i, c in enumerate(runs):
        if not isinstance(c, LabConfig):
            raise ValueError(f"configs[{i}] must be an rlcore.LabConfig, got {type(c).__name__}")
    return runs


def lab_is_light(configs, n_seeds: int) -> bool:
    """Whether ``configs``, trained side by side for ``n_seeds`` seeds each, make a short panel: at most
    LIGHT_TOKEN_UPDATES token updates in all (``LabConfig.token_updates``), so the server may train it beside a
    long run rather than after it.

    Args:
        configs: one LabConfig or more.
        n_seeds: seeds each trains (≥ 1).

    >>> lab_is_light([LabConfig(), LabConfig(algorithm="ppo")], 5)   # 6,400 updates a seed: 64,000 in all
    True
    >>> lab_is_light([LabConfig(steps=300, epochs=8, group_size=32)], 1)   # 153,600
    False
    """
    runs, n = _lab_runs(configs), count("n_seeds", n_seeds, low=1)
    return sum(c.token_updates(n) for c in runs) <= LIGHT_TOKEN_UPDATES
