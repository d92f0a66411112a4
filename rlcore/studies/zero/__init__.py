"""R1-Zero in miniature: a tiny numpy transformer, a checkable task with a rule-based judge, and RL training.

``train(ZeroConfig(), seed)`` runs GRPO (or Dr. GRPO, PPO with a value head, or the RFT baseline) from the shipped
base model on problems of 2 to 7 operands, where how much working pays depends on the problem's size.
``dpo_train(DPOConfig(), seed)`` runs DPO from the same base on pairs of its own answers, offline or online.
Pages reach all they use by these names (``rlcore.zero.answer``, ``rlcore.zero.HELD_OUT_SIZE``), never through a
module of the package (tests/app/test_house.py).
"""

from .critic import CRITIC_DECAY
from .dpo import (
    PROBE_GROUP,
    DPOConfig,
    DPORun,
    DPOStep,
    displacement,
    dpo_collect,
    dpo_grads,
    dpo_steps,
    dpo_train,
    kl_matched,
    leader_at_kl,
    measure_probe,
    pairs_within_groups,
    pass_at_kl,
    split_change,
    who_leads,
)
from .task import (
    HELD_OUT_SIZE,
    LONGEST,
    MAX_ANSWER,
    MIN_SIZE,
    MODULUS,
    TOKEN,
    answer_text,
    final_answers,
    guess_rate,
    held_out_problems,
    judge,
    problem_text,
)
from .training import (
    LENGTH_BETA,
    LENGTH_ON,
    GroupView,
    PassCurve,
    PassK,
    ZeroConfig,
    ZeroRun,
    ZeroStep,
    answer,
    base_measure,
    best_of_n,
    collect,
    group_view,
    guess_curve,
    measure,
    pass_curve,
    passk_steps,
    policy_grads,
    shown_problems,
    token_advantages,
    train,
    train_steps,
)
from .warmup import WARMUP, BaseStats, base_model, base_stats, paying_steps

__all__ = ["CRITIC_DECAY", "HELD_OUT_SIZE", "LENGTH_BETA", "LENGTH_ON",
           "LONGEST", "MAX_ANSWER", "MIN_SIZE", "MODULUS", "PROBE_GROUP", "TOKEN", "WARMUP",
           "BaseStats", "DPOConfig", "DPORun", "DPOStep", "GroupView", "PassCurve", "PassK", "ZeroConfig", "ZeroRun",
           "ZeroStep", "answer", "answer_text", "base_measure", "base_model", "base_stats", "best_of_n", "collect",
           "displacement", "dpo_collect", "dpo_grads", "dpo_steps", "dpo_train", "final_answers", "group_view",
           "guess_curve", "guess_rate", "held_out_problems", "judge", "kl_matched", "leader_at_kl", "measure",
           "measure_probe", "pairs_within_groups", "pass_at_kl", "pass_curve", "passk_steps", "paying_steps",
           "policy_grads", "problem_text", "shown_problems", "split_change", "token_advantages", "train",
           "train_steps", "who_leads"]
