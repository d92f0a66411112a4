"""R1-Zero in miniature: a tiny numpy transformer, a checkable task with a rule-based judge, and RL training.

``train(ZeroConfig(), seed)`` runs GRPO (or Dr. GRPO, or PPO with a value head) from the shipped base model.
"""

from .training import PassCurve, ZeroConfig, ZeroRun, ZeroStep, base_measure, pass_curve, train, train_steps
from .warmup import base_stats

__all__ = ["PassCurve", "ZeroConfig", "ZeroRun", "ZeroStep", "base_measure", "base_stats", "pass_curve", "train",
           "train_steps"]
