"""Page 19's sentences read from a run's numbers, each said only where the numbers show it: what the lengths did
(adaptive length, overthinking or neither), whether PPO's critic helped, and whether GRPO and Dr. GRPO differ in
how long their wrong answers grow (Liu et al. 2025)."""

from __future__ import annotations

import streamlit as st

import rlcore
from ui.format import fmt
from ui.i18n import t

PARTNER = {"grpo": "dr_grpo", "dr_grpo": "grpo"}  # the aggregations Liu et al. (2025) compare
CRITIC_HELPS = 0.2  # the explained variance (mean of the last 10 updates) from which the page calls the critic useful


def claims(run: rlcore.zero.ZeroRun) -> None:
    """What the lengths did, said from the numbers: adaptive length only with a length cost and where the run shows
    it (``adaptive_length``), overthinking where the smallest problems' answers grew, else what happened; and for PPO
    how much its critic helped (explained variance at the end below 0: not at all; below CRITIC_HELPS: hardly)."""
    if run.config.algorithm == "ppo" and run.updates:
        ev = run.explained_end
        case = "useless" if ev < 0 else "weak" if ev < CRITIC_HELPS else "helps"
        sees = "fit" if run.config.critic_refit else "head"
        st.markdown(t(f"p19.critic_{case}", ev=fmt(ev, 2), n=min(10, len(run.updates)))
                    + " " + t(f"p19.critic_sees_{sees}", decay=fmt(rlcore.zero.CRITIC_DECAY, 1)))
    small, large = run.length_by_size[:, 0], run.length_by_size[:, -1]
    free = run.config.length_cost == 0   # no cost: the page says what happened and claims no adaptive length
    case = ("overthinking" if small[-1] > small[0] + 0.5 else "free" if free else
            "adaptive" if run.adaptive_length else "neither")
    st.markdown(t(f"p19.length_{case}", small=run.sizes[0], large=run.sizes[-1], small_start=fmt(small[0], 1),
                  small_end=fmt(small[-1], 1), large_start=fmt(large[0], 1), large_end=fmt(large[-1], 1),
                  cost=fmt(run.config.length_cost, 2))
                + " " + t("p19.length_cost_on" if run.config.length_cost > 0 else "p19.length_cost_off")
                + (" " + t("p19.length_kl_on", beta=fmt(run.config.beta, 2))
                   if run.config.length_cost > 0 < run.config.beta else ""))


def aggregation(run: rlcore.zero.ZeroRun, other: rlcore.zero.ZeroRun | None) -> None:
    """Liu et al.'s lesson where the task can show it: the wrong answers' length under GRPO and Dr. GRPO at the same
    settings (``other``: the partner's run when the server holds it), and whether they differ."""
    said = dict(algo=t(f"p19.algorithms.{run.config.algorithm}"), start=fmt(run.wrong_length[0], 1),
                end=fmt(run.wrong_length[-1], 1), other=t(f"p19.algorithms.{PARTNER[run.config.algorithm]}"))
    if other is None:
        st.markdown(t("p19.agg_alone", **said))
        return
    pair = (run, other) if run.config.algorithm == "grpo" else (other, run)
    gap = pair[0].wrong_length_gap(pair[1])
    case = "same" if abs(gap) <= 0.5 else "longer" if gap > 0 else "shorter"
    st.markdown(t(f"p19.agg_{case}", **said, other_start=fmt(other.wrong_length[0], 1),
                  other_end=fmt(other.wrong_length[-1], 1), gap=fmt(abs(gap), 1), longest=rlcore.zero.LONGEST))
