"""What a training log shows, by the explorer's concepts: each finding with the steps and numbers it rests on,
the thresholds it used, and the page that teaches it. A log with nothing to flag gives an empty list.

The thresholds are this module's constants (``THRESHOLDS``), stated in every finding. Early and late values are
medians of a log's first and last tenth of the steps that logged the quantity (at least one step each).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..formulas.checks import count
from .runlog import RunBuckets, RunLog, read_run, run_buckets

__all__ = ["THRESHOLDS", "Finding", "YourRun", "diagnose_run", "your_run"]

THRESHOLDS = {
    "entropy_kept": 0.3,       # entropy collapse: late entropy at most this share of the early one
    "kl_growth": 3.0,          # KL running away: late KL at least this many times the KL halfway through …
    "kl_high": 0.05,           # … and at least this many nats (also the least a spike must reach)
    "kl_spike": 10.0,          # a KL spike: one step at least this many times the run's median KL
    "clipped_share": 0.1,      # answers at the length limit: late share cut at the limit at least this
    "dead_share": 0.5,         # dead groups: mean share of groups with zero reward spread at least this,
    "all_dead_steps": 0.05,    # or this share of the steps (at least one) with every group's spread zero
    "loss_zero": 0.01,         # "loss ≈ 0": median |loss| at most this
    "clip_zero": 1e-9,         # "clip ratio 0": every logged clip fraction at most this
    "logp_drop": 0.1,          # displacement: chosen log-prob fell by at least this many nats …
    "margin_rise": 0.1,        # … while the margin grew by at least this
    "reward_rise": 0.5,        # reward rose by at least this share of its own spread (5th to 95th percentile) …
    "val_flat": 0.02,          # … while the validation score moved less than this
    "critic_ev": 0.1,          # a critic that explains nothing: late explained variance at most this
}
MIN_POINTS = 5       # a trend needs at least this many logged steps (3 for a validation score)
MAX_NON_FINITE = 20  # at most this many non_finite findings (one per key)
PAGES = {"entropy_collapse": "p15", "kl_runaway": "p8_kl", "length_limit": "p10", "dead_groups": "p12",
         "loss_zero_expected": "p4", "clip_zero_expected": "p8_ratio", "negative_kl": "p8_kl",
         "displacement": "p18", "reward_without_accuracy": "p17", "critic_blind": "p3", "non_finite": "p6"}
_DPO = ("dpo", "online_dpo", "orpo")


@dataclass(frozen=True)
class Finding:
    """One thing a log shows: its kind, where (first and last step), the numbers it rests on, the thresholds."""

    kind: str                      # one of PAGES' keys
    first_step: int
    last_step: int
    evidence: dict[str, float]     # the numbers (early, late, peak, share …)
    page: str                      # the catalogue table of the page that teaches it ("p15")
    series: str                    # the canonical name (or, for non_finite, the log's own key) it reads
    thresholds: dict[str, float] = field(default_factory=dict)
    detail: str | None = None      # a variant: "growth" / "spike", the KL estimator, "reward_std"


@dataclass(frozen=True)
class YourRun:
    """What the "Your run" page shows: the log, its buckets and its findings."""

    log: RunLog
    buckets: RunBuckets
    findings: tuple[Finding, ...]


def _points(log: RunLog, name: str) -> tuple[np.ndarray, np.ndarray]:
    v = log.series.get(name)
    if v is None:
        return np.zeros(0, np.int64), np.zeros(0)
    ok = np.isfinite(v)
    return log.steps[ok], v[ok]


def _ends(v: np.ndarray) -> tuple[float, float]:
    k = max(1, v.size // 10)
    return float(np.median(v[:k])), float(np.median(v[-k:]))


def _finding(kind, steps, first, series, evidence, keys, detail=None) -> Finding:
    return Finding(kind, int(first), int(steps[-1]), {k: float(x) for k, x in evidence.items()}, PAGES[kind],
                   series, {k: THRESHOLDS[k] for k in keys}, detail)


def _entropy(log):
    s, v = _points(log, "entropy")
    if v.size < MIN_POINTS:
        return []
    early, late = _ends(v)
    if early <= 0 or late > THRESHOLDS["entropy_kept"] * early:
        return []
    first = s[np.argmax(v <= THRESHOLDS["entropy_kept"] * early)]
    return [_finding("entropy_collapse", s, first, "entropy", {"early": early, "late": late, "ratio": late / early},
                     ["entropy_kept"])]


def _kl(log):
    s, v = _points(log, "kl")
    if v.size < MIN_POINTS:
        return []
    k = max(1, v.size // 10)
    mid_at = max(0, v.size // 2 - k // 2)
    early, late = _ends(v)
    mid = float(np.median(v[mid_at:mid_at + k]))
    median = float(np.median(v))
    peak_at = int(np.argmax(v))
    if late >= THRESHOLDS["kl_growth"] * max(mid, 1e-6) and late >= THRESHOLDS["kl_high"]:
        return [_finding("kl_runaway", s, s[mid_at], "kl", {"early": early, "middle": mid, "late": late,
                         "times": late / max(mid, 1e-6), "peak": v[peak_at]}, ["kl_growth", "kl_high"], "growth")]
    if v[peak_at] >= THRESHOLDS["kl_spike"] * max(median, 1e-6) and v[peak_at] >= THRESHOLDS["kl_high"]:
        return [_finding("kl_runaway", s[peak_at:peak_at + 1], s[peak_at], "kl",
                         {"median": median, "peak": v[peak_at], "times": v[peak_at] / max(median, 1e-6)},
                         ["kl_spike", "kl_high"], "spike")]
    return []


def _negative_kl(log):
    out = []
    for name in ("kl", "ppo_kl"):
        s, v = _points(log, name)
        below = v < 0
        if below.any():
            low = int(np.argmin(v))
            out.append(_finding("negative_kl", s[below], s[below][0], name,
                                {"lowest": v[low], "lowest_step": s[low], "share": below.mean(), "steps": below.sum()},
                                [], log.conventions.get(name)))
    return out


def _length(log):
    s, v = _points(log, "length_clipped")
    if v.size < 3:
        return []
    early, late = _ends(v)
    if late < THRESHOLDS["clipped_share"]:
        return []
    evidence = {"early": early, "late": late, "peak": v.max()}
    lv = _points(log, "length")[1]
    if lv.size >= 3:
        evidence["length_early"], evidence["length_late"] = _ends(lv)
    first = s[np.argmax(v >= THRESHOLDS["clipped_share"])]
    return [_finding("length_limit", s, first, "length_clipped", evidence, ["clipped_share"])]


def _dead(log):
    s, v = _points(log, "zero_std_groups")
    if v.size:
        all_dead = v >= 1 - 1e-9
        if v.mean() >= THRESHOLDS["dead_share"] or all_dead.mean() >= THRESHOLDS["all_dead_steps"]:
            first = s[np.argmax((v >= THRESHOLDS["dead_share"]) | all_dead)]
            return [_finding("dead_groups", s, first, "zero_std_groups",
                             {"mean": v.mean(), "peak": v.max(), "all_dead_steps": all_dead.sum()},
                             ["dead_share", "all_dead_steps"])]
        return []
    s, v = _points(log, "reward_std")
    flat = v <= 1e-9
    if flat.size and flat.mean() >= THRESHOLDS["all_dead_steps"]:
        return [_finding("dead_groups", s[flat], s[flat][0], "reward_std", {"all_dead_steps": flat.sum(),
                         "share": flat.mean()}, ["all_dead_steps"], "reward_std")]
    return []


def _loss_and_clip(log):
    out = []
    if log.algorithm in _DPO:
        return out
    s, v = _points(log, "loss")
    if v.size >= 3 and np.median(np.abs(v)) <= THRESHOLDS["loss_zero"]:
        evidence = {"median_abs": np.median(np.abs(v)), "max_abs": np.abs(v).max()}
        gv = _points(log, "grad_norm")[1]
        if gv.size:
            evidence["grad_norm_median"] = np.median(gv)
        out.append(_finding("loss_zero_expected", s, s[0], "loss", evidence, ["loss_zero"]))
    s, v = _points(log, "clip_fraction")
    if v.size >= 3 and v.max() <= THRESHOLDS["clip_zero"]:
        out.append(_finding("clip_zero_expected", s, s[0], "clip_fraction", {"max": v.max(), "steps": v.size},
                            ["clip_zero"]))
    return out


def _displacement(log):
    """The chosen answers' log-probability (or, where only it is logged, their implicit reward β·log π/π_ref)
    falling while the margin grows."""
    name = "chosen_logp" if "chosen_logp" in log.series else "chosen_reward"
    margin = log.series.get("margin")
    if margin is None and {"chosen_reward", "rejected_reward"} <= set(log.series):
        margin = log.series["chosen_reward"] - log.series["rejected_reward"]
    if name not in log.series or margin is None:
        return []
    chosen = log.series[name]
    ok = np.isfinite(chosen) & np.isfinite(margin)
    if ok.sum() < 3:
        return []
    c0, c1 = _ends(chosen[ok])
    m0, m1 = _ends(margin[ok])
    if c0 - c1 < THRESHOLDS["logp_drop"] or m1 - m0 < THRESHOLDS["margin_rise"]:
        return []
    evidence = {"chosen_early": c0, "chosen_late": c1, "margin_early": m0, "margin_late": m1}
    r = log.series.get("rejected_logp" if name == "chosen_logp" else "rejected_reward")
    if r is not None and np.isfinite(r[ok]).all():
        evidence["rejected_early"], evidence["rejected_late"] = _ends(r[ok])
    return [_finding("displacement", log.steps[ok], log.steps[ok][0], name, evidence, ["logp_drop", "margin_rise"],
                     None if name == "chosen_logp" else "implicit_reward")]


def _reward_vs_val(log):
    s, r = _points(log, "reward")
    vs, v = _points(log, "val_score")
    if r.size < MIN_POINTS or v.size < 3:
        return []
    r0, r1 = _ends(r)
    spread = float(np.percentile(r, 95) - np.percentile(r, 5))
    v0, v1 = float(v[0]), float(v[-1])
    if spread <= 0 or r1 - r0 < THRESHOLDS["reward_rise"] * spread or abs(v1 - v0) >= THRESHOLDS["val_flat"]:
        return []
    return [_finding("reward_without_accuracy", s, s[0], "val_score",
                     {"reward_early": r0, "reward_late": r1, "reward_spread": spread, "val_first": v0, "val_last": v1,
                      "val_first_step": vs[0], "val_last_step": vs[-1]}, ["reward_rise", "val_flat"])]


def _critic(log):
    s, v = _points(log, "explained_variance")
    if v.size < 3:
        return []
    early, late = _ends(v)
    if late > THRESHOLDS["critic_ev"]:
        return []
    return [_finding("critic_blind", s, s[0], "explained_variance", {"early": early, "late": late, "best": v.max()},
                     ["critic_ev"])]


def _non_finite(log):
    out = []
    for key, steps in list(log.nonfinite.items())[:MAX_NON_FINITE]:
        out.append(Finding("non_finite", int(steps[0]), int(steps[-1]), {"steps": float(steps.size)},
                           PAGES["non_finite"], key))
    return out


CHECKS = (_entropy, _kl, _negative_kl, _length, _dead, _loss_and_clip, _displacement, _reward_vs_val, _critic,
          _non_finite)


def diagnose_run(log: RunLog) -> list[Finding]:
    """The findings a log's curves give, in a fixed order (``CHECKS``); ``[]`` when there is nothing to flag.

    Kinds: entropy_collapse, kl_runaway (growth or a spike), length_limit, dead_groups, loss_zero_expected,
    clip_zero_expected, negative_kl (with the convention of the key that logged it), displacement,
    reward_without_accuracy, critic_blind, non_finite. Each names its first and last step, the numbers it rests
    on (``evidence``), the thresholds (``THRESHOLDS``) and the page that teaches it.

    Args:
        log: a RunLog from ``read_run``.

    Returns:
        list of Finding(kind, first_step, last_step, evidence, page, series, thresholds, detail).

    >>> log = read_run(b"step,entropy\\n" + b"".join(b"%d,%g\\n" % (s, 2 * 0.7 ** s) for s in range(20)), "x")
    >>> [(f.kind, f.first_step, round(f.evidence["ratio"], 3)) for f in diagnose_run(log)]
    [('entropy_collapse', 4, 0.002)]
    """
    if not isinstance(log, RunLog):
        raise ValueError(f"log must be a RunLog (from read_run), got {type(log).__name__}")
    return [f for check in CHECKS for f in check(log)]


def your_run(data: bytes, name: str, most: int = 400) -> YourRun:
    """Read a log, bucket it for drawing (at most ``most`` buckets) and diagnose it: all the "Your run" page shows.

    >>> run = your_run(b"step,kl\\n1,0.1\\n2,-0.2\\n", "log.csv", 1)
    >>> run.buckets.high["kl"].tolist(), [f.kind for f in run.findings]
    ([0.1], ['negative_kl'])
    """
    most = count("most", most)
    log = read_run(data, name)
    return YourRun(log, run_buckets(log, most), tuple(diagnose_run(log)))
