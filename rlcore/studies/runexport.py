"""The explorer's own runs written as real training logs: a TRL ``trainer_state.json`` and verl's JSON lines,
with those trainers' key names, from R1-Zero in miniature (a ``ZeroRun``) or from the training lab (a
``LabHistory``). ``read_run`` reads them back to the same curves (tests/rlcore/test_runexport.py).

What each log holds, per update (step 1 on): the batch's mean reward, its spread within groups and the share
of groups whose rewards are all equal, the answers' length and the share cut at the length limit, the share of
tokens the clip zeroed, the KL to the base model, the entropy and the held-out pass@1 (the miniature measures
the last three on its held-out problems after the step; the lab computes them exactly).
"""

from __future__ import annotations

import json
import pathlib

import numpy as np

from ..formulas.checks import choice, count
from ..formulas.example import ARTICLE_SCENARIO
from .lab import LabConfig, LabHistory
from .lab import train as lab_train
from .rundiag import YourRun, your_run
from .zero import task
from .zero.training import ZeroConfig, ZeroRun
from .zero.training import train as zero_train

__all__ = ["EXAMPLE_LOGS", "example_file", "example_log", "example_run", "lab_logs", "make_example", "run_log_trl",
           "run_log_verl", "run_metrics"]

# canonical name → (TRL GRPOTrainer's key, verl's key); None where that trainer logs no such number
KEYS = {
    "reward": ("reward", "critic/score/mean"),
    "reward_max": (None, "critic/score/max"),
    "reward_min": (None, "critic/score/min"),
    "reward_std": ("reward_std", None),
    "zero_std_groups": ("frac_reward_zero_std", None),
    "length": ("completions/mean_length", "response_length/mean"),
    "length_max": ("completions/max_length", "response_length/max"),
    "length_clipped": ("completions/clipped_ratio", "response_length/clip_ratio"),
    "clip_fraction": ("clip_ratio/region_mean", "actor/pg_clipfrac"),
    "kl": ("kl", "actor/kl_loss"),
    "entropy": ("entropy", "actor/entropy"),
    "loss": ("loss", "actor/pg_loss"),
    "grad_norm": ("grad_norm", "actor/grad_norm"),
    "lr": ("learning_rate", "actor/lr"),
    "explained_variance": (None, "critic/vf_explained_var"),
    "val_score": ("eval_rewards/accuracy_reward/mean", "val-core/arithmetic/acc/mean@1"),
}
EVAL = ("val_score",)  # written in eval rows (TRL) / validation entries (verl), with the step they follow


def _groups(score: np.ndarray, group_size: int) -> np.ndarray:
    return score.reshape(-1, group_size)


def _zero_metrics(run: ZeroRun) -> dict[str, np.ndarray]:
    c = run.config
    out: dict[str, list[float]] = {k: [] for k in ("reward", "reward_max", "reward_min", "reward_std",
                                                   "zero_std_groups", "length", "length_max", "length_clipped",
                                                   "clip_fraction")}
    for u in run.updates:
        g = _groups(u.score, c.group_size)
        ended = (u.answers == task.END) | (u.answers == task.PAD)
        visible = np.where(ended.any(axis=1), ended.argmax(axis=1), u.answers.shape[1])  # tokens before <end>
        for name, value in (("reward", u.score.mean()), ("reward_max", u.score.max()), ("reward_min", u.score.min()),
                            ("reward_std", g.std(axis=1, ddof=1).mean()),
                            ("zero_std_groups", (g.max(axis=1) == g.min(axis=1)).mean()),
                            ("length", visible.mean()), ("length_max", visible.max()),
                            ("length_clipped", (~ended.any(axis=1)).mean()),
                            ("clip_fraction", (u.clipped & u.mask).sum() / max(u.mask.sum(), 1))):
            out[name].append(float(value))
    steps = len(run.updates)
    metrics = {k: np.asarray(v, dtype=np.float64) for k, v in out.items()}
    metrics.update(kl=run.kl[1:steps + 1], entropy=run.entropy[1:steps + 1], val_score=run.pass1[1:steps + 1],
                   lr=np.full(steps, float(c.lr)))
    if np.isfinite(run.explained).any():
        metrics["explained_variance"] = run.explained
    return metrics


def _lab_metrics(h: LabHistory, seed: int) -> dict[str, np.ndarray]:
    steps = h.mean_score.shape[1]
    sc = h.scores[seed]
    metrics = {"reward": h.mean_score[seed], "reward_max": sc.max(axis=1), "reward_min": sc.min(axis=1),
               "reward_std": sc.std(axis=1, ddof=1), "zero_std_groups": h.dead[seed].astype(np.float64),
               "length": h.mean_length[seed, 1:steps + 1], "clip_fraction": h.clip_fraction[seed],
               "kl": h.kl[seed, 1:steps + 1], "entropy": h.entropy[seed, 1:steps + 1], "loss": h.loss[seed],
               "grad_norm": h.grad_norm[seed], "val_score": h.p_correct[seed, 1:steps + 1]}
    if h.actions.shape[-1] > 2:  # length tokens: an answer that used the last one ran to the limit
        metrics["length_clipped"] = (h.actions[seed, :, :, -1] >= 0).mean(axis=1)
    return metrics


def run_metrics(run, seed: int = 0) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The steps (1 … T) and, by canonical name, the numbers a log of ``run`` holds (see the module's docstring).

    Args:
        run: a ``ZeroRun`` (``rlcore.zero.train``) or a ``LabHistory`` (``rlcore.lab.train``).
        seed: which of a LabHistory's seeds (its row), 0 to S − 1; a ZeroRun has one.

    Returns:
        (steps [T], {canonical name: [T]}).

    >>> import rlcore
    >>> h = rlcore.lab.train(rlcore.ARTICLE_SCENARIO, rlcore.LabConfig(steps=4), seeds=(0, 1))
    >>> steps, m = run_metrics(h, seed=1)
    >>> steps.tolist(), m["reward"].shape
    ([1, 2, 3, 4], (4,))
    """
    if isinstance(run, ZeroRun):
        metrics = _zero_metrics(run)
    elif isinstance(run, LabHistory):
        rows = run.mean_score.shape[0]
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < rows:
            raise ValueError(f"seed must be a row of the run, 0 to {rows - 1}, got {seed!r}")
        metrics = _lab_metrics(run, int(seed))
    else:
        raise ValueError(f"run must be a ZeroRun or a LabHistory, got {type(run).__name__}")
    steps = np.arange(1, len(metrics["reward"]) + 1, dtype=np.int64)
    return steps, {k: np.asarray(v, dtype=np.float64) for k, v in metrics.items()}


def _rows(run, seed: int, which: int):
    """(step, train values, eval values) by the trainer's (0 TRL, 1 verl) key names, finite values only."""
    steps, metrics = run_metrics(run, seed)
    for i, step in enumerate(steps.tolist()):
        train, ev = {}, {}
        for name, v in metrics.items():
            key = KEYS[name][which]
            if key is not None and np.isfinite(v[i]):
                (ev if name in EVAL else train)[key] = round(float(v[i]), 10)
        yield step, train, ev


def run_log_trl(run, seed: int = 0) -> bytes:
    """``run`` as TRL's GRPOTrainer writes ``trainer_state.json``: one log_history row per step with its metrics
    (GRPOTrainer's key names, whatever the run's algorithm: a reader takes it for GRPO), an eval row per step with
    the held-out pass@1, and the summary row TRL ends with.

    >>> import rlcore
    >>> h = rlcore.lab.train(rlcore.ARTICLE_SCENARIO, rlcore.LabConfig(steps=3), seeds=(0,))
    >>> rlcore.read_run(run_log_trl(h), "trainer_state.json").steps.tolist()
    [1, 2, 3]
    """
    history = []
    for step, train, ev in _rows(run, seed, 0):
        history.append({"step": step, **train})
        if ev:
            history.append({"step": step, **{k: v for k, v in ev.items()}})
    last = history[-1]["step"] if history else 0
    history.append({"step": last, "train_runtime": 0.0, "total_flos": 0.0})
    doc = {"global_step": last, "max_steps": last, "log_history": history, "trial_name": None}
    return json.dumps(doc, indent=2).encode()


def run_log_verl(run, seed: int = 0) -> bytes:
    """``run`` as verl's file logger writes it: one JSON line ``{"step": N, "data": {…}}`` per step, verl's key
    names, the validation score in the same step's entry.

    >>> import rlcore
    >>> h = rlcore.lab.train(rlcore.ARTICLE_SCENARIO, rlcore.LabConfig(steps=2), seeds=(0,))
    >>> run_log_verl(h).decode().splitlines()[0][:40]
    '{"step": 1, "data": {"critic/score/mean"'
    """
    lines = [json.dumps({"step": step, "data": {**train, **ev}}) for step, train, ev in _rows(run, seed, 1)]
    return ("\n".join(lines) + "\n").encode()



def lab_logs(scenario, config: LabConfig, seed: int = 0) -> dict[str, bytes]:
    """One lab run (``lab.train`` for one seed: its row of the lab's bands, since the seeds share nothing) as the
    logs the lab page offers: {"verl": its JSON lines, "trl": its trainer_state.json}, with no "trl" for PPO
    (``run_log_trl`` writes GRPOTrainer's keys, and a reader would take it for GRPO).

    >>> import rlcore
    >>> logs = lab_logs(rlcore.ARTICLE_SCENARIO, rlcore.LabConfig(steps=2))
    >>> sorted(logs), rlcore.read_run(logs["verl"], "lab.jsonl").steps.tolist()
    (['trl', 'verl'], [1, 2])
    """
    h = lab_train(scenario, config, seeds=(count("seed", seed, low=0),))
    verl = {"verl": run_log_verl(h)}
    return verl if config.algorithm == "ppo" else {**verl, "trl": run_log_trl(h)}

# The examples the "Your run" page offers, all made here: name → (source, config, trainer whose log it is).
# The miniature's take a minute or two to train, so scripts/make_run_examples.py stores them in runs/; the lab's
# trains in a fraction of a second and is made when asked.
EXAMPLES = {
    "healthy": ("zero", dict(beta=0.3, steps=60), "trl"),
    "entropy_collapse": ("zero", dict(lr=3e-3, steps=100), "verl"),
    "length_limit": ("lab", dict(algorithm="ppo", flattery=False, length=6, lr=0.1, steps=300, beta=0.0), "verl"),
}
EXAMPLE_LOGS = tuple(EXAMPLES)
RUNS_DIR = pathlib.Path(__file__).resolve().parent / "runs"


def example_file(name: str) -> pathlib.Path:
    """Where a stored example lives (``runs/<name>.<trainer's file>``).

    >>> example_file("healthy").name
    'healthy.trainer_state.json'
    """
    name = choice("name", name, tuple(EXAMPLES))
    return RUNS_DIR / (f"{name}.trainer_state.json" if EXAMPLES[name][2] == "trl" else f"{name}.verl.jsonl")


def make_example(name: str) -> bytes:
    """Train the example's run from scratch and write its log (what the script stores for the miniature's).

    >>> make_example("length_limit")[:12]
    b'{"step": 1, '
    """
    source, config, trainer = EXAMPLES[choice("name", name, tuple(EXAMPLES))]
    if source == "zero":
        run = zero_train(ZeroConfig(**config), 0)
    else:
        run = lab_train(ARTICLE_SCENARIO, LabConfig(**config), seeds=(0,))
    return (run_log_trl if trainer == "trl" else run_log_verl)(run)


def example_log(name: str) -> bytes:
    """The bytes of one of the page's examples (``EXAMPLES``): the stored file, or the lab's run made now.

    >>> example_log("healthy")[:17]
    b'{\\n  "global_step"'
    """
    source = EXAMPLES[choice("name", name, tuple(EXAMPLES))][0]
    return make_example(name) if source == "lab" else example_file(name).read_bytes()


def example_run(name: str, most: int = 400) -> YourRun:
    """One of the page's examples read, bucketed (at most ``most`` buckets) and diagnosed, as ``your_run`` does.

    >>> [f.kind for f in example_run("entropy_collapse", 50).findings]
    ['entropy_collapse', 'clip_zero_expected']
    """
    return your_run(example_log(name), name, most)
