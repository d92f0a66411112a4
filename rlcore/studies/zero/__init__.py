"""R1-Zero in miniature: a tiny numpy transformer, a checkable task with a rule-based judge, and RL training.

``train(ZeroConfig(), seed)`` runs GRPO (or Dr. GRPO, PPO with a value head, or the RFT baseline) from the shipped
base model on problems of 2 to 7 operands, where how much working pays depends on the problem's size.
``dpo_train(DPOConfig(), seed)`` runs DPO from the same base on pairs of its own answers, offline or online.
"""

from .critic import CRITIC_DECAY
from .dpo import (
    DPOConfig,
    DPORun,
    DPOStep,
    displacement,
    dpo_collect,
    dpo_steps,
    dpo_train,
    kl_matched,
    leader_at_kl,
    pass_at_kl,
    split_change,
    who_leads,
)
from .task import guess_rate
from .training import (
    LENGTH_ON,
    PassCurve,
    PassK,
    ZeroConfig,
    ZeroRun,
    ZeroStep,
    base_measure,
    best_of_n,
    pass_curve,
    train,
    train_steps,
)
from .warmup import BaseStats, base_stats

__all__ = ["CRITIC_DECAY", "LENGTH_ON", "BaseStats", "DPOConfig",
           "DPORun", "DPOStep", "PassCurve", "PassK", "ZeroConfig", "ZeroRun", "ZeroStep",
           "base_measure", "base_stats", "best_of_n", "displacement", "dpo_collect", "dpo_steps", "dpo_train",
           "guess_rate", "kl_matched", "leader_at_kl", "pass_at_kl", "pass_curve", "split_change", "train",
           "train_steps", "who_leads"]
