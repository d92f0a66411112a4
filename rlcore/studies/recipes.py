"""The choices that tell the policy-gradient recipes apart, the named recipes as data, and which one a set matches."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..formulas.aggregation import AGGREGATION_MODES, gradient_weights, informative_groups
from ..formulas.checks import as_vector, eps_pair, non_negative, positive, show
from ..formulas.credit import GROUP_EPS
from ..formulas.example import Scenario, check_scenario
from .clips import GSPO_EPS, ClipBatch, clip_batch
from .length import answer_lengths, length_push

__all__ = [
    "RECIPES", "SWITCHES", "NamedRecipe", "RecipeComparison", "RecipeGradient", "RecipeOnBatch", "check_switches",
    "differences", "match_recipe", "recipe", "recipe_advantages", "recipe_clip", "recipe_comparison",
    "recipe_distances", "recipe_gradient", "recipe_switches",
]

SWITCHES: dict[str, tuple] = {
    "baseline": ("none", "batch mean", "group mean", "leave-one-out"),
    "scale": ("none", "group std", "batch std"),
    "aggregation": AGGREGATION_MODES,
    "ratio": ("none", "token", "sequence"),
    "clip": ("none", "symmetric", "clip-higher", "cispo"),
    "kl": ("none", "in reward", "in loss"),
    "dynamic_sampling": (False, True),
}
"""Each switch and the values it can take. ratio "none": one on-policy step per batch, no importance ratio."""


@dataclass(frozen=True)
class NamedRecipe:
    """A published recipe: the switch values that define it (switches it leaves free are absent)."""

    name: str
    source: str
    arxiv: str  # "" when the source is not on arXiv
    switches: dict


RECIPES = (
    NamedRecipe("REINFORCE with a baseline", "Williams (1992); the mean score as baseline", "",
                {"baseline": "batch mean", "scale": "none", "ratio": "none", "clip": "none"}),
    NamedRecipe("RLOO", "Ahmadian et al. (2024), Back to Basics", "2402.14740",
                {"baseline": "leave-one-out", "scale": "none", "ratio": "none", "clip": "none", "kl": "in reward"}),
    NamedRecipe("GRPO", "Shao et al. (2024), DeepSeekMath", "2402.03300",
                {"baseline": "group mean", "scale": "group std", "aggregation": "seq-mean-token-mean",
                 "ratio": "token", "clip": "symmetric", "kl": "in loss", "dynamic_sampling": False}),
    NamedRecipe("Dr. GRPO", "Liu et al. (2025), Understanding R1-Zero-Like Training", "2503.20783",
                {"baseline": "group mean", "scale": "none", "aggregation": "seq-mean-token-sum-norm",
                 "ratio": "token", "clip": "symmetric"}),
    NamedRecipe("DAPO", "Yu et al. (2025), DAPO", "2503.14476",
                {"baseline": "group mean", "scale": "group std", "aggregation": "token-mean", "ratio": "token",
                 "clip": "clip-higher", "kl": "none", "dynamic_sampling": True}),
    NamedRecipe("GSPO", "Zheng et al. (2025), Group Sequence Policy Optimization", "2507.18071",
                {"baseline": "group mean", "scale": "group std", "aggregation": "seq-mean-token-mean",
                 "ratio": "sequence", "clip": "symmetric"}),
    NamedRecipe("CISPO", "MiniMax (2025), MiniMax-M1", "2506.13585",
                {"baseline": "group mean", "scale": "group std", "aggregation": "token-mean", "ratio": "token",
                 "clip": "cispo"}),
    NamedRecipe("REINFORCE++", "Hu et al. (2025), REINFORCE++", "2501.03262",
                {"baseline": "batch mean", "scale": "batch std", "ratio": "token", "clip": "symmetric",
                 "kl": "in reward"}),
)
"""The named recipes. A switch a recipe leaves out is one its paper does not fix (any value matches)."""

REFERENCE = "GRPO"


def check_switches(switches, name: str = "switches") -> dict:
    """``switches`` as a dict holding a valid value for every switch; ValueError naming the first bad one
    (``name`` is what the messages call the whole dict)."""
    if not isinstance(switches, dict):
        raise ValueError(f"{name} must be a dict of {', '.join(SWITCHES)}, got {show(switches)}")
    missing = [k for k in SWITCHES if k not in switches]
    if missing:
        raise ValueError(f"{name} must set {', '.join(missing)}")
    extra = [k for k in switches if k not in SWITCHES]
    if extra:
        raise ValueError(f"{name} has unknown entries {extra}; the switches are {', '.join(SWITCHES)}")
    for key, options in SWITCHES.items():
        value = switches[key]
        if not any(value is o or (type(value) is type(o) and value == o) for o in options):
            raise ValueError(f"{key} must be one of {', '.join(map(str, options))}; got {show(value)}")
    return dict(switches)


def recipe(name: str, *, arg: str = "name") -> NamedRecipe:
    """The named recipe ``name`` (one of ``RECIPES``); ``arg`` is what the error calls it."""
    for r in RECIPES:
        if isinstance(name, str) and r.name == name:
            return r
    raise ValueError(f"{arg} must be one of {', '.join(r.name for r in RECIPES)}; got {show(name)}")


def recipe_switches(name: str, base: dict | None = None) -> dict:
    """A full set of switches for the named recipe: its defining values over ``base`` (default: GRPO's)."""
    start = dict(recipe(REFERENCE).switches if base is None else check_switches(base, "base"))
    return check_switches({**start, **recipe(name).switches})


def match_recipe(switches) -> tuple[str, ...]:
    """The names of the recipes whose every defining switch has the value given.

    >>> match_recipe(recipe_switches("DAPO"))
    ('DAPO',)
    """
    s = check_switches(switches)
    return tuple(r.name for r in RECIPES if all(s[k] == v for k, v in r.switches.items()))


def recipe_distances(switches) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Every recipe with the switches that would have to change to reach it, nearest first (stable)."""
    s = check_switches(switches)
    gaps = [(r.name, tuple(k for k, v in r.switches.items() if s[k] != v)) for r in RECIPES]
    return tuple(sorted(gaps, key=lambda g: len(g[1])))


def differences(switches, reference: str = REFERENCE) -> tuple[tuple[str, object, object], ...]:
    """The switches where ``switches`` differs from the reference recipe's defining values: (switch, this, theirs).

    >>> differences(recipe_switches("Dr. GRPO"))
    (('scale', 'none', 'group std'), ('aggregation', 'seq-mean-token-sum-norm', 'seq-mean-token-mean'))
    """
    s = check_switches(switches)
    ref = recipe(reference, arg="reference").switches
    return tuple((k, s[k], ref[k]) for k in SWITCHES if k in ref and s[k] != ref[k])


def recipe_advantages(scores, baseline: str, scale: str, eps: float = GROUP_EPS) -> np.ndarray:
    """One batch that is one group of answers to a prompt: each answer's advantage under a baseline and a scale.

    b = 0 (none), mean s (batch or group mean: the same for a one-prompt batch), or (Σs − sᵢ)/(G − 1)
    (leave-one-out); c = s − b; Aᵢ = cᵢ (scale none), cᵢ/(std(s) + ε) (group std, GRPO), cᵢ/(std(c) + ε)
    (batch std of the centred scores, REINFORCE++); std with G − 1. A group whose spread is 0 is not rescaled.

    Args:
        scores: shape [G], the judge's score of each answer. A group of one has nothing to compare with:
            Aᵢ = sᵢ without a baseline, 0 with any baseline (as ``group_advantages`` gives a group of one).
        baseline: one of ``SWITCHES["baseline"]``.
        scale: one of ``SWITCHES["scale"]``.
        eps: ε > 0 added to the std.

    Returns:
        shape [G], Aᵢ.

    >>> recipe_advantages([1.0, 3.0], "group mean", "none").tolist()
    [-1.0, 1.0]
    >>> recipe_advantages([1.0, 3.0, 5.0], "leave-one-out", "none").tolist()
    [-3.0, 0.0, 3.0]
    """
    s = as_vector("scores", scores)
    if baseline not in SWITCHES["baseline"]:
        raise ValueError(f"baseline must be one of {', '.join(SWITCHES['baseline'])}; got {show(baseline)}")
    if scale not in SWITCHES["scale"]:
        raise ValueError(f"scale must be one of {', '.join(SWITCHES['scale'])}; got {show(scale)}")
    e = positive("eps", eps)
    g = s.size
    if g == 1:  # one answer: no other to leave out, and no spread
        b = np.zeros(1) if baseline == "none" else s.copy()
        return s - b
    b = {"none": np.zeros(g), "leave-one-out": (s.sum() - s) / (g - 1)}.get(baseline, np.full(g, s.mean()))
    centred = s - b
    spread = {"none": 0.0, "group std": s.std(ddof=1), "batch std": centred.std(ddof=1)}[scale]
    return centred / (spread + e) if spread > 0 else centred


def recipe_clip(switches) -> str | None:
    """Which of ``clips.CLIP_METHODS`` the switches' ratio and clip amount to; None without a ratio or a clip.

    >>> recipe_clip(recipe_switches("GSPO")), recipe_clip(recipe_switches("RLOO"))
    ('gspo', None)
    """
    s = check_switches(switches)
    if s["ratio"] == "none" or s["clip"] == "none":
        return None
    if s["ratio"] == "sequence":
        return "gspo"
    return {"symmetric": "ppo", "clip-higher": "clip-higher", "cispo": "cispo"}[s["clip"]]


@dataclass(frozen=True)
class RecipeGradient:
    """What a recipe's ratio and clip leave of each answer's gradient once the policy has moved."""

    weights: np.ndarray  # [n]: coefficient of ∇log π of the answer's tokens
    stopped: np.ndarray  # [n] bool: the clip gives it no gradient although ratio·advantage is not 0
    kept: np.ndarray     # [n]: weights ÷ the unclipped ratio·Â (1 where nothing is clipped or Â = 0)


def recipe_gradient(ratio, seq_ratio, advantages, switches, eps_low: float = 0.2, eps_high: float = 0.28,
                    gspo_eps: tuple[float, float] = GSPO_EPS) -> RecipeGradient:
    """Each answer's gradient weight under the switches' ratio and clip (``gradient_weights``).

    ratio none: one on-policy step, g = Â; token ratio: g = ρ·Â unclipped, or PPO / clip-higher / CISPO as
    the clip says; sequence ratio: g = s·Â unclipped, or PPO's rule on s with GSPO's own small range.

    Args:
        ratio: shape [n], ρ of each answer's token (here: its first token's).
        seq_ratio: shape [n], GSPO's answer ratio s.
        advantages: shape [n], Â.
        switches: as in ``check_switches``.
        eps_low, eps_high: the token clip range, each > 0 (checked whichever clip the switches choose).
        gspo_eps: GSPO's (ε_low, ε_high), each > 0.

    Returns:
        RecipeGradient(weights, stopped, kept).

    ρ = 1.5 is past DAPO's 1.28: no gradient; CISPO keeps 1.28/1.5 of it:

    >>> recipe_gradient([1.5], [1.1], [1.0], recipe_switches("DAPO")).weights.round(6).tolist()
    [0.0]
    >>> recipe_gradient([1.5], [1.1], [1.0], recipe_switches("CISPO")).kept.round(4).tolist()
    [0.8533]
    """
    s = check_switches(switches)
    rho, seq, adv = (as_vector(n, v) for n, v in (("ratio", ratio), ("seq_ratio", seq_ratio),
                                                   ("advantages", advantages)))
    if not rho.size == seq.size == adv.size:
        raise ValueError(f"ratio, seq_ratio and advantages must have the same length, got {rho.size}, {seq.size}, "
                         f"{adv.size}")
    for name, r in (("ratio", rho), ("seq_ratio", seq)):
        if np.any(r < 0):
            raise ValueError(f"{name} must be >= 0 (a ratio of probabilities), got {show(r)}")
    eps_low, eps_high = positive("eps_low", eps_low), positive("eps_high", eps_high)
    gspo_eps = eps_pair("gspo_eps", gspo_eps)
    clip = recipe_clip(s)
    unclipped = adv * {"none": 1.0, "token": rho, "sequence": seq}[s["ratio"]]
    if clip is None:
        w = unclipped
    elif clip == "gspo":
        w = gradient_weights(seq, adv, "ppo", *gspo_eps)
    else:
        method = "cispo" if clip == "cispo" else "ppo"
        w = gradient_weights(rho, adv, method, eps_low, eps_low if clip == "ppo" else eps_high)
    safe = np.where(unclipped != 0, unclipped, 1.0)
    # stopped by the clip: a gradient ratio·Â that the clip sets to 0 (ρ = 0 leaves nothing to stop)
    return RecipeGradient(w, (w == 0) & (unclipped != 0), np.where(unclipped != 0, w / safe, 1.0))


@dataclass(frozen=True)
class RecipeOnBatch:
    """One recipe on one batch of answers: what its switches make of each answer."""

    advantages: np.ndarray  # [n]: ``recipe_advantages`` under its baseline and scale
    weights: np.ndarray     # [n]: the weight of one token of each answer under its aggregation (``length_push``)
    kept: np.ndarray        # [n]: the share of the gradient its ratio and clip leave (``recipe_gradient``)
    stopped: int            # answers its clip gives no gradient although ratio·Â is not 0
    clip: str | None        # ``recipe_clip``: which of CLIP_METHODS its ratio and clip amount to


def _on_batch(batch: ClipBatch, switches: dict, eps_high: float) -> RecipeOnBatch:
    adv = recipe_advantages(batch.scores, switches["baseline"], switches["scale"])
    push = length_push(batch.lengths, adv)
    grad = recipe_gradient(batch.ratio, batch.seq_ratio, adv, switches, eps_high=eps_high)
    return RecipeOnBatch(adv, push.weights[AGGREGATION_MODES.index(switches["aggregation"])], grad.kept,
                         int(grad.stopped.sum()), recipe_clip(switches))


@dataclass(frozen=True)
class RecipeComparison:
    """A recipe against the reference (GRPO) on the running example's sampled answers, one group."""

    batch: ClipBatch            # the answers, and the policy after one step (``clip_batch``)
    mine: RecipeOnBatch         # the recipe's switches on it
    reference: RecipeOnBatch    # GRPO's
    informative: bool           # the group's scores differ (``informative_groups``): dynamic sampling keeps it
    worst: int                  # the answer with the lowest score (the first of them)
    longest: int                # the answer with the most tokens (the first of them)
    than_reference: str         # "larger", "smaller" or "same": the worst answer's |Â| under the recipe against
                                # GRPO's (the same within a relative 1e-9)


def recipe_comparison(scenario: Scenario, switches, step: float, eps_high: float = 0.28) -> RecipeComparison:
    """The running example's sampled answers as one group, one policy-gradient step of size ``step`` (``clip_batch``),
    and what the recipe's switches and GRPO's make of it: advantages, token weights, the gradient the clip leaves.

    Args:
        scenario: the running example; its answers' lengths are ``answer_lengths``.
        switches: as in ``check_switches``.
        step: η ≥ 0 of the step that moved the policy since the batch was sampled.
        eps_high: ε_high > 0 of clip-higher and CISPO (ε_low is 0.2).

    Returns:
        RecipeComparison(batch, mine, reference, informative, worst, longest, than_reference).

    Dr. GRPO does not divide by the std (about 3.0 for the ten scores): the worst answer, scored 1 against a
    mean of 4.3, gets Â = −3.3, larger than GRPO's −3.3/3.0:

    >>> from rlcore.example import ARTICLE_SCENARIO
    >>> c = recipe_comparison(ARTICLE_SCENARIO, recipe_switches("Dr. GRPO"), 0.2)
    >>> c.worst, c.longest, c.than_reference, round(float(c.mine.advantages[c.worst]), 6)
    (1, 5, 'larger', -3.3)
    """
    s = check_scenario(scenario)
    mine = check_switches(switches)
    eta = non_negative("step", step)
    batch = clip_batch(s.pi, s.samples, answer_lengths(s), lr=eta, eps_high=eps_high)
    this, ref = _on_batch(batch, mine, eps_high), _on_batch(batch, recipe_switches(REFERENCE), eps_high)
    worst = int(np.argmin(batch.scores))
    a, b = abs(this.advantages[worst]), abs(ref.advantages[worst])
    than = "same" if np.isclose(a, b, rtol=1e-9, atol=1e-12) else "larger" if a > b else "smaller"
    return RecipeComparison(batch, this, ref, bool(informative_groups([batch.scores])[0]), worst,
                            int(np.argmax(batch.lengths)), than)
