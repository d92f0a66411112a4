"""R1-Zero in miniature: a tiny numpy transformer, a checkable task with a rule-based judge, and RL training.

``train(ZeroConfig(), seed)`` runs GRPO (or Dr. GRPO, or PPO with a value head) from the shipped base model.
"""

from .training import ZeroConfig, ZeroRun, ZeroStep, train, train_steps

__all__ = ["ZeroConfig", "ZeroRun", "ZeroStep", "train", "train_steps"]
