"""The trainers' metric names, mapped to the explorer's concepts (the table ``runlog`` reads a log with).

Each canonical name holds the page that teaches it and, in order of preference, the keys TRL, verl and OpenRLHF
write for it, old names and new (TRL's GRPO v0.14 ``completion_length`` → v0.17 ``completions/mean_length``;
verl's ``actor/entropy_loss`` → ``actor/entropy``, ``critic/kl`` → ``actor/reward_kl_penalty``). A key written
``^…`` is a regular expression. Facts from the trainers' sources (TRL up to v1.9, verl up to v0.7, OpenRLHF up
to v0.11); a reader of this file checks them there.
"""

from __future__ import annotations

__all__: list[str] = []  # tables: imported by module

# canonical name → (page table that teaches it, keys in order of preference)
CONCEPTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "reward": ("p2", ("reward", "objective/scores", "critic/score/mean", "train/reward", "train/score")),
    "reward_std": ("p4", ("reward_std", "train/group_reward_std")),
    "kl": ("p8_kl", ("kl", "objective/kl", "actor/kl_loss", "actor/reward_kl_penalty", "critic/kl", "train/kl")),
    "kl_coef": ("p8_kl", ("beta", "actor/kl_coef", "actor/reward_kl_penalty_coeff", "critic/kl_coeff")),
    "ppo_kl": ("p8_ratio", ("actor/ppo_kl", "policy/approxkl_avg", "train/ppo_kl")),
    "entropy": ("p15", ("entropy", "objective/entropy", "policy/entropy_avg", "actor/entropy", "actor/entropy_loss",
                        "train/entropy_loss", "train/entropy")),
    "clip_fraction": ("p8_ratio", ("clip_ratio/region_mean", "clip_ratio", "policy/clipfrac_avg", "actor/pg_clipfrac",
                                   "train/ppo_clip_ratio")),
    "clip_low": ("p11", ("clip_ratio/low_mean",)),
    "clip_high": ("p11", ("clip_ratio/high_mean",)),
    "length": ("p10", ("completions/mean_length", "completion_length", "response_length/mean",
                       "train/response_length")),
    "length_max": ("p10", ("completions/max_length", "response_length/max")),
    "length_clipped": ("p10", ("completions/clipped_ratio", "response_length/clip_ratio")),
    "zero_std_groups": ("p12", ("frac_reward_zero_std",)),
    "explained_variance": ("p3", ("critic/vf_explained_var",)),
    "value_loss": ("p3", ("critic/vf_loss", "loss/value_avg", "train/critic_loss")),
    "grad_norm": ("p6", ("grad_norm", "actor/grad_norm", "train/actor_grad_norm")),
    "loss": ("p6", ("loss", "loss/policy_avg", "actor/pg_loss", "train/policy_loss", "train/loss")),
    "lr": ("p6", ("learning_rate", "actor/lr", "train/actor_lr")),
    "margin": ("p18", ("rewards/margins",)),
    "chosen_reward": ("p18", ("rewards/chosen", "train/chosen_reward")),
    "rejected_reward": ("p18", ("rewards/rejected", "train/reject_reward")),
    "chosen_logp": ("p18", ("logps/chosen",)),
    "rejected_logp": ("p18", ("logps/rejected",)),
    "accuracy": ("p18", ("rewards/accuracies", "train/acc")),
    "val_score": ("p17", (r"^eval_rewards/[^/]*(?:accura|correct)[^/]*(?:/mean)?$", "eval_reward",
                          r"^val-core/.+/(?:reward|acc|score)/mean@\d+$", r"^val/test_score/.+$",
                          r"^eval/.*pass@?1$", r"^eval/.*pass@?\d+$", "eval_rewards/accuracies")),
    "eval_loss": ("p17", ("eval_loss",)),
}
CANONICAL = tuple(CONCEPTS)

# The keys each trainer writes beyond those: known (listed as the trainer's own), drawn by no curve here
EXTRAS = {
    "trl": (r"^(?:epoch|total_flos|num_tokens|episode|eps|beta|mean_token_accuracy|sft_loss|nll_loss|"
            r"odds_ratio_loss|log_odds_ratio|log_odds_chosen|cispo_clip_ratio|step_time)$",
            r"^train_(?:runtime|loss|samples_per_second|steps_per_second)$", r"^eval_.+$", r"^completions/.+$",
            r"^rewards/.+$", r"^clip_ratio/.+$", r"^sampling/.+$", r"^objective/.+$", r"^policy/.+$", r"^loss/.+$",
            r"^val/.+$", r"^logps/.+$", r"^logits/.+$"),
    "verl": (r"^(?:actor|critic|response_length|prompt_length|timing_s|timing|perf|val-core|val-aux|training|"
             r"global_seqlen|response|rollout|mismatch|tool_call)/.+$",),
    "openrlhf": (r"^(?:train|eval)/.+$",),
    "tracker": (r"^_(?:step|runtime|timestamp|wandb)$", r"^(?:global_step|step|Step|train/global_step)$",
                r"^Wall time$"),
}

# sign conventions (an id the page explains): the log's own key → what its number is
CONVENTIONS = {
    "kl": "k3",                         # TRL GRPO: mean of exp(Δ) − Δ − 1 with Δ = log π_ref − log π: never below 0
    "objective/kl": "k1",               # TRL PPO / RLOO: Σ (log π − log π_ref) over the answer: may dip below 0
    "actor/kl_loss": "kl_loss_type",    # verl: the estimator the config names (low_var_kl = k3 by default)
    "actor/reward_kl_penalty": "k1",    # verl: KL in the reward, log π_old − log π_ref per token
    "critic/kl": "k1",                  # verl v0.1: the same, under its old name
    "train/kl": "k1",                   # OpenRLHF: k1 unless --kl_estimator says otherwise
    "actor/ppo_kl": "old_minus_new",    # verl: mean(log π_old − log π): slightly negative is normal
    "policy/approxkl_avg": "old_minus_new",
    "train/ppo_kl": "old_minus_new",
    "clip_ratio/region_mean": "binds",  # TRL: a clip counts only where it binds (A < 0 low, A > 0 high)
    "clip_ratio/low_mean": "binds",
    "clip_ratio/high_mean": "binds",
    "clip_ratio": "binds",
    "actor/pg_clipfrac": "clipped_tokens",  # verl: share of tokens whose clipped term was the smaller
    "actor/entropy_loss": "is_entropy",     # verl < 0.4.1 and OpenRLHF: the entropy itself, not a loss
    "train/entropy_loss": "is_entropy",
    "completions/clipped_ratio": "at_limit",   # share of answers cut at the length limit
    "response_length/clip_ratio": "at_limit",
    "critic/score/mean": "judge_score",        # verl: the judge's score, before the KL penalty
}

# TRL GRPO's keys by the version that introduced them (the latest one a log holds dates it)
TRL_SINCE = (("cispo_clip_ratio", "0.26"), (r"^sampling/.+$", "0.23"), ("entropy", "0.20"),
             ("frac_reward_zero_std", "0.18"), ("completions/mean_length", "0.17"), ("clip_ratio/region_mean", "0.17"),
             ("clip_ratio", "0.16"), ("completion_length", "0.14"))
