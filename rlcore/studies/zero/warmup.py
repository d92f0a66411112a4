"""The base model: a deterministic supervised warm-up, and the frozen weights it ships as.

Run ``python -m rlcore.studies.zero.warmup`` to rebuild ``base.npz`` from fixed seeds and print what the base model can
do. On the machine that wrote it, the script writes the same file again, bit for bit. On another processor numpy
picks other SIMD kernels for exp, tanh, matmul …, whose last bits differ, so the rebuilt float32 weights equal
the shipped ones within rounding (about one float32 step; tests/zero/test_zero_warmup.py checks a short warm-up
across kernels to 1e-9 and the whole one against the file to rtol 1e-5), not exactly.

Every example batch is half worked answers, half immediate ones, all the way through: both forms are trained
equally long, so a weak immediate answer is the task's doing (four operations composed in one pass), not a
starved skill. Only the first answer token — the choice of form — is weighted so that the model learns to
start with ``:`` in ``choice_share`` of its answers: the base can work the problem out, but mostly answers at
once, as R1-Zero's base could reason but rarely wrote long reasoning.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...formulas.policy import log_softmax
from . import task
from .model import Model, adam_init, adam_step, backward, forward, generate, init_model, log_prob_grad

BASE_PATH = Path(__file__).with_name("base.npz")


@dataclass(frozen=True)
class WarmupPlan:
    seed: int = 0
    width: int = 48
    layers: int = 1
    heads: int = 4
    batch: int = 128
    lr: float = 3e-3
    steps: int = 1200
    worked_share: float = 0.5    # the share of examples that show their working
    choice_share: float = 0.04   # the share of answers the model learns to start with ":"

    @property
    def examples(self) -> int:
        return self.batch * self.steps

    @property
    def worked_examples(self) -> int:
        return round(self.batch * self.worked_share) * self.steps


WARMUP = WarmupPlan()


def supervised_grads(model: Model, problems: np.ndarray, worked: np.ndarray,
                     first_weight: np.ndarray | None = None) -> tuple[float, dict]:
    """Mean cross-entropy of the right answer tokens (worked or at once per row) and its gradient.

    ``first_weight`` [n]: each row's weight on its first answer token (the choice of form); None: 1.
    """
    ans = task.answers(problems, worked)
    seq = np.concatenate([task.prompts(problems), ans], axis=1)[:, :-1]    # the last slot is never an input
    fwd = forward(model, seq)
    start = task.PROMPT_LEN - 1                                             # logits here predict answer token 0
    logits = fwd.logits[:, start:]
    mask = (ans != task.PAD).astype(float)
    n = mask.sum()
    if first_weight is not None:
        mask[:, 0] = first_weight
    lp = log_softmax(logits)
    target = np.where(ans != task.PAD, ans, 0)
    loss = -float(np.sum(np.take_along_axis(lp, target[..., None], axis=-1)[..., 0] * mask) / n)
    dlogits = np.zeros_like(fwd.logits)
    dlogits[:, start:] = -log_prob_grad(lp, target, mask / n)
    return loss, backward(model, fwd, dlogits)


def warm_up(plan: WarmupPlan = WARMUP, progress=None) -> Model:
    """Train a fresh model on right answers; deterministic for the plan."""
    model = init_model(len(task.VOCAB), task.POSITIONS, plan.width, plan.layers, plan.heads, seed=plan.seed)
    rng = np.random.default_rng(plan.seed + 1)
    held = task.held_out_problems()
    opt = adam_init(model)
    n_worked = round(plan.batch * plan.worked_share)
    worked = np.arange(plan.batch) < n_worked
    share = n_worked / plan.batch
    # the choice of form: weights whose cross-entropy optimum is π(":") = choice_share
    first = np.where(worked, plan.choice_share / share, (1 - plan.choice_share) / (1 - share))
    for step in range(1, plan.steps + 1):
        problems = task.sample_problems(rng, plan.batch, exclude=held)
        loss, grads = supervised_grads(model, problems, worked, first)
        model, opt, _ = adam_step(model, grads, opt, plan.lr)
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


@dataclass(frozen=True)
class FormStats:
    """What a model does on a set of problems, sampled at temperature 1."""

    worked_share: float      # share of its own answers that show their working
    pass1: float             # share of its own answers that are right
    worked_right: float      # right answers when it is made to start with ":"
    immediate_right: float   # right answers when it is made to start with "="


def form_stats(model: Model, problems: np.ndarray, samples: int, seed: int = 0) -> FormStats:
    """Sample each problem ``samples`` times freely, then forced into each form, and judge every answer."""
    rng = np.random.default_rng(seed)
    probs = np.repeat(problems, samples, axis=0)
    base = task.prompts(probs)

    def run(prefix):
        prompt = base if prefix is None else np.concatenate([base, np.full((len(base), 1), prefix)], axis=1)
        out = generate(model, prompt, task.MAX_ANSWER - (prefix is not None), rng, end=task.END, pad=task.PAD)
        ans = out[:, task.PROMPT_LEN:]
        right, _, _ = task.judge_batch(ans, probs)
        return ans, right

    ans, right = run(None)
    _, w_right = run(task.WORK)
    _, i_right = run(task.EQUALS)
    return FormStats(float(np.mean(ans[:, 0] == task.WORK)), float(right.mean()), float(w_right.mean()),
                     float(i_right.mean()))


def base_stats() -> FormStats:
    """What the shipped base model does on the held-out problems, 16 answers each: free, then forced into each form
    (page 19's question and its account of the base).

    >>> s = base_stats()
    >>> 0 <= s.immediate_right <= 1 and 0 <= s.worked_right <= 1
    True
    """
    return form_stats(base_model(), task.held_out_problems(), 16)


def main() -> None:
    import time

    t0 = time.perf_counter()

    def progress(step, loss):
        if step % 250 == 0:
            print(f"step {step:5d}  loss {loss:.4f}  {time.perf_counter() - t0:6.1f} s", flush=True)

    model = warm_up(WARMUP, progress)
    save_model(model, BASE_PATH)
    s = form_stats(load_model(BASE_PATH), task.held_out_problems(), 16)
    print(f"wrote {BASE_PATH} ({BASE_PATH.stat().st_size} bytes), {WARMUP.examples} examples, "
          f"{WARMUP.worked_examples} worked")
    print(f"base: worked share {s.worked_share:.3f}, pass@1 {s.pass1:.3f}, worked right {s.worked_right:.3f}, "
          f"immediate right {s.immediate_right:.3f}, gap {s.worked_right - s.immediate_right:+.3f}")


if __name__ == "__main__":
    main()
