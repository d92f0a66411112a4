"""DPO on the tiny model: preference pairs from its own answers, judged by the rule, against the frozen base.

Every step draws ``prompts`` training problems (never a held-out one) and ``group_size`` answers to each at
temperature 1: written by the shipped base model (**offline** DPO: a fixed pool of the base's answers, the same for
every run of a seed, one slice of it per step) or by the policy as it is now (**online** DPO: the pairs re-sampled as
it trains, Guo et al. 2024). The rule-based judge marks each answer; within a problem's group every answer with full
marks (right and well formed) is paired with every answer without (chosen y_w, rejected y_l). Each answer's
log-probability is summed over its tokens (up to and including <end>), and one Adam step goes down DPO's loss

    L = −mean over pairs of log σ(β·[(log π(y_w) − log π_ref(y_w)) − (log π(y_l) − log π_ref(y_l))])

with the base as π_ref (``rlcore.dpo_loss``; each pair's push σ(−β·margin) is ``rlcore.dpo_weights``: the formulas
page 18 uses, not copies). Both kinds of run see the same problems at every step; only who wrote the answers
differs.

After every step (and once before the first) the run measures the policy as ``training.measure`` does for RL (the
held-out pass@1, length, entropy, KL to the base …) and the mean summed log-probability of the chosen and of the
rejected answers of one fixed set of pairs: the base's answers to the held-out problems (the same pairs at every
step and in every run of a seed, so the curves compare). On sequences both often fall while their margin grows
(likelihood displacement: Razin et al. 2024, arXiv 2410.08847; Pal et al. 2024). The chosen answers are split by
kind: those that show their working and those given at once (on a problem of several numbers mostly a lucky
guess), since a fall of the guesses is the move DPO is asked for, and only a fall of the worked ones is
displacement.

Runs that move different distances from the base do not rank fairly by their last pass@1: ``kl_matched`` reads
each run's pass@1 where its KL to the base first reaches the smallest KL any of them ended at (a KL-matched
comparison, as Gao et al. and the DPO paper's reward-against-KL plots compare methods).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from ...formulas.checks import as_vector, count, flag, in_range, positive
from ...formulas.policy import log_softmax
from ...formulas.preference import dpo_loss, dpo_margins, dpo_weights
from . import task, warmup
from .model import Model, adam_init, adam_step, backward, forward, generate, log_prob_grad
from .training import Measure, ZeroConfig, answer_log_probs, answer_mask, measure

PROBLEM_STREAM = 3   # the training problems draw from their own stream: offline and online runs see the same ones
ANSWER_STREAM = 4    # the answers the pairs are made of
PROBE_STREAM = 5     # the base's answers to the held-out problems whose pairs are measured at every step
PROBE_GROUP = 4      # answers of the base per held-out problem in that fixed set
DISPLACED = 0.05     # nats: a summed log-probability that moved this little or less "held" (``displacement``)
LEVEL = 0.02         # two pass@1 figures this close are "level" (``who_leads``): about one standard error of a
                     # measure's 672 answers, fewer with the same draws


@dataclass(frozen=True)
class DPOConfig:
    """The settings of one DPO run on the tiny model; the defaults are the default run (GRPO's samples per step).

    >>> DPOConfig(steps=2, prompts=2, group_size=2).grpo().group_size
    2
    """

    beta: float = 0.5             # DPO's β (page 18's default)
    steps: int = 100              # updates
    prompts: int = 16             # problems per step
    group_size: int = 8           # G answers per problem, paired within the group
    lr: float = 3e-4              # Adam's step size
    online: bool = False          # False: pairs from the base's answers; True: re-sampled from the policy each step
    k: int = 8                    # answers per held-out problem; the k of pass@k

    def __post_init__(self):
        checked = {
            "beta": in_range("beta", self.beta, 0.01, 10.0),
            "steps": count("steps", self.steps, low=1, high=2000),
            "prompts": count("prompts", self.prompts, low=1, high=256),
            "group_size": count("group_size", self.group_size, low=2, high=64),
            "lr": positive("lr", self.lr),
            "online": flag("online", self.online),
            "k": count("k", self.k, low=8, high=64),
        }
        if checked["lr"] > 0.1:
            raise ValueError(f"lr must be <= 0.1, got {self.lr!r}")
        for name, value in checked.items():   # whole numbers as int, the rest as float, the switch as bool
            object.__setattr__(self, name, value)

    def grpo(self) -> ZeroConfig:
        """GRPO at the same budget: the same steps, problems per step and answers per problem (its own step size);
        no pass@k curve beyond k = 1 (page 18 reads pass@1 and KL, and a 1,024-answer curve costs half a minute)."""
        return ZeroConfig(steps=self.steps, prompts=self.prompts, group_size=self.group_size, k=self.k, passk_max=1)


@dataclass(frozen=True)
class Pairs:
    """The (chosen, rejected) pairs of a batch of groups: row indices into its answers."""

    chosen: np.ndarray     # [N] the answer with full marks
    rejected: np.ndarray   # [N] an answer of the same group without

    @property
    def rows(self) -> np.ndarray:
        """The answers in some pair, ascending."""
        return np.union1d(self.chosen, self.rejected)


def pairs_within_groups(score: np.ndarray, group_size: int) -> Pairs:
    """Every answer with full marks (score 2: right and well formed) paired with every answer of its own group
    without, group after group (a group of all one kind gives none).

    >>> p = pairs_within_groups(np.array([2.0, 0.0, 1.0, 2.0, 2.0, 2.0]), 3)
    >>> p.chosen.tolist(), p.rejected.tolist()
    ([0, 0], [1, 2])
    """
    score = as_vector("score", score)
    g = count("group_size", group_size, low=1)
    if score.size % g:
        raise ValueError(f"score must hold whole groups of group_size ({g}) answers, got {score.size}")
    full = (score == 2.0).reshape(-1, g)
    w, lo = [], []
    for i, row in enumerate(full):
        good, bad = i * g + np.flatnonzero(row), i * g + np.flatnonzero(~row)
        w.append(np.repeat(good, bad.size))
        lo.append(np.tile(bad, good.size))
    return Pairs(np.concatenate(w).astype(np.int64), np.concatenate(lo).astype(np.int64))


def sequence_log_probs(lp: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Each answer's log-probability, the sum over its tokens the mask keeps: [n] from [n, L]."""
    return np.where(mask, lp, 0.0).sum(axis=1)


@dataclass(frozen=True)
class DPOGrads:
    grads: dict            # ∂loss/∂weights
    loss: float            # rlcore.dpo_loss on the batch's pairs
    margin: np.ndarray     # [N] each pair's margin (log-ratio of the chosen minus the rejected's)


def dpo_grads(model: Model, seq: np.ndarray, pairs: Pairs, ref: np.ndarray, beta: float) -> DPOGrads:
    """DPO's loss on ``pairs`` of the answers in ``seq`` (prompt + answer rows) and its gradient on every weight.

    ``ref``: each row's summed log π_ref. ∂L/∂log π(y_w) = −(β/N)·σ(−β·m) for each pair it is chosen in, +(β/N)·σ(−β·m)
    where rejected (``rlcore.dpo_weights``); every token of an answer shares its answer's.
    """
    fwd = forward(model, seq[:, :-1])                        # the last token is never an input
    ans = seq[:, task.PROMPT_LEN:]
    lp_all = log_softmax(fwd.logits[:, task.PROMPT_LEN - 1:])  # at the answer's slots [n, L, V]
    lp = np.take_along_axis(lp_all, ans[..., None], axis=-1)[..., 0]
    mask = answer_mask(ans)
    seq_lp = sequence_log_probs(lp, mask)
    w, lo = pairs.chosen, pairs.rejected
    margin = dpo_margins(seq_lp[w], seq_lp[lo], ref[w], ref[lo])
    loss = dpo_loss(seq_lp[w], seq_lp[lo], ref[w], ref[lo], beta)
    push = beta * dpo_weights(margin, beta) / w.size
    d_seq = np.zeros(len(seq))
    np.add.at(d_seq, w, -push)
    np.add.at(d_seq, lo, push)
    dlogits = np.zeros_like(fwd.logits)
    dlogits[:, task.PROMPT_LEN - 1:] = log_prob_grad(lp_all, ans, np.where(mask, d_seq[:, None], 0.0))
    return DPOGrads(backward(model, fwd, dlogits), loss, margin)


@dataclass(frozen=True)
class Probe:
    """The fixed pairs measured at every step: the base's PROBE_GROUP answers to each held-out problem."""

    answers: np.ndarray    # [n, MAX_ANSWER] the answers, PROBE_GROUP in a row per held-out problem
    mask: np.ndarray       # [n, MAX_ANSWER] their tokens (up to and including <end>)
    pairs: Pairs           # indices into the answers
    ref: np.ndarray        # [n] each answer's summed log π_base
    worked: np.ndarray     # [n] whether each answer shows its working (the rest are given at once)


def probe(seed: int, base: Model) -> Probe:
    """The base's PROBE_GROUP answers to each held-out problem (their own seeded stream) and their pairs."""
    held = task.held_out_problems()
    seq = generate(base, task.prompts(held), task.MAX_ANSWER, np.random.default_rng([seed, PROBE_STREAM]),
                   end=task.END, pad=task.PAD, repeat=PROBE_GROUP)
    ans = seq[:, task.PROMPT_LEN:]
    score = task.judge_batch(ans, np.repeat(held, PROBE_GROUP, axis=0))[2]
    mask = answer_mask(ans)
    ref = sequence_log_probs(answer_log_probs(base, task.prompts(held), ans, PROBE_GROUP), mask)
    return Probe(ans, mask, pairs_within_groups(score, PROBE_GROUP), ref, ans[:, 0] == task.WORK)


@dataclass(frozen=True)
class ProbeMeasure:
    """The fixed pairs under one policy (means over the pairs)."""

    chosen: float      # mean summed log π(y_w)
    rejected: float    # mean summed log π(y_l)
    margin: float      # mean implicit-reward margin β·m (0 for the base)
    won: float         # share of pairs with m > 0
    chosen_worked: float = float("nan")   # mean summed log π(y_w) over the pairs whose chosen shows its working
    chosen_guessed: float = float("nan")  # … whose chosen is given at once (nan: no such pair)
    guessed_share: float = float("nan")   # share of the pairs whose chosen is given at once


def measure_probe(model: Model, p: Probe, beta: float) -> ProbeMeasure:
    """``p``'s pairs under ``model`` (the held-out prompts run once, their answers after them)."""
    lp = sequence_log_probs(answer_log_probs(model, task.prompts(task.held_out_problems()), p.answers, PROBE_GROUP),
                            p.mask)
    w, lo = p.pairs.chosen, p.pairs.rejected
    m = dpo_margins(lp[w], lp[lo], p.ref[w], p.ref[lo])
    worked = p.worked[w]

    def mean(on: np.ndarray) -> float:
        return float(lp[w][on].mean()) if on.any() else float("nan")

    return ProbeMeasure(float(lp[w].mean()), float(lp[lo].mean()), float(beta * m.mean()), float(np.mean(m > 0)),
                        mean(worked), mean(~worked), float(np.mean(~worked)) if worked.size else float("nan"))


@dataclass(frozen=True)
class DPOUpdate:
    """One step's batch, as a trainer logs it."""

    pairs: int         # pairs formed (0: every group all right or all wrong, nothing to learn)
    loss: float        # the DPO loss on them before the step (nan without pairs)
    right: float       # share of the batch's answers that were right (the writer's accuracy)


@dataclass(frozen=True)
class DPOStep:
    step: int                  # 0 is the base model, before any update
    measure: Measure
    probe: ProbeMeasure
    update: DPOUpdate | None   # None at step 0
    model: Model


def dpo_steps(config: DPOConfig = DPOConfig(), seed: int = 0, base: Model | None = None) -> Iterator[DPOStep]:
    """The run one step at a time: step 0 (the base, measured), then one ``DPOStep`` per update."""
    if not isinstance(config, DPOConfig):
        raise ValueError(f"config must be a DPOConfig, got {type(config).__name__}")
    seed = count("seed", seed, low=0)
    c = config
    base = warmup.base_model() if base is None else base
    model, opt = base, adam_init(base)
    problems_rng, answers_rng = np.random.default_rng([seed, PROBLEM_STREAM]), np.random.default_rng(
        [seed, ANSWER_STREAM])
    held, fixed = task.held_out_problems(), probe(seed, base)
    yield DPOStep(0, measure(model, base, seed, c.k), measure_probe(model, fixed, c.beta), None, model)
    for step in range(1, c.steps + 1):
        problems = task.sample_problems(problems_rng, c.prompts, exclude=held)
        writer = model if c.online else base
        seq = generate(writer, task.prompts(problems), task.MAX_ANSWER, answers_rng, end=task.END, pad=task.PAD,
                       repeat=c.group_size)
        right, _, score = task.judge_batch(seq[:, task.PROMPT_LEN:], np.repeat(problems, c.group_size, axis=0))
        pairs = pairs_within_groups(score, c.group_size)
        loss = float("nan")
        if pairs.chosen.size:
            rows = pairs.rows
            where = np.searchsorted(rows, [pairs.chosen, pairs.rejected])
            used, kept = seq[rows], Pairs(where[0], where[1])
            ref = sequence_log_probs(answer_log_probs(base, task.prompts(problems), seq[:, task.PROMPT_LEN:],
                                                      c.group_size)[rows], answer_mask(used[:, task.PROMPT_LEN:]))
            g = dpo_grads(model, used, kept, ref, c.beta)
            loss = g.loss
            model, opt, _ = adam_step(model, g.grads, opt, c.lr)
        yield DPOStep(step, measure(model, base, seed, c.k), measure_probe(model, fixed, c.beta),
                      DPOUpdate(int(pairs.chosen.size), loss, float(right.mean())), model)


@dataclass(frozen=True)
class DPORun:
    """A whole DPO run: each curve has steps + 1 entries, index 0 the base model (``updates`` from step 1)."""

    config: DPOConfig
    seed: int
    pass1: np.ndarray
    passk: np.ndarray
    length: np.ndarray
    entropy: np.ndarray
    kl: np.ndarray
    reward: np.ndarray
    chosen: np.ndarray      # mean summed log π(y_w) of the fixed pairs
    rejected: np.ndarray    # mean summed log π(y_l) of the fixed pairs
    margin: np.ndarray      # mean implicit-reward margin β·m of the fixed pairs
    won: np.ndarray         # share of the fixed pairs the policy ranks right (m > 0)
    pairs: np.ndarray       # [updates] pairs formed at each step
    loss: np.ndarray        # [updates] the DPO loss on them (nan without pairs)
    writer_right: np.ndarray  # [updates] share of the step's answers that were right
    model: Model
    chosen_worked: np.ndarray | None = None   # mean summed log π(y_w) over the fixed pairs whose chosen shows its
    #                                           working (nan throughout when there is none)
    chosen_guessed: np.ndarray | None = None  # … whose chosen is given at once
    guessed_share: float = float("nan")       # share of the fixed pairs whose chosen is given at once

    @property
    def change(self) -> str:
        """What DPO did to the fixed pairs' log-probabilities: ``displacement`` of the run's curves."""
        return displacement(self.chosen, self.rejected, self.margin)

    @property
    def final_kl(self) -> float:
        """The KL to the base per written token at the last step (``kl`` is its curve), nats."""
        return float(self.kl[-1])

    @property
    def split(self) -> str:
        """What the run did to the chosen answers by kind: ``split_change`` of its curves ("none" without them)."""
        if self.chosen_worked is None or self.chosen_guessed is None:
            return "none"
        return split_change(self.chosen_worked, self.chosen_guessed)


def _curve_or_nan(name: str, value) -> np.ndarray:
    """A 1-D float curve of at least one entry, nan allowed (a kind the fixed pairs lack)."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a sequence of numbers, got {value!r}") from None
    if arr.ndim != 1 or not arr.size:
        raise ValueError(f"{name} must be a sequence of numbers, got {value!r}")
    return arr


def split_change(worked, guessed) -> str:
    """What a DPO run did to the chosen answers of its fixed pairs, by kind, from the curves' ends: "away" (those given
    at once fell by more than DISPLACED nats while those with their working held or rose: the intended move away from
    guessing), "both_fell" (both fell: displacement of right, worked answers too), "both_rose" (neither fell), or
    "worked_fell" (the worked ones fell, the guesses did not); "none" when either kind is missing (nan).

    >>> split_change([-3.0, -1.0], [-2.0, -3.5]), split_change([-3.0, -3.5], [-2.0, -3.5])
    ('away', 'both_fell')
    """
    w, g = _curve_or_nan("worked", worked), _curve_or_nan("guessed", guessed)
    if not (np.isfinite(w[[0, -1]]).all() and np.isfinite(g[[0, -1]]).all()):
        return "none"
    w_fell, g_fell = w[-1] - w[0] < -DISPLACED, g[-1] - g[0] < -DISPLACED
    return ("both_fell" if w_fell else "away") if g_fell else ("worked_fell" if w_fell else "both_rose")


def pass_at_kl(kl, pass1, target: float) -> float:
    """pass@1 where a run's KL to the base first reaches ``target``, by linear interpolation between the two steps
    around it (its first pass@1 when it starts there; nan when it never gets there).

    >>> pass_at_kl([0.0, 0.2, 0.4], [0.3, 0.5, 0.6], 0.3)
    0.55
    """
    k, p = as_vector("kl", kl), as_vector("pass1", pass1)
    if k.size != p.size:
        raise ValueError(f"kl and pass1 must have the same length, got {k.size} and {p.size}")
    x = in_range("target", target, 0.0, float("inf"))
    hit = np.flatnonzero(k >= x)
    if not hit.size:
        return float("nan")
    i = int(hit[0])
    if i == 0 or k[i] == k[i - 1]:
        return float(p[i])
    return round(float(p[i - 1] + (p[i] - p[i - 1]) * (x - k[i - 1]) / (k[i] - k[i - 1])), 12)


def kl_matched(curves: dict) -> tuple[float, dict]:
    """A KL-matched comparison of runs: {name: (kl curve, pass@1 curve)} → (the smallest KL any run ended at,
    {name: its pass@1 where its KL first reaches that}). Every run reaches it: each started at 0.

    >>> kl_matched({"a": ([0.0, 0.5], [0.2, 0.6]), "b": ([0.0, 0.25], [0.2, 0.3])})
    (0.25, {'a': 0.4, 'b': 0.3})
    """
    if (not isinstance(curves, dict) or not curves
            or not all(isinstance(c, tuple | list) and len(c) == 2 for c in curves.values())):
        raise ValueError(f"curves must be a non-empty dict of (kl, pass1) curves, got {curves!r}")
    target = min(float(as_vector("kl", k)[-1]) for k, _ in curves.values())
    return target, {name: pass_at_kl(k, p, max(target, 0.0)) for name, (k, p) in curves.items()}


def leader_at_kl(passes: dict) -> str:
    """The name with the highest pass@1, or "level" when the best two are within LEVEL of each other.

    >>> leader_at_kl({"a": 0.4, "b": 0.3}), leader_at_kl({"a": 0.4, "b": 0.39})
    ('a', 'level')
    """
    if (not isinstance(passes, dict) or not passes or not all(
            isinstance(v, int | float) and not isinstance(v, bool) and np.isfinite(v) for v in passes.values())):
        raise ValueError(f"passes must be a non-empty dict of names to finite pass@1 values, got {passes!r}")
    ranked = sorted(passes.items(), key=lambda kv: -kv[1])
    return "level" if len(ranked) > 1 and ranked[0][1] - ranked[1][1] <= LEVEL else ranked[0][0]


def displacement(chosen, rejected, margin) -> str:
    """What a DPO run did to its fixed pairs, read from the curves' ends (index 0 the base, −1 the end): "none" (the
    mean margin did not grow), "fell" (the chosen answers' mean log-probability fell by more than DISPLACED nats: the
    rejected's fell further, as the margin grew; likelihood displacement), "held" (it moved by DISPLACED nats or less)
    or "rose".

    Args:
        chosen, rejected: the mean summed log π of the chosen and of the rejected answers at each step, finite.
        margin: the mean implicit-reward margin at each step; the three of one length.

    >>> displacement([-2.6, -2.9], [-2.8, -3.8], [0.0, 0.3])
    'fell'
    """
    c, r, m = (as_vector(name, v) for name, v in (("chosen", chosen), ("rejected", rejected), ("margin", margin)))
    if not c.size == r.size == m.size:
        raise ValueError(f"chosen, rejected and margin must have the same length, got {c.size}, {r.size}, {m.size}")
    if not m[-1] > m[0]:
        return "none"
    moved = c[-1] - c[0]
    return "fell" if moved < -DISPLACED else "rose" if moved > DISPLACED else "held"


def who_leads(offline: float, online: float) -> str:
    """Which DPO ended higher on the held-out pass@1: "online", "offline", or "level" (within LEVEL of each other).

    Args:
        offline, online: the two runs' last pass@1, each in [0, 1].

    >>> who_leads(0.59, 0.85), who_leads(0.6, 0.61)
    ('online', 'level')
    """
    a, b = in_range("offline", offline, 0.0, 1.0), in_range("online", online, 0.0, 1.0)
    return "level" if abs(b - a) <= LEVEL else "online" if b > a else "offline"


def dpo_collect(config: DPOConfig, seed: int, steps: list) -> DPORun:
    """A ``DPORun`` from the steps ``dpo_steps`` yielded (step 0 first): the whole run, or the part trained so far."""
    if not steps:
        raise ValueError("steps must not be empty")
    if steps[0].step != 0:
        raise ValueError(f"steps must start with step 0, got step {steps[0].step}")

    def curve(values) -> np.ndarray:
        return np.array(list(values), dtype=np.float64)

    ms, ps, us = [s.measure for s in steps], [s.probe for s in steps], [s.update for s in steps[1:]]
    return DPORun(config, seed, *(curve(getattr(m, f) for m in ms) for f in ("pass1", "passk", "length", "entropy",
                                                                              "kl", "reward")),
                  *(curve(getattr(p, f) for p in ps) for f in ("chosen", "rejected", "margin", "won")),
                  np.array([u.pairs for u in us], dtype=np.int64), curve(u.loss for u in us),
                  curve(u.right for u in us), steps[-1].model,
                  *(curve(getattr(p, f) for p in ps) for f in ("chosen_worked", "chosen_guessed")),
                  ps[0].guessed_share)


def dpo_train(config: DPOConfig = DPOConfig(), seed: int = 0) -> DPORun:
    """Run ``config`` from the shipped base model, every step at once (``dpo_steps`` gives them one by one);
    deterministic for a seed.

    >>> dpo_train(DPOConfig(steps=1, prompts=2, group_size=2), 0).chosen.shape
    (2,)
    """
    return dpo_collect(config, seed, list(dpo_steps(config, seed)))


__all__ = [
    "DPOConfig",
    "DPORun",
    "DPOStep",
    "displacement",
    "dpo_collect",
    "dpo_grads",
    "dpo_steps",
    "dpo_train",
    "kl_matched",
    "leader_at_kl",
    "measure_probe",
    "pairs_within_groups",
    "pass_at_kl",
    "probe",
    "sequence_log_probs",
    "split_change",
    "who_leads",
]
