"""rlcore: the numerical core of the RL-for-LLMs explorer (pure numpy).

Every number a page shows comes from a function here. Nothing in this package imports
streamlit, altair or pandas.
"""

from .credit import (
    GROUP_METHODS,
    AnswerTrace,
    CriticErrorStudy,
    answer_trace,
    critic_error_study,
    gae,
    group_advantages,
    td_errors,
)
from .estimates import (
    GradientStats,
    MCEstimates,
    advantages,
    expected_value,
    gradient_samples,
    gradient_stats,
    mc_estimates,
    optimal_baseline,
    sample_answers,
)
from .example import (
    ARTICLE_ANSWER,
    ARTICLE_ANSWER_SCORE,
    ARTICLE_ANSWER_TOKENS,
    ARTICLE_ANSWER_VALUES,
    ARTICLE_SCENARIO,
    FLATTERY,
    MAX_TOKENS,
    PRESETS,
    FlatteryBranch,
    Scenario,
    answer_tokens,
    normalize_probs,
    split_tokens,
)
from .kl import (
    KLEstimates,
    RegularizedObjective,
    ShareCurve,
    kl_divergence,
    kl_estimators,
    kl_optimal_policy,
    kl_regularized_objective,
    share_curve,
)
from .policy import (
    BASELINES,
    PolicyPath,
    TrainingRun,
    discovery_chance,
    log_softmax,
    logits_from_probs,
    policy_gradient_path,
    policy_gradient_step,
    sampled_training,
    sampled_training_many,
    softmax,
)
from .ppo import (
    PPOEpochs,
    clip_bounds,
    clipped_objective,
    importance_ratio,
    is_clipped,
    ppo_epochs,
)
from .returns import discounted_returns, first_token_return, sparse_rewards
from .summary import Summary, summarize

__all__ = [
    "ARTICLE_ANSWER", "ARTICLE_ANSWER_SCORE", "ARTICLE_ANSWER_TOKENS", "ARTICLE_ANSWER_VALUES",
    "ARTICLE_SCENARIO", "BASELINES", "FLATTERY", "GROUP_METHODS", "MAX_TOKENS", "PRESETS",
    "AnswerTrace", "CriticErrorStudy", "FlatteryBranch", "GradientStats", "KLEstimates",
    "MCEstimates", "PPOEpochs", "PolicyPath", "RegularizedObjective", "Scenario", "ShareCurve", "Summary",
    "TrainingRun",
    "advantages", "answer_tokens", "answer_trace", "clip_bounds", "clipped_objective",
    "critic_error_study", "discounted_returns", "discovery_chance", "expected_value",
    "first_token_return", "gae", "gradient_samples", "gradient_stats", "group_advantages",
    "importance_ratio", "is_clipped", "kl_divergence", "kl_estimators", "kl_optimal_policy",
    "kl_regularized_objective", "log_softmax", "logits_from_probs", "mc_estimates",
    "normalize_probs", "optimal_baseline", "policy_gradient_path", "policy_gradient_step",
    "ppo_epochs", "sample_answers", "sampled_training", "sampled_training_many", "share_curve",
    "softmax", "sparse_rewards", "split_tokens", "summarize", "td_errors",
]
