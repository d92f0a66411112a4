"""Every term and symbol the explorer uses, defined once, in plain words.

An entry here is its anchor on the Glossary page (``pages/20_Glossary.py``: links point to it, so it never
changes), the symbols and other names that look it up, and the page that explores it; its heading and definition
are text of the catalogue (``locales/*.toml``, ``[glossary.terms.<anchor>]``, ``name`` and ``text``), in every
language. ``term("ρ")`` gives a definition short enough for a widget's ``help=`` tooltip, in the page's language.
"""

from __future__ import annotations

from typing import NamedTuple

from . import i18n
from .i18n import t as _t


class Term(NamedTuple):
    anchor: str          # the Glossary page's anchor, e.g. "ppo-ratio"; also the entry's id in the catalogue
    aliases: tuple       # symbols and other names that look it up, e.g. ("ρ", "ratio")
    page: str | None     # the ui.nav path of the page that explores it, if any

    @property
    def name(self) -> str:
        """The heading in English (what lookups and links know it by)."""
        return i18n.text("en", f"glossary.terms.{self.anchor}.name")

    @property
    def text(self) -> str:
        """The definition in English: one or two sentences."""
        return i18n.text("en", f"glossary.terms.{self.anchor}.text")


TERMS = (
    # --- the loop -------------------------------------------------------------------------------------------------
    Term("policy", ("π", "policy"), "pages/1_Loop_state_action.py"),
    Term("state", ("s", "state"), "pages/1_Loop_state_action.py"),
    Term("action", ("a", "action"), "pages/1_Loop_state_action.py"),
    Term("logit", ("logit", "logits", "z"), "pages/6_Policy_gradient.py"),
    Term("softmax", ("softmax",), "pages/6_Policy_gradient.py"),
    Term("temperature", ("τ", "temperature", "tau"), "pages/7_Exploration.py"),
    # --- rewards and returns ---------------------------------------------------------------------------------------
    Term("reward", ("r", "reward"), "pages/2_Reward_and_return.py"),
    Term("return", ("G", "return"), "pages/2_Reward_and_return.py"),
    Term("discount", ("γ", "gamma", "discount"), "pages/2_Reward_and_return.py"),
    Term("pass-at-k", ("pass@k",), "pages/15_Entropy_and_pass_at_k.py"),
    # --- values and credit -----------------------------------------------------------------------------------------
    Term("value", ("V", "value"), "pages/3_Value_Q_advantage.py"),
    Term("q", ("Q", "action value"), "pages/3_Value_Q_advantage.py"),
    Term("advantage", ("A", "advantage"), "pages/3_Value_Q_advantage.py"),
    Term("baseline", ("b", "baseline"), "pages/4_Baseline_and_variance.py"),
    Term("critic", ("critic",), "pages/5_TD_error_and_GAE.py"),
    Term("td-error", ("δ", "delta", "TD error"), "pages/5_TD_error_and_GAE.py"),
    Term("gae", ("λ", "lambda", "GAE"), "pages/5_TD_error_and_GAE.py"),
    Term("group", ("group",), "pages/5_TD_error_and_GAE.py"),
    # --- the update ------------------------------------------------------------------------------------------------
    Term("policy-gradient", ("policy gradient", "∇"), "pages/6_Policy_gradient.py"),
    Term("one-hot", ("e", "one-hot"), "pages/4_Baseline_and_variance.py"),
    Term("elementwise", ("⊙",), "pages/4_Baseline_and_variance.py"),
    Term("reinforce", ("REINFORCE", "REINFORCE + running mean", "REINFORCE with a baseline"),
         "pages/9_Training_lab.py"),
    Term("importance-sampling", ("importance sampling", "IS", "full weights", "no correction"),
         "pages/14_Sampler_and_trainer.py"),
    Term("ppo-ratio", ("ρ", "rho", "ratio"), "pages/8_Ratio_and_clipping.py"),
    Term("clip", ("ε", "epsilon", "clip"), "pages/8_Ratio_and_clipping.py"),
    Term("ppo", ("PPO",), "pages/8_Ratio_and_clipping.py"),
    Term("token-mean", ("token-mean", "token mean"), "pages/10_Length_and_aggregation.py"),
    Term("seq-mean-token-mean", ("seq-mean-token-mean",), "pages/10_Length_and_aggregation.py"),
    Term("seq-mean-token-sum", ("seq-mean-token-sum",), "pages/10_Length_and_aggregation.py"),
    Term("seq-mean-token-sum-norm", ("seq-mean-token-sum-norm", "token-sum-norm"),
         "pages/10_Length_and_aggregation.py"),
    Term("clip-higher", ("clip-higher", "ε_high", "eps_high"), "pages/11_Clips_after_PPO.py"),
    Term("dynamic-sampling", ("dynamic sampling",), "pages/12_Recipe_composer.py"),
    Term("truncated-is", ("truncated importance sampling", "TIS", "truncate"), "pages/14_Sampler_and_trainer.py"),
    Term("masked-is", ("masked importance sampling", "MIS", "mask"), "pages/14_Sampler_and_trainer.py"),
    Term("forward-reverse-kl", ("forward KL", "reverse KL", "KL(π‖π_ref)", "KL(π_ref‖π)"),
         "pages/13_KL_gradients.py"),
    # --- staying close to the reference ----------------------------------------------------------------------------
    Term("reference-policy", ("π_ref", "reference"), "pages/8_KL_penalty.py"),
    Term("kl", ("KL",), "pages/8_KL_penalty.py"),
    Term("beta", ("β", "beta"), "pages/8_KL_penalty.py"),
    Term("nats", ("nats", "nat"), "pages/8_KL_penalty.py"),
    Term("k1", ("k1",), "pages/8_KL_penalty.py"),
    Term("k2", ("k2",), "pages/8_KL_penalty.py"),
    Term("k3", ("k3",), "pages/8_KL_penalty.py"),
    Term("entropy", ("H", "entropy"), "pages/15_Entropy_and_pass_at_k.py"),
    # --- algorithms built from the group ---------------------------------------------------------------------------
    Term("grpo", ("GRPO",), "pages/5_TD_error_and_GAE.py"),
    Term("dr-grpo", ("Dr. GRPO", "Dr GRPO"), "pages/10_Length_and_aggregation.py"),
    Term("rloo", ("RLOO", "leave-one-out"), "pages/9_Training_lab.py"),
    Term("reinforce-plus-plus", ("REINFORCE++",), "pages/12_Recipe_composer.py"),
    Term("dapo", ("DAPO",), "pages/10_Length_and_aggregation.py"),
    Term("gspo", ("GSPO",), "pages/11_Clips_after_PPO.py"),
    Term("cispo", ("CISPO",), "pages/11_Clips_after_PPO.py"),
    # --- where the judge comes from --------------------------------------------------------------------------------
    Term("preference-pair", ("preference", "comparison", "comparisons", "chosen", "rejected"),
         "pages/16_Reward_model.py"),
    Term("bradley-terry", ("Bradley–Terry", "Bradley-Terry", "BT"), "pages/16_Reward_model.py"),
    Term("reward-model", ("reward model", "RM", "r̂"), "pages/16_Reward_model.py"),
    Term("over-optimisation", ("over-optimisation", "overoptimization", "reward hacking", "Goodhart"),
         "pages/17_Over_optimisation.py"),
    Term("proxy-gold", ("proxy", "gold", "proxy reward", "gold reward"), "pages/17_Over_optimisation.py"),
    Term("root-kl", ("√KL", "root KL", "sqrt KL"), "pages/17_Over_optimisation.py"),
    Term("best-of-n", ("best-of-n", "best of n", "BoN"), "pages/17_Over_optimisation.py"),
    Term("natural-gradient", ("natural gradient", "natural policy gradient", "tilt", "the tilt",
                              "KL-regularised optimum"), "pages/17_Over_optimisation.py"),
    Term("dpo", ("DPO", "direct preference optimisation"), "pages/18_DPO.py"),
    Term("implicit-reward", ("implicit reward",), "pages/18_DPO.py"),
    Term("ipo", ("IPO",), "pages/18_DPO.py"),
    Term("online-dpo", ("online DPO", "offline DPO"), "pages/18_DPO.py"),
    Term("likelihood-displacement", ("likelihood displacement",), "pages/18_DPO.py"),
    Term("kl-matched", ("KL-matched comparison", "KL-matched", "matched KL", "equal KL"), "pages/18_DPO.py"),
    # --- R1-Zero in miniature --------------------------------------------------------------------------------------
    Term("rule-based-reward", ("rule-based reward", "rule-based judge", "verifier", "verifiable reward"),
         "pages/19_R1_Zero_in_miniature.py"),
    Term("base-model", ("base model", "π_base"), "pages/19_R1_Zero_in_miniature.py"),
    Term("held-out", ("held-out", "held out", "test set"), "pages/19_R1_Zero_in_miniature.py"),
    Term("rft", ("RFT", "rejection-sampling fine-tuning", "rejection sampling fine-tuning", "STaR"),
         "pages/19_R1_Zero_in_miniature.py"),
    Term("explained-variance", ("explained variance",), "pages/19_R1_Zero_in_miniature.py"),
    Term("adaptive-length", ("adaptive length",), "pages/19_R1_Zero_in_miniature.py"),
    Term("overthinking", ("overthinking",), "pages/19_R1_Zero_in_miniature.py"),
    Term("length-penalty", ("length penalty", "length cost"), "pages/19_R1_Zero_in_miniature.py"),
    Term("expert-iteration", ("expert iteration", "ExIt"), "pages/19_R1_Zero_in_miniature.py"),
    Term("oracle-best-of-n", ("oracle best-of-n",), "pages/19_R1_Zero_in_miniature.py"),

)

_BY_ALIAS = {}
for _term in TERMS:
    for _key in (_term.anchor, _term.name, *_term.aliases):
        _BY_ALIAS.setdefault(_key, _term)
        _BY_ALIAS.setdefault(_key.lower(), _term)


def lookup(key: str) -> Term:
    """The entry for a symbol, an alias or a heading (``"ρ"``, ``"rho"``, ``"PPO ratio ρ"``); KeyError if none."""
    found = _BY_ALIAS.get(key) or _BY_ALIAS.get(key.lower())
    if found is None:
        raise KeyError(f"no glossary entry for {key!r}")
    return found


def name(entry: Term) -> str:
    """The entry's heading in the current language (in Chinese, the English term beside the Chinese one)."""
    return _t(f"glossary.terms.{entry.anchor}.name")


def definition(entry: Term) -> str:
    """The entry's definition in the current language."""
    return _t(f"glossary.terms.{entry.anchor}.text")


def term(key: str) -> str:
    """A short definition for a widget's ``help=`` tooltip, in the current language:
    ``st.slider(..., help=glossary.term("ρ"))``."""
    entry = lookup(key)
    return _t("glossary.tooltip", name=name(entry), text=definition(entry))
