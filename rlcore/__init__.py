"""rlcore: the numerical core of the RL-for-LLMs explorer (pure numpy).

Every number a page shows comes from a function here. Nothing in this package imports
streamlit, altair or pandas.

Modules: the formulas by topic (returns, estimates, credit, policy, ppo, kl), the shared samplers
(sampling), the training lab (lab), and the bundles of numbers one page shows (studies). ``__all__``
below is the package's long-standing surface, which notebooks and tests import from ``rlcore``
directly; newer helpers (``rlcore.lab.ALGORITHM_TABLE``, ``rlcore.credit.gae_batch``,
``rlcore.sampling.sample_tokens``) are imported from their module. The chart preparation that used
to live here (thin_steps, dead_share, seed_bands) is in ``ui.prep``; the old names still resolve, on
first use. ``histogram_counts`` stays here: the baseline study's result carries its bins.
"""

from .credit import (
    GROUP_METHODS,
    GROUP_SEED,
    GROUP_SIZE,
    AnswerTrace,
    answer_trace,
    credit_positions,
    gae,
    group_advantages,
    td_errors,
)
from .estimates import (
    GradientStats,
    Histogram,
    MCEstimates,
    RunningEstimates,
    advantages,
    expected_value,
    gradient_samples,
    gradient_stats,
    gradient_variance_curve,
    histogram_counts,
    mc_estimates,
    optimal_baseline,
    running_mc_estimates,
    running_mean,
    sample_answers,
    sample_checkpoints,
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
from .generation import (
    GenerationStep,
    JudgeChecks,
    answer_matches,
    answer_text,
    join_tokens,
    next_step,
    rarest_token_shift,
    rollout,
    rule_based_judge,
    step_rng,
)
from .kl import (
    KLEstimates,
    RegularizedObjective,
    ShareCurve,
    kl_divergence,
    kl_estimators,
    kl_optimal_policy,
    kl_regularized_objective,
    regularized_optimum,
    share_curve,
)
from .lab import (
    ALGORITHM_NAMES,
    ALGORITHMS,
    JUDGES,
    LabConfig,
    LabHistory,
    LabTree,
    first_step_loss,
    lab_tree,
    train,
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
    samples_to_discover,
    softmax,
    temperature_probs,
    turning_steps,
)
from .ppo import (
    PPOBatch,
    PPOEpochs,
    batch_advantages,
    clip_bounds,
    clipped_objective,
    importance_ratio,
    is_clipped,
    ppo_epochs,
)
from .returns import (
    discounted_returns,
    first_token_return,
    outcome_judge,
    sparse_rewards,
)
from .studies import (
    BaselineStudy,
    BlindSpot,
    CriticErrorStudy,
    ExplorationOutcome,
    GroupCredit,
    KLEstimatorStudy,
    PolicyTrace,
    Summary,
    ValueBreakdown,
    baseline_study,
    critic_error_study,
    exploration_outcome,
    group_credit,
    kl_estimator_study,
    outcome_blind_spot,
    policy_gradient_trace,
    summarize,
    value_breakdown,
)

__all__ = [
    "ARTICLE_ANSWER", "ARTICLE_ANSWER_SCORE", "ARTICLE_ANSWER_TOKENS", "ARTICLE_ANSWER_VALUES",
    "ARTICLE_SCENARIO", "BASELINES", "FLATTERY", "GROUP_METHODS", "GROUP_SEED", "GROUP_SIZE", "MAX_TOKENS", "PRESETS",
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
__all__ += [  # V, Q, advantage and baseline pages
    "BaselineStudy", "Histogram", "RunningEstimates", "ValueBreakdown", "baseline_study",
    "gradient_variance_curve", "histogram_counts", "running_mc_estimates", "running_mean",
    "sample_checkpoints", "value_breakdown",
]
__all__ += [  # TD error / GAE and policy gradient pages
    "GroupCredit", "PolicyTrace", "credit_positions", "group_credit", "policy_gradient_trace", "turning_steps",
]
__all__ += [  # exploration, clipping and KL pages
    "ExplorationOutcome", "KLEstimatorStudy", "PPOBatch", "SeedBands", "batch_advantages", "exploration_outcome",
    "kl_estimator_study", "regularized_optimum", "samples_to_discover", "seed_bands", "temperature_probs",
]
__all__ += [  # loop and reward pages
    "BlindSpot", "GenerationStep", "JudgeChecks", "answer_matches", "answer_text", "join_tokens", "next_step",
    "outcome_blind_spot", "outcome_judge", "rarest_token_shift", "rollout", "rule_based_judge", "step_rng",
]
__all__ += [  # training lab
    "ALGORITHMS", "ALGORITHM_NAMES", "JUDGES", "LabConfig", "LabHistory", "LabTree", "dead_share",
    "first_step_loss", "lab_tree", "thin_steps", "train",
]
from .aggregation import (  # noqa: E402
    AGGREGATION_MODES,
    GRADIENT_METHODS,
    aggregate_loss,
    gradient_weights,
    informative_groups,
    sequence_ratio,
    token_weights,
)
from .diagnostics import (  # noqa: E402
    TRUNCATION_MODES,
    KLGradients,
    entropy,
    entropy_change,
    kl_gradients,
    pass_at_k,
    pass_at_k_estimate,
    truncated_is_weights,
)

__all__ += [  # after PPO: aggregation, ratios and clips; KL gradients, off-policy weights, entropy, pass@k
    "AGGREGATION_MODES", "GRADIENT_METHODS", "TRUNCATION_MODES", "KLGradients", "aggregate_loss", "entropy",
    "entropy_change", "gradient_weights", "informative_groups", "kl_gradients", "pass_at_k", "pass_at_k_estimate",
    "sequence_ratio", "token_weights", "truncated_is_weights",
]

from .clips import CLIP_METHODS, GSPO_EPS, ClipBatch, Reach, clip_batch, reach  # noqa: E402
from .collapse import (  # noqa: E402
    TRENDS,
    EntropyTrace,
    PassAtK,
    correct_shares,
    entropy_trace,
    pass_at_k_questions,
    pass_at_k_sampled,
    trend,
)
from .kl_placement import FOLLOWS, PLACEMENTS, KLPlacements, kl_placements  # noqa: E402
from .length import (  # noqa: E402
    DifficultyCurve,
    LengthDrift,
    LengthPush,
    LengthRun,
    difficulty_curve,
    length_drift,
    length_drifts,
    length_push,
    length_step,
    length_training,
    with_long_version,
)
from .mismatch import MISMATCH_KINDS, MismatchStudy, lowest_error, mismatch_study, top_p_probs  # noqa: E402
from .recipes import (  # noqa: E402
    RECIPES,
    SWITCHES,
    NamedRecipe,
    RecipeGradient,
    check_switches,
    differences,
    match_recipe,
    recipe,
    recipe_advantages,
    recipe_clip,
    recipe_distances,
    recipe_gradient,
    recipe_switches,
)

__all__ += [  # pages 10-15: length, clips after PPO, recipes, KL placement, entropy and pass@k, sampler mismatch
    "CLIP_METHODS", "FOLLOWS", "GSPO_EPS", "MISMATCH_KINDS", "PLACEMENTS", "RECIPES", "SWITCHES", "TRENDS",
    "ClipBatch", "DifficultyCurve", "EntropyTrace", "KLPlacements", "LengthDrift", "LengthPush", "LengthRun",
    "MismatchStudy", "NamedRecipe", "PassAtK", "Reach", "RecipeGradient",
    "check_switches", "clip_batch", "correct_shares", "differences", "difficulty_curve", "entropy_trace",
    "kl_placements", "length_drift", "length_drifts", "length_push", "length_step", "length_training", "lowest_error",
    "match_recipe", "mismatch_study", "pass_at_k_questions", "pass_at_k_sampled", "reach", "recipe",
    "recipe_advantages", "recipe_clip", "recipe_distances", "recipe_gradient", "recipe_switches", "top_p_probs",
    "trend", "with_long_version",
]

_MOVED_TO_UI_PREP = ("SeedBands", "dead_share", "seed_bands", "thin_steps")


def __getattr__(name: str):
    """The chart preparation moved to ``ui.prep``: ``rlcore.<name>`` still gives it, imported on first use."""
    if name in _MOVED_TO_UI_PREP:
        from ui import prep

        return getattr(prep, name)
    raise AttributeError(f"module 'rlcore' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_MOVED_TO_UI_PREP])
