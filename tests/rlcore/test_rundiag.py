"""rlcore.diagnose_run: logs built to show each finding (and logs that show none), each finding's steps, numbers
and thresholds; your_run puts the reader, the buckets and the findings together."""

from __future__ import annotations

import numpy as np
import pytest

import rlcore
from tests.rejects import rejects
from tests.rlcore.test_runlog import CASES, GRPO_020

T = np.arange(1, 41)
FALL = 2.0 * 0.9 ** T       # from 1.8 to 0.03: collapse
CALM = 1.0 + 0.01 * np.sin(T)


def log(algorithm=None, conventions=None, nonfinite=None, **series) -> rlcore.RunLog:
    return rlcore.RunLog("x", "csv", algorithm, T * 10, {k: np.asarray(v, float) for k, v in series.items()},
                         {k: k for k in series}, (), conventions=conventions or {}, nonfinite=nonfinite or {})


def jump(at, low, high):
    return np.where(at <= T, high, low)


# case → (log, the finding expected: kind, series, first step, evidence within 1e-9 relative)
CASES_FOUND = {
    "entropy collapse": (log(entropy=FALL), ("entropy_collapse", "entropy", 140,  # 0.9^14 < 0.3·0.77
                                                                  {"early": np.median(FALL[:4]),
                                                                                  "late": np.median(FALL[-4:])})),
    "KL running away": (log(kl=0.001 * 1.2 ** T), ("kl_runaway", "kl", 190,  # the middle tenth: steps 19 to 22
                                                   {"middle": 0.001 * np.median(1.2 ** T[18:22]),
                                                    "late": 0.001 * np.median(1.2 ** T[-4:])})),
    "a KL spike": (log(kl=np.where(T == 17, 2.0, 0.01)), ("kl_runaway", "kl", 170, {"peak": 2.0, "median": 0.01})),
    "answers at the length limit": (log(length_clipped=jump(30, 0.0, 0.4), length=jump(30, 500, 300)),
                                    ("length_limit", "length_clipped", 300, {"late": 0.4, "length_late": 300})),
    "dead groups": (log(zero_std_groups=jump(11, 0.2, 1.0)), ("dead_groups", "zero_std_groups", 110,
                                                              {"peak": 1.0, "all_dead_steps": 30})),
    "dead groups from reward_std": (log(reward_std=jump(36, 0.3, 0.0)), ("dead_groups", "reward_std", 360,
                                                                         {"all_dead_steps": 5})),
    "GRPO loss near 0": (log("grpo", loss=1e-4 * np.cos(T), grad_norm=CALM), ("loss_zero_expected", "loss", 10,
                                                                              {"grad_norm_median": np.median(CALM)})),
    "clip ratio 0": (log(clip_fraction=np.zeros(40)), ("clip_zero_expected", "clip_fraction", 10, {"max": 0.0})),
    "negative KL": (log(conventions={"ppo_kl": "old_minus_new"}, ppo_kl=np.where(T % 4 == 0, -0.002, 0.001)),
                    ("negative_kl", "ppo_kl", 40, {"lowest": -0.002, "share": 0.25})),
    "likelihood displacement": (log("dpo", chosen_logp=-100 - T, margin=0.1 * T, loss=0.5 + 0 * T),
                                ("displacement", "chosen_logp", 10, {"chosen_early": -102.5, "chosen_late": -138.5})),
    "displacement from the implicit rewards": (log("dpo", chosen_reward=-0.01 * T, rejected_reward=-0.05 * T),
                                               ("displacement", "chosen_reward", 10, {"margin_late": 0.04 * 38.5})),
    "reward up, validation flat": (log(reward=0.02 * T, val_score=np.where(T % 10 == 0, 0.3, np.nan)),
                                   ("reward_without_accuracy", "val_score", 10, {"val_first": .3, "val_last": .3})),
    "a critic that explains nothing": (log("ppo", explained_variance=0.02 + 0 * T),
                                       ("critic_blind", "explained_variance", 10, {"late": 0.02})),
    "non-finite": (log(nonfinite={"grad_norm": np.array([30, 70])}), ("non_finite", "grad_norm", 30, {"steps": 2})),
}


@pytest.mark.parametrize("case", list(CASES_FOUND))
def test_a_log_showing_a_finding_gives_it_with_its_steps_numbers_and_page(case):
    run, (kind, series, first, evidence) = CASES_FOUND[case]
    found = [f for f in rlcore.diagnose_run(run) if f.kind == kind]
    assert len(found) == 1, rlcore.diagnose_run(run)
    f = found[0]
    assert (f.series, f.first_step) == (series, first) and f.last_step >= first
    for k, v in evidence.items():
        assert f.evidence[k] == pytest.approx(v, rel=1e-9), k
    assert f.page in {"p3", "p4", "p6", "p8_kl", "p8_ratio", "p10", "p12", "p15", "p17", "p18"}
    assert all(rlcore.THRESHOLDS[k] == v for k, v in f.thresholds.items())


QUIET = {
    "KL that levels off": log(kl=0.3 * (1 - 0.8 ** T)),
    "one step whose groups all tied": log(zero_std_groups=np.where(T == 7, 1.0, 0.1)),
    "calm entropy, KL and clips": log("grpo", entropy=CALM, kl=0.01 * CALM, clip_fraction=0.05 * CALM,
                                      loss=0.3 * CALM, length_clipped=0.01 * CALM, zero_std_groups=0.1 * CALM),
    "DPO with chosen rising": log("dpo", chosen_logp=-100 + T, margin=0.1 * T, loss=0.0 * T),
    "reward and validation rising together": log(reward=0.02 * T, val_score=np.where(T % 10 == 0, T / 100, np.nan)),
    "a critic that learns": log("ppo", explained_variance=np.linspace(0, 0.8, 40)),
    "too short to tell": log(entropy=np.where(T < 4, FALL, np.nan), kl=np.where(T < 5, T / 10, np.nan)),
    "nothing logged": log(),
}


@pytest.mark.parametrize("case", list(QUIET))
def test_a_log_with_nothing_to_flag_gives_no_finding(case):
    assert rlcore.diagnose_run(QUIET[case]) == []


def test_the_hand_written_logs_give_the_findings_a_practitioner_names():
    kinds = {name: {f.kind for f in rlcore.diagnose_run(rlcore.read_run(data, "x"))}
             for name, (data, *_) in CASES.items()}
    assert kinds["TRL GRPO v0.20"] == {"non_finite"}  # two steps: too short for a trend, NaN and inf said
    assert "negative_kl" in kinds["verl console, old names"] and "negative_kl" in kinds["OpenRLHF"]
    assert "negative_kl" in kinds["TRL PPO"]


def test_your_run_reads_buckets_and_diagnoses():
    run = rlcore.your_run(GRPO_020, "trainer_state.json", most=1)
    assert run.log.steps.tolist() == [5, 10] and run.buckets.first.tolist() == [5]
    assert [f.kind for f in run.findings] == ["non_finite"] and run.findings[0].series == "grad_norm"
    rejects(lambda: rlcore.diagnose_run("not a log"), "log must be a RunLog")
    rejects(lambda: rlcore.your_run(GRPO_020, "x", most=0), "most")
