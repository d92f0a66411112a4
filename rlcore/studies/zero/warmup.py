"""The base model: a deterministic supervised warm-up, and the frozen weights it ships as.

Run ``python -m rlcore.studies.zero.warmup`` to rebuild ``base.npz`` from fixed seeds and print what
the base does. Half of every batch answers at once, half shows s running results, s uniform over 0 … m − 2, so each
skill (the answer after s results, for every size m) is trained alike. Only the decision tokens are weighted:
the first answer token (``:`` or ``=``) so that the cross-entropy optimum starts working with probability
``start_share``, and each token after ``:`` or a running result that could still be followed by another (next
result or ``=``) so that the optimum keeps going with probability ``keep_share``. The base can work a problem out
step by step, but seldom writes much working.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...formulas.checks import count, in_range, positive
from ...formulas.policy import log_softmax
from . import task
from .model import Model, adam_init, adam_step, backward, forward, generate, init_model, log_prob_grad
from .task import END, PAD, VOCAB

BASE_PATH = Path(__file__).with_name("base.npz")


@dataclass(frozen=True)
class WarmupPlan:
    seed: int = 0
    width: int = 48
    layers: int = 1
    heads: int = 4
    hidden: int | None = None   # the MLP's width (None: 4 · width); its capacity sets how much it does in one pass
    batch: int = 128
    lr: float = 3e-3
    lr_end: float = 1e-4        # the step size decays geometrically from lr to lr_end over the steps
    steps: int = 6000
    start_share: float = 0.25   # the optimum's P(":" first)
    keep_share: float = 0.5     # the optimum's P(another result | one more is allowed)

    def __post_init__(self):
        count("seed", self.seed, low=0)
        count("width", self.width, low=1)
        count("layers", self.layers, low=1)
        if count("heads", self.heads, low=1) and self.width % self.heads:
            raise ValueError(f"heads must divide width ({self.width}), got {self.heads!r}")
        if self.hidden is not None:
            count("hidden", self.hidden, low=1)
        positive("lr", self.lr)
        positive("lr_end", self.lr_end)
        count("batch", self.batch, low=2)
        count("steps", self.steps, low=1)
        in_range("start_share", self.start_share, 0.01, 0.99)
        in_range("keep_share", self.keep_share, 0.01, 0.99)

    @property
    def examples(self) -> int:
        """Right answers the warm-up trains on."""
        return self.batch * self.steps


WARMUP = WarmupPlan()


def example_steps(rng: np.random.Generator, sizes: np.ndarray) -> np.ndarray:
    """The number of running results of each example: the first half of the rows AT_ONCE, the rest uniform 0 … m − 2."""
    s = rng.integers(0, sizes - 1)
    s[: len(sizes) // 2] = task.AT_ONCE
    return s


def decision_weights(sizes: np.ndarray, steps: np.ndarray, plan: WarmupPlan = WARMUP) -> np.ndarray:
    """Each answer token's weight in the loss [n, MAX_ANSWER]: 1 (0 on padding), but on the decision tokens the
    weights whose cross-entropy optimum is P(":") = start_share and P(go on | allowed) = keep_share, for
    example_steps' mix (half at once; s uniform).

    >>> decision_weights(np.array([3, 3, 4]), np.array([-1, 1, 0]))[:, :5].round(9).tolist()
    [[1.5, 1.0, 1.0, 0.0, 0.0], [0.5, 1.0, 1.0, 1.0, 1.0], [0.5, 1.5, 1.0, 1.0, 0.0]]
    """
    m, s = np.asarray(sizes), np.asarray(steps)
    worked = s != task.AT_ONCE
    w = (np.arange(task.MAX_ANSWER) < np.where(worked, s + 4, 3)[:, None]).astype(float)
    w[:, 0] = np.where(worked, plan.start_share / 0.5, (1 - plan.start_share) / 0.5)
    for i in range(task.MAX_SIZE - 2):                   # the token after i results, when one more is allowed
        at = worked & (s >= i) & (i <= m - 3)
        p = (m - 2 - i) / np.maximum(m - 1 - i, 1)    # the share of the rows at this point that go on
        go_on = plan.keep_share / np.maximum(p, 1e-9)
        stop = (1 - plan.keep_share) / np.maximum(1 - p, 1e-9)
        w[:, 1 + i] = np.where(at, np.where(s > i, go_on, stop), w[:, 1 + i])
    return w


def supervised_grads(model: Model, problems: np.ndarray, steps: np.ndarray, weights: np.ndarray) -> tuple[float, dict]:
    """Weighted mean cross-entropy of the right answer tokens, and its gradient."""
    ans = task.answers(problems, steps)
    seq = np.concatenate([task.prompts(problems), ans], axis=1)[:, :-1]
    fwd = forward(model, seq)
    start = task.PROMPT_LEN - 1
    lp = log_softmax(fwd.logits[:, start:])
    n = float(np.sum(ans != PAD))
    target = np.where(ans != PAD, ans, 0)
    loss = -float(np.sum(np.take_along_axis(lp, target[..., None], axis=-1)[..., 0] * weights) / n)
    dlogits = np.zeros_like(fwd.logits)
    dlogits[:, start:] = -log_prob_grad(lp, target, weights / n)
    return loss, backward(model, fwd, dlogits)


def _digit_init(model: Model, seed: int) -> Model:
    """``model`` with the number tokens' embeddings and output columns started as a tens part plus a units part
    (E[v] = T[v // 10] + U[v mod 10]): only a start, which training may leave, from which the last digit of a result
    (that depends only on the last digits of what it is made from) is as easy to learn as the tens."""
    rng = np.random.default_rng([seed, 7])
    v = np.arange(task.MODULUS)
    p = dict(model.params)
    for name, axis in (("tok", 0), ("wout", 1)):
        w = p[name].copy()
        width = w.shape[1 - axis]
        scale = np.std(w)
        tens, units = (rng.normal(0.0, scale / np.sqrt(2), (10, width)) for _ in range(2))
        parts = tens[v // 10] + units[v % 10]
        if axis == 0:
            w[:task.MODULUS] = parts
        else:
            w[:, :task.MODULUS] = parts.T
        p[name] = w
    return Model(p, model.heads)


def warm_up(plan: WarmupPlan = WARMUP, progress=None) -> Model:
    """Train a fresh model on right answers of every size and every amount of working; deterministic for the plan."""
    model = _digit_init(init_model(len(VOCAB), task.POSITIONS, plan.width, plan.layers, plan.heads, plan.hidden,
                                  seed=plan.seed), plan.seed)
    rng = np.random.default_rng(plan.seed + 1)
    held = task.held_out_problems()
    opt = adam_init(model)
    for step in range(1, plan.steps + 1):
        problems = task.sample_problems(rng, plan.batch, exclude=held)
        sizes = task.sizes_of(problems)
        steps = example_steps(rng, sizes)
        loss, grads = supervised_grads(model, problems, steps, decision_weights(sizes, steps, plan))
        lr = plan.lr * (plan.lr_end / plan.lr) ** ((step - 1) / max(plan.steps - 1, 1))
        model, opt, _ = adam_step(model, grads, opt, lr)
        if progress is not None:
            progress(step, loss)
    return model


def save_model(model: Model, path) -> None:
    np.savez_compressed(path, heads=np.array(model.heads), **{k: v.astype(np.float32) for k, v in model.params.items()})


def load_model(path) -> Model:
    with np.load(path) as f:
        return Model({k: f[k].astype(np.float64) for k in f.files if k != "heads"}, int(f["heads"]))


@functools.cache
def base_model() -> Model:
    """The shipped base model (the weights ``python -m rlcore.studies.zero.warmup`` writes)."""
    return load_model(BASE_PATH)


def forced_accuracy(model: Model, problems: np.ndarray) -> np.ndarray:
    """Teacher-forced: π(the right final digit) after the right working with s results, averaged per (size, s):
    [MAX_SIZE + 1, MAX_SIZE], row m, column s + 1 (column 0: at once); nan where s > m − 2."""
    m = task.sizes_of(problems)
    out = np.full((task.MAX_SIZE + 1, task.MAX_SIZE), np.nan)
    for s in range(task.AT_ONCE, task.MAX_SIZE - 1):
        rows = m - 2 >= s
        if not rows.any():
            continue
        p, steps = problems[rows], np.full(rows.sum(), s)
        ans = task.answers(p, steps)
        seq = np.concatenate([task.prompts(p), ans], axis=1)[:, :-1]
        lp = log_softmax(forward(model, seq).logits)
        at = task.PROMPT_LEN + (0 if s == task.AT_ONCE else s + 1)      # the slot that predicts the final digit
        prob = np.exp(lp[np.arange(len(p)), at, task.final_answers(p)])
        for size in np.unique(m[rows]):
            out[size, s + 1] = prob[m[rows] == size].mean()
    return out


@functools.cache
def _value_of_working() -> np.ndarray:
    acc = forced_accuracy(base_model(), task.held_out_problems())[task.SIZES]   # at once, then s = 0 … MAX_SIZE − 2
    out = np.concatenate([acc[:, :1], acc[:, 2:]], axis=1)  # ": = a" (s = 0) is as hard as at once: left out
    out.setflags(write=False)
    return out


def value_of_working() -> np.ndarray:
    """The shipped base's pass@1 by problem size and number of results written, [len(SIZES), MAX_SIZE − 1]: row m,
    column j the probability it gives the right answer after j right running results written for it (teacher-forced,
    so exactly its pass@1 there), on the held-out problems; column 0 answers at once; nan where j > m − 2."""
    return _value_of_working().copy()


def paying_steps(row: np.ndarray, share: float = 0.75) -> int:
    """How few of the last written results carry ``share`` of the gain from none written to all, on one size's row
    of ``value_of_working`` (nan past its end): 1 when the last alone does, the number of results when every one
    pays alike, 0 when writing does not pay at all.

    >>> paying_steps(np.array([0.2, 0.2, 0.2, 0.5, 1.0, np.nan])), paying_steps(np.array([0.2, 0.4, 0.6, 0.8]))
    (2, 3)
    """
    try:
        r = np.asarray(row, dtype=np.float64)
    except (TypeError, ValueError):
        r = np.zeros((0, 0))
    if r.ndim != 1:
        raise ValueError(f"row must be a sequence of numbers, got {row!r}")
    r = r[np.isfinite(r)]
    if r.size < 2 or r[-1] <= r[0]:
        return 0
    gain = r[-1] - r[0]
    carried = r[-1] - r[::-1][1:]           # the gain of the last 1, 2, … results
    return int(np.argmax(carried >= in_range("share", share, 0.0, 1.0) * gain)) + 1


@dataclass(frozen=True)
class Samples:
    """A model's own answers to problems, ``k`` each at temperature 1 (rows: problem-major)."""

    sizes: np.ndarray     # [n] operands of each answer's problem
    right: np.ndarray     # [n]
    length: np.ndarray    # [n] visible tokens
    worked: np.ndarray    # [n] whether it starts by showing working (":")

    def by_size(self, values: np.ndarray) -> dict[int, float]:
        return {int(m): float(values[self.sizes == m].mean()) for m in np.unique(self.sizes)}


def sample(model: Model, problems: np.ndarray, k: int, seed: int = 0) -> Samples:
    """``k`` answers per problem, sampled with a seeded generator, judged."""
    k = count("k", k, low=1, high=256)
    rows = np.repeat(problems, k, axis=0)
    seq = generate(model, task.prompts(rows), task.MAX_ANSWER, np.random.default_rng(seed), end=END, pad=PAD)
    ans = seq[:, task.PROMPT_LEN:]
    right = task.judge_batch(ans, rows)[0]
    return Samples(task.sizes_of(rows), right, task.answer_lengths(ans), ans[:, 0] == task.WORK)


@dataclass(frozen=True)
class BaseStats:
    """What the shipped base model does on the held-out problems: forced to write the right working, and freely."""

    sizes: np.ndarray      # [S] problem sizes (operands), ascending
    forced: np.ndarray     # [S, MAX_SIZE − 1] π(right answer) after j right running results written (column 0: at
                           # once), nan where j > m − 2
    pass1: float           # its own answers (16 per problem, temperature 1): the share right
    length: float          # their mean length in tokens
    worked_share: float    # the share that start by showing working (":")


def base_stats() -> BaseStats:
    """The shipped base model on the held-out problems (page 19's question and its account of the base).

    >>> s = base_stats()
    >>> s.sizes.tolist(), bool(s.forced[-1, 0] < s.forced[-1, -1])  # the largest problems: working pays
    ([2, 3, 4, 5, 6, 7], True)
    """
    model, held = base_model(), task.held_out_problems()
    free = sample(model, held, 16)
    return BaseStats(task.SIZES.copy(), value_of_working(), float(free.right.mean()), float(free.length.mean()),
                     float(free.worked.mean()))


def main() -> None:
    import time

    t0 = time.perf_counter()

    def progress(step, loss):
        if step % 250 == 0:
            print(f"step {step:5d}  loss {loss:.4f}  {time.perf_counter() - t0:6.1f} s", flush=True)

    save_model(warm_up(WARMUP, progress), BASE_PATH)
    model = load_model(BASE_PATH)
    print(f"wrote {BASE_PATH} ({BASE_PATH.stat().st_size} bytes)")
    held = task.held_out_problems()
    acc = forced_accuracy(model, held)
    print("teacher-forced π(right answer), rows m, columns at once, s = 0 … 5")
    for m in range(task.MIN_SIZE, task.MAX_SIZE + 1):
        print(f"  m={m}  " + "  ".join("  -  " if np.isnan(a) else f"{a:.2f}" for a in acc[m]))
    s = sample(model, held, 16)
    lengths, share = np.unique(s.length, return_counts=True)
    print(f"pass@1 {s.right.mean():.3f}, mean length {s.length.mean():.2f}, {len(lengths)} lengths: "
          + ", ".join(f"{n}: {c / len(s.length):.3f}" for n, c in zip(lengths, share, strict=True)))
    for m, (p1, ln) in enumerate(zip(s.by_size(s.right).values(), s.by_size(s.length).values(), strict=True)):
        print(f"  m={m + task.MIN_SIZE}  pass@1 {p1:.3f}  length {ln:.2f}")


if __name__ == "__main__":
    main()
