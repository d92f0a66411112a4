"""rlcore.read_run on small logs written here in each trainer's shape (TRL, verl, OpenRLHF, a tracker's CSV),
the bad inputs it must refuse with a message naming the problem, a fuzz of broken logs, and run_buckets."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import rlcore
from tests.rejects import rejects


def hf(rows, **extra) -> bytes:
    return json.dumps({"global_step": len(rows), "log_history": rows, **extra}).encode()


def lines(rows) -> bytes:
    return "\n".join(json.dumps(r) for r in rows).encode()


GRPO_014 = hf([{"step": 1, "loss": 0.0, "grad_norm": 0.3, "learning_rate": 1e-6, "completion_length": 210.0,
                "rewards/accuracy_reward": 0.2, "reward": 0.25, "reward_std": 0.3, "kl": 0.0, "epoch": 0.1},
               {"step": 2, "loss": 0.0001, "grad_norm": 0.4, "learning_rate": 1e-6, "completion_length": 180.0,
                "rewards/accuracy_reward": 0.4, "reward": 0.45, "reward_std": 0.35, "kl": 0.002, "epoch": 0.2},
               {"step": 2, "eval_loss": 0.1, "eval_reward": 0.3, "eval_runtime": 3.0},
               {"step": 2, "train_runtime": 99.0, "train_loss": 0.00005, "total_flos": 0.0}])
GRPO_020 = (b'{"log_history": [{"step": 5, "loss": 0.01, "grad_norm": NaN, "completions/mean_length": 300, '
            b'"completions/clipped_ratio": 0.1, "clip_ratio/region_mean": 0.0, "clip_ratio/low_mean": 0.0, '
            b'"clip_ratio/high_mean": 0.0, "frac_reward_zero_std": 0.5, "entropy": 0.6, "reward": 0.5, '
            b'"reward_std": 0.2, "rewards/acc/mean": 0.5, "rewards/acc/std": 0.5, "num_tokens": 1e4}, '
            b'{"step": 10, "loss": 0.02, "grad_norm": Infinity, "completions/mean_length": 320, '
            b'"completions/clipped_ratio": 0.2, "clip_ratio/region_mean": 0.0, "frac_reward_zero_std": 0.25, '
            b'"entropy": 0.5, "reward": 0.6, "reward_std": 0.25, "mystery/metric": 3}]}')
PPO = hf([{"step": s, "objective/kl": 0.1 * s, "objective/entropy": 5.0, "objective/scores": 0.1,
           "objective/rlhf_reward": 0.0, "policy/approxkl_avg": -0.001, "policy/clipfrac_avg": 0.1,
           "loss/policy_avg": -0.02, "loss/value_avg": 0.3, "val/clipfrac_avg": 0.05, "eps": 3} for s in (1, 2)])
RLOO = hf([{"step": 1, "objective/kl": 0.1, "objective/scores": 0.2, "policy/approxkl_avg": 0.0,
            "policy/clipfrac_avg": 0.0, "loss/policy_avg": 0.1}])
DPO = hf([{"step": 10, "loss": 0.69, "rewards/chosen": -0.1, "rewards/rejected": -0.2, "rewards/margins": 0.1,
           "rewards/accuracies": 0.6, "logps/chosen": -120.0, "logps/rejected": -130.0, "logits/chosen": -2.0},
          {"step": 10, "eval_loss": 0.6, "eval_rewards/margins": 0.2}])
ORPO = hf([{"step": 1, "loss": 1.0, "rewards/chosen": -1.0, "logps/chosen": -1.0, "odds_ratio_loss": 0.3,
            "sft_loss": 0.7}])
ONLINE_DPO = hf([{"step": 1, "objective/kl": 0.1, "objective/scores": 1.0, "rewards/chosen": 0.1,
                  "logps/chosen": -3.0, "val/contain_eos_token": 0.9, "beta": 0.1}])
VERL_OLD = (b"(main_task pid=42) step:1 - actor/entropy_loss:1.20 - actor/pg_clipfrac:0.001 - actor/ppo_kl:-0.0001"
            b" - critic/kl:0.0 - critic/score/mean:0.1 - timing/gen:12.5 - response_length/clip_ratio:0.0\n"
            b"some other line step: not a step\n"
            b"\x1b[36m(main_task pid=42)\x1b[0m step:2 - actor/entropy_loss:1.1 - critic/score/mean:0.2 - "
            b"critic/vf_loss:0.5 - critic/vf_explained_var:0.1\n"
            b"step:2 - val/test_score/openai/gsm8k:0.31\n")
VERL_NEW = (b"step:0 - val-core/openai/gsm8k/reward/mean@1:np.float64(0.25)\n"
            b"step:1 - actor/entropy:np.float64(0.9) - actor/kl_loss:0.001 - actor/pg_loss:-0.01 - "
            b"actor/grad_norm:0.2 - critic/score/mean:0.3 - response_length/mean:400.5 - timing_s/step:30.1\n")
VERL_JSONL = lines([{"step": 2, "data": {"actor/entropy": 0.8, "critic/score/mean": 0.5}},
                    {"step": 1, "data": {"actor/entropy": 0.9, "critic/score/mean": 0.4, "actor/lr": 1e-6}},
                    {"step": 2, "data": {"actor/entropy": 0.7}}]) + b'\n{"step": 3, "data": {"actor/entr'
OPENRLHF = lines([{"train/global_step": 1, "train/policy_loss": 0.1, "train/kl": -0.01, "train/reward": 0.2,
                   "train/entropy_loss": 1.5, "train/response_length": 300, "train/actor_lr": 1e-6},
                  {"eval/global_step": 1, "eval/eval_aime_pass1": 0.1},
                  {"train/global_step": 2, "train/policy_loss": 0.05, "train/kl": 0.02, "train/reward": 0.4,
                   "train/critic_loss": 0.3}])
CSV = b"step,reward,kl,entropy,note\n1,0.1,0.0,2.0,x\n2,0.2,,1.9,y\n3,\"0.3\",0.01,NaN,\n"
WANDB_CSV = (b'"Step","run-a - train/reward","run-a - train/reward__MIN","run-a - train/reward__MAX"\n'
             b'1,0.5,0.4,0.6\n2,0.6,0.5,0.7\n')

# name → (log, trainer, algorithm, steps, {canonical: (own key, values)}, keys it must list as unknown)
CASES = {
    "TRL GRPO v0.14": (GRPO_014, "trl", "grpo", [1, 2],
                       {"length": ("completion_length", [210, 180]), "reward": ("reward", [0.25, 0.45]),
                        "kl": ("kl", [0, 0.002]), "val_score": ("eval_reward", [math.nan, 0.3]),
                        "eval_loss": ("eval_loss", [math.nan, 0.1]), "lr": ("learning_rate", [1e-6, 1e-6])}, ()),
    "TRL GRPO v0.20": (GRPO_020, "trl", "grpo", [5, 10],
                       {"length": ("completions/mean_length", [300, 320]),
                        "length_clipped": ("completions/clipped_ratio", [0.1, 0.2]),
                        "clip_fraction": ("clip_ratio/region_mean", [0, 0]),
                        "zero_std_groups": ("frac_reward_zero_std", [0.5, 0.25]), "entropy": ("entropy", [.6, .5]),
                        "grad_norm": ("grad_norm", [math.nan, math.inf])}, ("mystery/metric",)),
    "TRL PPO": (PPO, "trl", "ppo", [1, 2], {"kl": ("objective/kl", [0.1, 0.2]), "entropy": ("objective/entropy",
                [5, 5]), "ppo_kl": ("policy/approxkl_avg", [-0.001, -0.001]), "loss": ("loss/policy_avg",
                [-.02, -.02]), "value_loss": ("loss/value_avg", [.3, .3]), "reward": ("objective/scores", [.1, .1])},
                ()),
    "TRL RLOO (PPO-style keys)": (RLOO, "trl", "rloo", [1], {"clip_fraction": ("policy/clipfrac_avg", [0])}, ()),
    "TRL DPO": (DPO, "trl", "dpo", [10], {"margin": ("rewards/margins", [0.1]), "chosen_logp": ("logps/chosen",
                [-120]), "rejected_logp": ("logps/rejected", [-130]), "accuracy": ("rewards/accuracies", [.6]),
                "chosen_reward": ("rewards/chosen", [-.1]), "eval_loss": ("eval_loss", [.6])}, ()),
    "LLaMA-Factory ORPO": (ORPO, "trl", "orpo", [1], {"chosen_logp": ("logps/chosen", [-1])}, ()),
    "TRL online DPO": (ONLINE_DPO, "trl", "online_dpo", [1], {"kl": ("objective/kl", [.1]),
                       "kl_coef": ("beta", [.1])}, ()),
    "verl console, old names": (VERL_OLD, "verl", "ppo", [1, 2],
                                {"entropy": ("actor/entropy_loss", [1.2, 1.1]), "kl": ("critic/kl", [0, math.nan]),
                                 "ppo_kl": ("actor/ppo_kl", [-1e-4, math.nan]),
                                 "explained_variance": ("critic/vf_explained_var", [math.nan, 0.1]),
                                 "val_score": ("val/test_score/openai/gsm8k", [math.nan, 0.31]),
                                 "length_clipped": ("response_length/clip_ratio", [0, math.nan])}, ()),
    "verl console, new names": (VERL_NEW, "verl", None, [0, 1],
                                {"entropy": ("actor/entropy", [math.nan, 0.9]), "kl": ("actor/kl_loss",
                                 [math.nan, .001]), "val_score": ("val-core/openai/gsm8k/reward/mean@1", [.25,
                                 math.nan]), "length": ("response_length/mean", [math.nan, 400.5])}, ()),
    "verl JSON lines, unordered, repeated, cut off": (VERL_JSONL, "verl", None, [1, 2],
                                                      {"entropy": ("actor/entropy", [0.9, 0.7]),
                                                       "reward": ("critic/score/mean", [0.4, 0.5])}, ()),
    "OpenRLHF": (OPENRLHF, "openrlhf", "ppo", [1, 2],
                 {"kl": ("train/kl", [-0.01, 0.02]), "entropy": ("train/entropy_loss", [1.5, math.nan]),
                  "val_score": ("eval/eval_aime_pass1", [0.1, math.nan]), "loss": ("train/policy_loss", [.1, .05]),
                  "value_loss": ("train/critic_loss", [math.nan, .3])}, ()),
    "CSV": (CSV, "csv", None, [1, 2, 3], {"reward": ("reward", [.1, .2, .3]), "kl": ("kl", [0, math.nan, .01]),
                                         "entropy": ("entropy", [2, 1.9, math.nan])}, ()),
    "W&B CSV": (WANDB_CSV, "csv", None, [1, 2], {"reward": ("train/reward", [.5, .6])}, ()),
}


@pytest.mark.parametrize("case", list(CASES))
def test_each_trainers_log_reads_to_its_steps_keys_and_values(case):
    data, trainer, algorithm, steps, want, unknown = CASES[case]
    log = rlcore.read_run(data, "log")
    assert (log.trainer, log.algorithm, log.steps.tolist()) == (trainer, algorithm, steps)
    for name, (key, values) in want.items():
        assert log.source[name] == key, name
        np.testing.assert_allclose(log.series[name], values, rtol=1e-12, err_msg=name)
    assert all(v.shape == log.steps.shape for v in [*log.series.values(), *log.extras.values()])
    assert log.unknown == unknown
    assert set(log.source.values()).isdisjoint(log.extras)


def test_what_the_reader_did_is_said():
    notes = dict(rlcore.read_run(VERL_JSONL, "x").notes)
    assert notes == {"sorted": 1, "replaced": 1, "bad_lines": 1}
    grpo = rlcore.read_run(GRPO_020, "x")
    assert grpo.version == ("since", "0.20") and rlcore.read_run(GRPO_014, "x").version == ("since", "0.14")
    assert {k: v.tolist() for k, v in grpo.nonfinite.items()} == {"grad_norm": [5, 10]}
    assert dict(rlcore.read_run(GRPO_014, "x").notes)["eval_rows"] == 1
    csv = rlcore.read_run(CSV, "x")
    assert csv.not_numbers == ("note",) and dict(csv.notes)["not_numbers"] == 2
    assert dict(rlcore.read_run(WANDB_CSV, "x").notes)["bands"] == 2
    old = rlcore.read_run(VERL_OLD, "x")
    assert old.version == ("before", "0.4.1") and old.conventions["ppo_kl"] == "old_minus_new"
    assert old.conventions["entropy"] == "is_entropy" and "timing/gen" in old.extras


def test_tensorboards_one_metric_csv_takes_its_metric_from_the_file_name():
    data = b"Wall time,Step,Value\n1700000000.5,1,0.9\n1700000010.5,2,0.8\n"
    log = rlcore.read_run(data, "run-exp1-tag-actor_entropy.csv")
    assert log.source == {"entropy": "actor/entropy"} and log.series["entropy"].tolist() == [0.9, 0.8]
    assert "Wall time" in log.extras and log.unknown == ()
    assert rlcore.read_run(data, "run-tag-my_metric.csv").unknown == ("my_metric",)


def test_markup_in_key_names_is_kept_as_text_and_listed():
    key = '<script>alert(1)</script>**x**'
    log = rlcore.read_run(hf([{"step": 1, key: 1.0, "loss": 0.1}]), "<b>name</b>")
    assert log.unknown == (key,) and log.name == "<b>name</b>"
    unsloth = rlcore.read_run(hf([{"step": 1, "completion_length": 9.0, "completions/mean_length": 9.0}]), "x")
    assert unsloth.source["length"] == "completions/mean_length" and "completion_length" in unsloth.extras


# bad input → a part of the message that names the problem
BAD = {
    "not JSON": (b"{nope", "not valid JSON"),
    "cut off": (GRPO_014[:len(GRPO_014) // 2], "cut off"),
    "empty": (b"  \n", "empty"),
    "invalid UTF-8": (b'{"log_history": [{"step": 1, "loss": 0.5}]}\xff\xfe', "not UTF-8"),
    "too large": (b" " * (rlcore.MAX_LOG_BYTES + 1), "20 MB"),
    "not bytes": ("step:1 - a:1", "data must be bytes"),
    "no step in any row": (hf([{"loss": 1.0}, {"step": "x", "loss": 2.0}, {"step": -1}]), "no row with a step"),
    "CSV without a step column": (b"epoch,loss\n1,0.5\n", "without a step column"),
    "deep nesting": (b"[" * 100_000 + b"]" * 100_000, "nests"),
    "a JSON number": (b"3", "none of the formats"),
    "log_history not a list": (b'{"log_history": 3}', "log_history must be a list"),
    "prose": (b"hello world\nno metrics here", "none of the formats"),
    "JSON lines of nothing": (b'{"a": 1\n{"b": ', "not valid JSON"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_a_log_it_cannot_read_raises_a_message_naming_the_problem(case):
    data, match = BAD[case]
    rejects(lambda: rlcore.read_run(data, "f"), match)


def test_a_fuzz_of_broken_logs_gives_a_runlog_or_a_value_error():
    rng = np.random.default_rng(0)
    good = [v[0] for v in CASES.values()]
    for i in range(300):
        data = bytearray(good[i % len(good)])
        for _ in range(rng.integers(1, 6)):
            at = int(rng.integers(0, len(data)))
            op = rng.integers(0, 3)
            if op == 0:
                data[at] = int(rng.integers(0, 256))
            elif op == 1:
                del data[at:at + int(rng.integers(1, 20))]
            else:
                data[at:at] = bytes(rng.choice(list(b'{}[]":,-.0123456789eNaI\n\\ '), size=3))
        try:
            log = rlcore.read_run(bytes(data), "f")
        except ValueError as err:
            assert str(err)
            continue
        assert np.all(np.diff(log.steps) > 0) and all(v.shape == log.steps.shape for v in log.series.values())


def test_a_100000_step_console_log_reads_whole():
    n = 100_000
    text = "".join(f"step:{s} - actor/entropy:{1 / (s + 1):.6f} - critic/score/mean:{s % 7 / 7:.4f}\n"
                   for s in range(n))
    log = rlcore.read_run(text.encode(), "big.log")
    assert log.steps.size == n and log.steps[-1] == n - 1
    np.testing.assert_allclose(log.series["entropy"][[0, 9, n - 1]], [1, 0.1, 1 / n], rtol=1e-5)
    b = rlcore.run_buckets(log, most=400)
    assert b.first.size == 400 and b.first[0] == 0 and b.last[-1] == n - 1
    assert np.all(b.first[1:] == b.last[:-1] + 1)
    assert b.high["entropy"][0] == 1.0 and b.low["entropy"][-1] == pytest.approx(1 / n, rel=1e-5)


def test_buckets_keep_a_spike_and_a_short_log_whole():
    kl = np.full(1000, 0.01)
    kl[537] = 5.0
    log = rlcore.RunLog("x", "csv", None, np.arange(1000) * 2, {"kl": kl}, {"kl": "kl"}, ())
    b = rlcore.run_buckets(log, most=50)
    assert b.high["kl"].max() == 5.0 and b.mean["kl"].max() < 0.3
    short = rlcore.run_buckets(rlcore.read_run(CSV, "x"))
    assert short.first.tolist() == short.last.tolist() == [1, 2, 3]
    np.testing.assert_allclose(short.mean["kl"], [0, np.nan, 0.01])
    rejects(lambda: rlcore.run_buckets(log, most=0), "most")
