"""R1-Zero in miniature: a tiny numpy transformer, a checkable task with a rule-based judge, and RL training."""
