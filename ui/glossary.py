"""Every term and symbol the explorer uses, defined once, in plain words (data, not page prose).

``term("ρ")`` gives a definition short enough for a widget's ``help=`` tooltip; the Glossary page
(``pages/20_Glossary.py``) lists them all, each with its own anchor.
"""

from __future__ import annotations

from typing import NamedTuple


class Term(NamedTuple):
    anchor: str          # the Glossary page's anchor, e.g. "ppo-ratio"
    name: str            # what the learner reads as the heading
    aliases: tuple       # symbols and other names that look it up, e.g. ("ρ", "ratio")
    text: str            # one or two sentences
    page: str | None     # the ui.nav path of the page that explores it, if any


TERMS = (
    # --- the loop -------------------------------------------------------------------------------------------------
    Term("policy", "Policy π", ("π", "policy"),
         "The model's rule for choosing the next token: a probability for every candidate, given all that has been "
         "written so far.", "pages/1_Loop_state_action.py"),
    Term("state", "State s", ("s", "state"),
         "What the model sees when it chooses: the prompt plus every token it has written so far.",
         "pages/1_Loop_state_action.py"),
    Term("action", "Action a", ("a", "action"),
         "One choice made by the policy; for a language model, the next token.", "pages/1_Loop_state_action.py"),
    Term("logit", "Logit", ("logit", "logits", "z"),
         "The raw score the model gives each candidate token before the softmax. Only differences between logits "
         "matter: adding the same number to all of them changes nothing.", "pages/6_Policy_gradient.py"),
    Term("softmax", "Softmax", ("softmax",),
         "Turns logits z into probabilities, π(i) = exp(zᵢ) / Σⱼ exp(zⱼ): all positive, adding up to 1, and a "
         "bigger logit always gets a bigger share.", "pages/6_Policy_gradient.py"),
    Term("temperature", "Temperature τ", ("τ", "temperature", "tau"),
         "Divides the logits before the softmax when sampling. Below 1 the favourite gets even more of the draws; "
         "above 1 the rare tokens get more.", "pages/7_Exploration.py"),
    # --- rewards and returns ---------------------------------------------------------------------------------------
    Term("reward", "Reward r", ("r", "reward"),
         "The number the environment hands back after an action. A judge that scores whole answers gives 0 on "
         "every token but the last, which gets the score.", "pages/2_Reward_and_return.py"),
    Term("return", "Return G", ("G", "return"),
         "The rewards from a token to the end of the answer, added up with each one shrunk by γ per step. With "
         "γ = 1 and one final score, every token's return is that score.", "pages/2_Reward_and_return.py"),
    Term("discount", "Discount γ", ("γ", "gamma", "discount"),
         "A factor from 0 to 1 that shrinks rewards the further ahead they lie; language-model training usually "
         "takes γ = 1.", "pages/2_Reward_and_return.py"),
    Term("pass-at-k", "pass@k", ("pass@k",),
         "The chance that at least one of k sampled answers is correct: 1 − (1 − p)ᵏ when each answer is "
         "correct with chance p, independently.", "pages/15_Entropy_and_pass_at_k.py"),
    # --- values and credit -----------------------------------------------------------------------------------------
    Term("value", "Value V", ("V", "value"),
         "The return the model can expect from a state before it picks the next token, averaged over what the "
         "policy would write.", "pages/3_Value_Q_advantage.py"),
    Term("q", "Q", ("Q", "action value"),
         "The return the model can expect after writing one particular token in a state and then following the "
         "policy.", "pages/3_Value_Q_advantage.py"),
    Term("advantage", "Advantage A", ("A", "advantage"),
         "Q − V: how much better (positive) or worse (negative) a token is than the policy's average choice in "
         "that state. The update pushes a token up when it is positive.", "pages/3_Value_Q_advantage.py"),
    Term("baseline", "Baseline b", ("b", "baseline"),
         "A number subtracted from every score before the update. As long as it does not depend on which token "
         "was sampled, the average update stays the same and only the noise changes.",
         "pages/4_Baseline_and_variance.py"),
    Term("critic", "Critic", ("critic",),
         "A learned model of V, trained next to the policy (PPO uses one), so advantages can be computed for "
         "every token.", "pages/5_TD_error_and_GAE.py"),
    Term("td-error", "TD error δ", ("δ", "delta", "TD error"),
         "δ = r + γ·V(next state) − V(state): how much the expected return moved after one step. It is a "
         "one-step estimate of the advantage.", "pages/5_TD_error_and_GAE.py"),
    Term("gae", "GAE λ", ("λ", "lambda", "GAE"),
         "Generalised advantage estimation: the TD errors ahead of a token, added up with weight (γλ) per step. "
         "λ = 0 trusts V (little noise, maybe biased); λ = 1 is the return minus V (unbiased, noisier).",
         "pages/5_TD_error_and_GAE.py"),
    Term("group", "Group", ("group",),
         "The several answers sampled for one prompt; their scores act as each other's baseline, so no critic is "
         "needed.", "pages/5_TD_error_and_GAE.py"),
    # --- the update ------------------------------------------------------------------------------------------------
    Term("policy-gradient", "Policy gradient", ("policy gradient", "∇"),
         "The direction that raises the expected return: the average of A · ∇ log π(token). For the logits of a "
         "softmax, its average is π ⊙ A.", "pages/6_Policy_gradient.py"),
    Term("one-hot", "One-hot e", ("e", "one-hot"),
         "A vector with 1 at the sampled token and 0 everywhere else. The gradient of log π(sampled token) with "
         "respect to the logits is e − π.", "pages/4_Baseline_and_variance.py"),
    Term("elementwise", "Element-wise product ⊙", ("⊙",),
         "Multiply two vectors entry by entry: (a ⊙ b)ᵢ = aᵢ·bᵢ. So π ⊙ A is each token's probability times its "
         "advantage.", "pages/4_Baseline_and_variance.py"),
    Term("reinforce", "REINFORCE", ("REINFORCE", "REINFORCE + running mean", "REINFORCE with a baseline"),
         "The plain policy-gradient method: raise log π of each sampled answer's tokens in proportion to its score, "
         "usually after subtracting a baseline.", "pages/9_Training_lab.py"),
    Term("importance-sampling", "Importance sampling", ("importance sampling", "IS", "full weights", "no correction"),
         "Estimating an average under one distribution from samples drawn under another, by weighting each sample "
         "with the ratio of its two probabilities (PPO's ρ is such a weight); with no correction the update aims "
         "at the sampler's distribution.", "pages/14_Sampler_and_trainer.py"),
    Term("ppo-ratio", "PPO ratio ρ", ("ρ", "rho", "ratio"),
         "ρ = π(token) / π_old(token): how much more or less likely the policy being updated makes a token than "
         "the policy that sampled it. It starts at 1.", "pages/8_Ratio_and_clipping.py"),
    Term("clip", "Clip ε", ("ε", "epsilon", "clip"),
         "PPO's clip range: once ρ leaves [1 − ε, 1 + ε] in the direction the advantage pushes, that token gives no "
         "more gradient, so one batch cannot move the policy far.", "pages/8_Ratio_and_clipping.py"),
    Term("ppo", "PPO", ("PPO",),
         "Proximal policy optimisation: the policy gradient with the clipped objective min(ρA, clip(ρ, 1 − ε, "
         "1 + ε)·A), several epochs per batch, and a critic for the advantages.", "pages/8_Ratio_and_clipping.py"),
    Term("token-mean", "Token-mean", ("token-mean", "token mean"),
         "Averaging the loss over every token in the batch at once, instead of per answer first, so a long answer "
         "weighs more than a short one (DAPO, CISPO).", "pages/10_Length_and_aggregation.py"),
    Term("seq-mean-token-mean", "Seq-mean-token-mean", ("seq-mean-token-mean",),
         "Average each answer's token losses first, then average the answers: every answer counts the same, so a "
         "token of a long answer weighs less than a token of a short one (GRPO).",
         "pages/10_Length_and_aggregation.py"),
    Term("seq-mean-token-sum", "Seq-mean-token-sum", ("seq-mean-token-sum",),
         "Add up each answer's token losses, then average the answers: every token weighs the same within a group, "
         "but the loss grows with the answers' length.", "pages/10_Length_and_aggregation.py"),
    Term("seq-mean-token-sum-norm", "Seq-mean-token-sum-norm", ("seq-mean-token-sum-norm", "token-sum-norm"),
         "Seq-mean-token-sum divided by one fixed length for every answer instead of each answer's own, so no "
         "answer's length changes its tokens' weight (Dr. GRPO).", "pages/10_Length_and_aggregation.py"),
    Term("clip-higher", "Clip-higher ε_high", ("clip-higher", "ε_high", "eps_high"),
         "DAPO's asymmetric clip: the ratio may rise to 1 + ε_high (0.28) before a token stops pulling, more than "
         "the 1 − ε it may fall, so rare tokens can gain probability faster.", "pages/11_Clips_after_PPO.py"),
    Term("dynamic-sampling", "Dynamic sampling", ("dynamic sampling",),
         "DAPO's rule for groups whose answers all got the same score: their advantages are all 0, so they are "
         "dropped and new groups are sampled until the batch is full of groups that teach.",
         "pages/12_Recipe_composer.py"),
    Term("truncated-is", "Truncated importance sampling", ("truncated importance sampling", "TIS", "truncate"),
         "Weighting each token by min(ρ, C), ρ being how much likelier the trainer makes it than the engine that "
         "sampled it: every token stays, the rare huge weights are cut down to C (a little bias, much less "
         "noise).", "pages/14_Sampler_and_trainer.py"),
    Term("masked-is", "Masked importance sampling", ("masked importance sampling", "MIS", "mask"),
         "Like truncated importance sampling, but a token whose weight ρ exceeds the cap C is dropped from the "
         "update altogether instead of being cut down to C.", "pages/14_Sampler_and_trainer.py"),
    Term("forward-reverse-kl", "Forward and reverse KL", ("forward KL", "reverse KL", "KL(π‖π_ref)",
                                                          "KL(π_ref‖π)"),
         "KL is not symmetric. The reverse KL(π‖π_ref) averages over what the policy writes and is what the KL "
         "penalty means; the forward KL(π_ref‖π) averages over what the reference writes. Their gradients "
         "differ.", "pages/13_KL_gradients.py"),
    # --- staying close to the reference ----------------------------------------------------------------------------
    Term("reference-policy", "Reference policy π_ref", ("π_ref", "reference"),
         "A frozen copy of the model from before RL training; the KL penalty measures how far the trained policy "
         "has moved from it.", "pages/8_KL_penalty.py"),
    Term("kl", "KL divergence", ("KL",),
         "KL(π‖π_ref) = Σ π · log(π / π_ref): how different the policy is from the reference, in nats. Never "
         "negative, and 0 only when the two are the same.", "pages/8_KL_penalty.py"),
    Term("beta", "KL weight β", ("β", "beta"),
         "How much the KL counts against the reward: the objective becomes R − β·KL. A larger β holds the policy "
         "closer to π_ref.", "pages/8_KL_penalty.py"),
    Term("nats", "Nats", ("nats", "nat"),
         "The unit of KL and entropy measured with the natural logarithm; one nat is about 1.44 bits.",
         "pages/8_KL_penalty.py"),
    Term("k1", "k1 (KL estimator)", ("k1",),
         "−log r, with r = π_ref/π for a sampled token. Averages exactly to the KL, but single values are noisy "
         "and can be negative.", "pages/8_KL_penalty.py"),
    Term("k2", "k2 (KL estimator)", ("k2",),
         "½(log r)². Never negative and steadier than k1, but biased: its average is near the KL only while π "
         "and π_ref are close.", "pages/8_KL_penalty.py"),
    Term("k3", "k3 (KL estimator)", ("k3",),
         "(r − 1) − log r. Never negative, steadier than k1, and averages to the KL as long as π can write "
         "every token π_ref can.", "pages/8_KL_penalty.py"),
    Term("entropy", "Entropy H", ("H", "entropy"),
         "H(π) = −Σ π · log π, in nats: how spread out the policy's choice is. It is 0 when one token takes all "
         "the probability and falls as a policy commits.", "pages/15_Entropy_and_pass_at_k.py"),
    # --- algorithms built from the group ---------------------------------------------------------------------------
    Term("grpo", "GRPO", ("GRPO",),
         "Group relative policy optimisation: each answer's advantage is its score minus its group's mean, divided "
         "by the group's standard deviation, given to all its tokens; no critic.", "pages/5_TD_error_and_GAE.py"),
    Term("dr-grpo", "Dr. GRPO", ("Dr. GRPO", "Dr GRPO"),
         "GRPO without the division by the group's standard deviation or by the answer's length, two scalings "
         "that tilt the update toward some prompts and some answer lengths.", "pages/10_Length_and_aggregation.py"),
    Term("rloo", "RLOO", ("RLOO", "leave-one-out"),
         "REINFORCE leave-one-out: an answer's baseline is the mean score of the other answers in its group, so "
         "it never includes the answer's own score.", "pages/9_Training_lab.py"),
    Term("reinforce-plus-plus", "REINFORCE++", ("REINFORCE++",),
         "REINFORCE with PPO's clipped ratio, the KL as a penalty in each token's reward, and advantages "
         "normalised by the whole batch's mean and spread instead of each group's.", "pages/12_Recipe_composer.py"),
    Term("dapo", "DAPO", ("DAPO",),
         "A GRPO variant: a higher upper clip bound than lower, a token-mean loss, and batches that drop groups "
         "whose answers all got the same score (they carry no signal).", "pages/10_Length_and_aggregation.py"),
    Term("gspo", "GSPO", ("GSPO",),
         "Group sequence policy optimisation: one importance ratio per answer (the geometric mean of its tokens' "
         "ratios), clipped per answer rather than per token.", "pages/11_Clips_after_PPO.py"),
    Term("cispo", "CISPO", ("CISPO",),
         "Clips the importance weight itself and treats it as a constant, so a token outside the clip range still "
         "gets a bounded gradient instead of none.", "pages/11_Clips_after_PPO.py"),
    # --- where the judge comes from --------------------------------------------------------------------------------
    Term("preference-pair", "Preference pair", ("preference", "comparison", "comparisons", "chosen", "rejected"),
         "Two answers to the same prompt and which one a rater preferred: the chosen answer y_w and the "
         "rejected one y_l.", "pages/16_Reward_model.py"),
    Term("bradley-terry", "Bradley–Terry model", ("Bradley–Terry", "Bradley-Terry", "BT"),
         "P(a ≻ b) = σ(r_a − r_b): the chance a rater prefers a to b grows with the gap between their rewards. "
         "Only differences matter, so the rewards are known up to a constant.", "pages/16_Reward_model.py"),
    Term("reward-model", "Reward model", ("reward model", "RM", "r̂"),
         "A model that scores answers, fitted to raters' comparisons with the Bradley–Terry loss. During RL it "
         "is the frozen judge, mistakes included.", "pages/16_Reward_model.py"),
    Term("over-optimisation", "Over-optimisation", ("over-optimisation", "overoptimization", "reward hacking",
                                                   "Goodhart"),
         "Training harder against a reward model until the true quality falls while the model's score keeps "
         "rising: the policy has found what the model overrates.", "pages/17_Over_optimisation.py"),
    Term("dpo", "DPO", ("DPO", "direct preference optimisation"),
         "Direct preference optimisation: fits the policy to preference pairs with −log σ(β·margin), the margin "
         "being how much more π moved toward the chosen answer than the rejected one, relative to π_ref.",
         "pages/18_DPO.py"),
    Term("implicit-reward", "Implicit reward", ("implicit reward",),
         "β·log(π(a)/π_ref(a)): the reward a policy behaves as if it were maximising under a KL penalty β. At "
         "the optimum it equals the true reward minus a constant.", "pages/18_DPO.py"),
    Term("ipo", "IPO", ("IPO",),
         "A DPO variant with a squared loss (margin − 1/(2τ))²: each margin stops at a target, so pairs that "
         "always go one way no longer push a probability to 0.", "pages/18_DPO.py"),
    # --- R1-Zero in miniature --------------------------------------------------------------------------------------
    Term("rule-based-reward", "Rule-based reward", ("rule-based reward", "rule-based judge", "verifier",
                                                   "verifiable reward"),
         "A score computed by a rule instead of a learned model: is the final answer right, and is the answer in "
         "the required form. Nothing to over-optimise but the rule itself.", "pages/19_R1_Zero_in_miniature.py"),
    Term("base-model", "Base model", ("base model", "π_base"),
         "The model RL starts from, before any reward: what it can already sample decides what RL can sharpen. "
         "Here also the reference of the KL term.", "pages/19_R1_Zero_in_miniature.py"),
    Term("held-out", "Held-out problems", ("held-out", "held out", "test set"),
         "Problems the model is never trained on, kept aside to measure it: a rise there is learning, not "
         "memory.", "pages/19_R1_Zero_in_miniature.py"),
)

_BY_ALIAS = {}
for _t in TERMS:
    for _key in (_t.anchor, _t.name, *_t.aliases):
        _BY_ALIAS.setdefault(_key, _t)
        _BY_ALIAS.setdefault(_key.lower(), _t)


def lookup(key: str) -> Term:
    """The entry for a symbol, an alias or a heading (``"ρ"``, ``"rho"``, ``"PPO ratio ρ"``); KeyError if none."""
    found = _BY_ALIAS.get(key) or _BY_ALIAS.get(key.lower())
    if found is None:
        raise KeyError(f"no glossary entry for {key!r}")
    return found


def term(key: str) -> str:
    """A short definition for a widget's ``help=`` tooltip: ``st.slider(..., help=glossary.term("ρ"))``."""
    t = lookup(key)
    return f"**{t.name}**: {t.text}"
