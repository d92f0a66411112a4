"""Recipe composer: the few switches that tell REINFORCE, RLOO, GRPO, Dr. GRPO, DAPO, GSPO, CISPO, REINFORCE++ apart."""

import numpy as np
import pandas as pd
import streamlit as st

import rlcore
from rlcore import clips, length, recipes
from ui import inputs, nav, page
from ui.charts import answer_labels, fit_width, grouped_bars
from ui.colors import method_colors
from ui.format import esc, fmt, fmt_list, wrap

LABELS = {"baseline": "Baseline subtracted", "scale": "Divide by a std", "aggregation": "Loss aggregation",
          "ratio": "Importance ratio", "clip": "Clip", "kl": "KL penalty", "dynamic_sampling": "Dynamic sampling"}
COLORS = method_colors(["this recipe", "GRPO"])

scenario = page.setup(
    "Most policy-gradient recipes for LLMs differ in a handful of choices: what is subtracted from the score, "
    "whether it is divided by a spread, how token losses are averaged, which ratio is clipped and how, where "
    "the KL goes. Set the switches: when they spell a published recipe, its name lights up.",
)
tokens = scenario.tokens

page.why(
    "Papers announce new algorithms, but read side by side most are GRPO with two or three switches flipped. "
    "Seeing them as switches tells you what to compare when a run behaves differently: the std changes "
    "which prompts dominate, the aggregation changes how length is treated, the clip changes which tokens "
    "keep learning. A switch a paper does not fix is left free in the table below.")


# the map of the family: why a recipe flips a switch away from GRPO's value, and the page that shows it happen
WHY = {
    ("baseline", "none"): "no baseline: every sampled answer is pushed up, the better ones harder",
    ("baseline", "batch mean"): "one baseline for the whole batch instead of one per prompt",
    ("baseline", "leave-one-out"): "an answer's own score never sits in its own baseline",
    ("scale", "none"): "prompts whose answers score alike are not blown up by a tiny std",
    ("scale", "batch std"): "one scale for the batch, so prompts keep their relative sizes",
    ("aggregation", "token-mean"): "every token weighs the same, so a long wrong answer is not let off lightly",
    ("aggregation", "seq-mean-token-sum"): "every token of an answer counts in full, whatever its length",
    ("aggregation", "seq-mean-token-sum-norm"): "one fixed length divides every answer, so length tilts nothing",
    ("aggregation", "seq-mean-token-mean"): "each answer counts the same, whatever its length",
    ("ratio", "none"): "one on-policy step per batch: nothing to correct, nothing to clip",
    ("ratio", "sequence"): "one ratio per answer, as the score is given per answer; steadier on long answers",
    ("ratio", "token"): "one ratio per token",
    ("clip", "none"): "no clip: one step per batch cannot drift far",
    ("clip", "clip-higher"): "rare tokens get more room to rise, which slows the entropy's collapse",
    ("clip", "cispo"): "no token loses its gradient; only its weight is capped",
    ("clip", "symmetric"): "PPO's clip, the same on both sides",
    ("kl", "none"): "no pull back to the reference: reasoning training lets the policy move far",
    ("kl", "in reward"): "the penalty enters each token's reward, before the advantages",
    ("kl", "in loss"): "the penalty is a term of its own in the loss",
    ("dynamic_sampling", True): "groups whose answers all scored alike teach nothing: they are drawn again",
    ("dynamic_sampling", False): "every group is trained on",
}
TAUGHT_ON = {"baseline": "pages/4_Baseline_and_variance.py", "scale": "pages/9_Training_lab.py",
             "aggregation": "pages/10_Length_and_aggregation.py", "ratio": "pages/11_Clips_after_PPO.py",
             "clip": "pages/11_Clips_after_PPO.py", "kl": "pages/13_KL_gradients.py",
             "dynamic_sampling": "pages/9_Training_lab.py"}


def page_link(path: str) -> str:
    """A markdown link to a page of the map, relative to this one (so it also works under a path prefix)."""
    return f"[{nav.info(path).title}]({nav.url_path(path)})"


def family_map() -> None:
    """The GRPO family on one screen: each named recipe, the switches it flips away from GRPO's, why, and where
    to see each one (all read from ``rlcore.recipes``)."""
    base = recipes.recipe(recipes.REFERENCE)
    lines = [f"**{base.name}** is the base: " + "; ".join(f"{switch_name(k)} {in_words(v)}"
                                                          for k, v in base.switches.items()) + ".", ""]
    for r in recipes.RECIPES:
        if r.name == base.name:
            continue
        lines.append(f"- **{r.name}** changes:")
        lines += [f"    - {switch_name(k)}: **{in_words(this)}**, {WHY[k, this]} ({page_link(TAUGHT_ON[k])})"
                  for k, this, _ in recipes.differences(recipes.recipe_switches(r.name))]
    st.markdown("\n".join(lines))
    st.caption("A switch a paper leaves open is taken as GRPO's here. Choose a recipe above (Views) to set its "
               "switches and compare it with GRPO on the running example.")


def switch_name(key: str) -> str:
    """A switch's label inside a sentence ("divide by a std", "KL penalty")."""
    label = LABELS[key]
    return label if label.startswith("KL") else label.lower()


def in_words(value) -> str:
    """A switch value inside a sentence: on / off for dynamic sampling."""
    return "on" if value is True else "off" if value is False else str(value)


def shown(value) -> str:
    """A switch value in words: ✓ / — for on and off."""
    return "✓" if value is True else "—" if value is False else str(value)


GRPO = recipes.recipe_switches("GRPO")  # the switches start as GRPO's
page.presets({name: recipes.recipe_switches(name) for name in ("GRPO", "Dr. GRPO", "DAPO", "GSPO")})


@page.cached(32)
def compare(scenario, switches, step, eps_high):
    """The scenario's sampled answers as one group: advantages, token weights and clips, this recipe and GRPO."""
    lengths = [len(rlcore.answer_tokens(scenario, t)) for t in scenario.tokens]
    batch = clips.clip_batch(scenario.pi, scenario.samples, lengths, lr=step, eps_high=eps_high)
    out = {}
    for who, s in (("this recipe", switches), ("GRPO", recipes.recipe_switches("GRPO"))):
        adv = recipes.recipe_advantages(batch.scores, s["baseline"], s["scale"])
        push = length.length_push(batch.lengths, adv)
        grad = recipes.recipe_gradient(batch.ratio, batch.seq_ratio, adv, s, eps_high=eps_high)
        out[who] = {"advantages": adv, "weights": push.weights[rlcore.AGGREGATION_MODES.index(s["aggregation"])],
                    "kept": grad.kept, "stopped": int(grad.stopped.sum()), "clip": recipes.recipe_clip(s)}
    informative = bool(rlcore.informative_groups([batch.scores])[0])
    return batch, out, informative


@st.fragment
def composer() -> None:
    """The switches, the recipe they match, and this recipe against GRPO on the running example."""
    c1, c2, c3, c4 = st.columns(4)
    d1, d2, d3, d4 = st.columns(4)  # a second row, so a phone shows the switches in this order
    switches = {k: inputs.selectbox(LABELS[k], recipes.SWITCHES[k], GRPO[k], key=k, where=col)
                for k, col in zip(("baseline", "scale", "aggregation", "ratio", "clip", "kl"),
                                  (c1, c2, c3, c4, d1, d2), strict=True)}
    switches["dynamic_sampling"] = inputs.toggle(LABELS["dynamic_sampling"], GRPO["dynamic_sampling"],
                                                 key="dynamic_sampling", where=d3,
                                                 help="Drop groups whose answers all scored the same and draw new "
                                                      "ones (DAPO).")
    step = inputs.slider("Step already taken η", 0.0, 1.0, 0.2, 0.05, key="step", where=d4,
                         help="One policy-gradient step moves the policy away from the one that sampled the batch; "
                              "the ratio and the clip then decide what is left of each answer's gradient.")
    with st.expander("More settings"):
        eps_high = inputs.slider("Upper clip ε_high for clip-higher and CISPO", 0.2, 0.6, 0.28, 0.01, key="high")
    switches = page.run(recipes.check_switches, switches)

    matches = recipes.match_recipe(switches)
    for name in matches:
        r = recipes.recipe(name)
        link = f" · [arXiv {r.arxiv}](https://arxiv.org/abs/{r.arxiv})" if r.arxiv else ""
        st.success(f"**{r.name}**: {r.source}{link}", icon=":material/verified:")
    if not matches:
        name, gap = recipes.recipe_distances(switches)[0]
        st.info(f"No published recipe in the table has exactly these switches. Nearest: **{name}**, if you change "
                f"{', '.join(LABELS[k].lower() for k in gap)}.", icon=":material/explore:")

    batch, out, informative = page.run(compare, scenario, switches, step, eps_high)
    mine, grpo = out["this recipe"], out["GRPO"]
    worst = int(np.argmin(batch.scores))
    a, b = abs(mine["advantages"][worst]), abs(grpo["advantages"][worst])
    answer = "the same" if np.isclose(a, b, rtol=1e-9, atol=1e-12) else "larger" if a > b else "smaller"
    revealed = page.predict(
        f"The group's worst answer (score {fmt(batch.scores[worst])}, starts with "
        f"**{esc(tokens[batch.actions[worst]])}**): is its advantage larger in size under these switches than "
        "under GRPO, smaller, or the same?", ["larger", "smaller", "the same"], answer,
        f"Here it is {fmt(mine['advantages'][worst], 3, sign=True)}; GRPO gives "
        f"{fmt(grpo['advantages'][worst], 3, sign=True)}.",
        key="predict_recipe")

    labels = answer_labels(tokens, batch.actions)
    rows = pd.concat([pd.DataFrame({"answer": labels, "first token": [tokens[k] for k in batch.actions],
                                    "score": batch.scores, "tokens": batch.lengths, "recipe": who,
                                    "advantage": o["advantages"], "token weight": o["weights"],
                                    "gradient kept": o["kept"]})
                      for who, o in out.items()], ignore_index=True)
    left, right = st.columns(2, gap="large")
    with left:
        page.chart(fit_width(grouped_bars(rows, x="answer", y="token weight", group="recipe", colors=COLORS,
                                          title="Weight of one token of each answer",
                                          subtitle=wrap(f"this recipe ({switches['aggregation']}) against GRPO"),
                                          x_title="sampled answer (first token #)", y_title="weight of each token",
                                          tooltips=("tokens", "score"), digits=4)),
                   rows, alt_text="The weight of one token of each sampled answer under these switches and under GRPO.",
                   name="recipe_weights")
    with right:
        page.chart(fit_width(grouped_bars(rows, x="answer", y="gradient kept", group="recipe", colors=COLORS,
                                          title=f"Gradient left after a step of η = {fmt(step)}",
                                          subtitle=wrap(f"share of ratio × advantage; ratio: {switches['ratio']}, "
                                                        f"clip: {switches['clip']}; 0: stopped, 1: untouched"),
                                          x_title="sampled answer (first token #)", y_title="share kept",
                                          tooltips=("tokens", "score"))),
                   rows, alt_text="For each sampled answer, the share of its gradient the clip leaves after one update "
                                  "step, under these switches and under GRPO.", name="recipe_gradient")
    if not revealed:
        return
    page.chart(fit_width(grouped_bars(rows, x="answer", y="advantage", group="recipe", colors=COLORS,
                                      title="Advantage of each answer",
                                      subtitle=wrap(f"baseline: {switches['baseline']}; scale: {switches['scale']}"),
                                      x_title="sampled answer (first token #)", y_title="advantage",
                                      tooltips=("tokens", "score"))),
               rows, alt_text="Each sampled answer's advantage under these switches and under GRPO.",
               name="recipe_advantages")
    explain(switches, batch, mine, grpo, informative, step)
    st.caption("The running example is one prompt, so its batch is one group: a batch mean or std equals the "
               "group's here. They differ once a batch holds several prompts.")


def explain(switches, batch, mine, grpo, informative, step) -> None:
    """One line per switch that differs from GRPO, with its numbers on the running example."""
    diffs = recipes.differences(switches)
    if not diffs:
        st.markdown("These are GRPO's own switches: nothing differs from GRPO.")
        return
    n = batch.actions.size
    longest = int(np.argmax(batch.lengths))
    lines = []
    for key, this, theirs in diffs:
        head = f"- **{LABELS[key]}**: {this} instead of GRPO's {theirs}."
        if key in ("baseline", "scale"):
            lines.append(f"{head} The advantages become {fmt_list(mine['advantages'], sep=', ')} "
                         f"(GRPO: {fmt_list(grpo['advantages'], sep=', ')}).")
        elif key == "aggregation":
            lines.append(f"{head} A token of the longest answer ({int(batch.lengths[longest])} tokens) weighs "
                         f"{fmt(mine['weights'][longest], 4)} (GRPO: {fmt(grpo['weights'][longest], 4)}).")
        elif key in ("ratio", "clip"):
            stop = ("nothing is clipped: one on-policy step per batch" if mine["clip"] is None
                    else f"the clip stops {mine['stopped']} of the {n} answers")
            lines.append(f"{head} After one step of η = {fmt(step)}, {stop} (GRPO: {grpo['stopped']}).")
        elif key == "kl":
            where = {"none": "no pull back to the reference model",
                     "in reward": "the penalty is subtracted from each token's reward, before the advantages",
                     "in loss": "the penalty is its own term in the loss, beside the policy term"}[this]
            lines.append(f"{head} Here: {where}.")
        else:
            lines.append(f"{head} " + ("This group's scores differ, so it would be kept either way." if informative
                                       else "Every answer scored the same: dynamic sampling drops this group and "
                                            "draws another, GRPO trains on it for nothing."))
    st.markdown("**What differs from GRPO, on the running example**\n\n" + "\n".join(lines))


composer()

with st.expander("The GRPO family on one screen: what each recipe changes, why, and where to see it",
                 icon=":material/account_tree:"):
    family_map()
with st.expander("The recipe table: which switch values define each recipe"):
    # the recipe's name pinned and wide enough for "REINFORCE with a baseline"; the switches scroll beside it on a
    # phone (the map above says the same in words, one recipe a line)
    table = pd.DataFrame([{"recipe": r.name, **{LABELS[k]: shown(r.switches[k]) if k in r.switches else "any"
                                                for k in recipes.SWITCHES}, "arXiv": r.arxiv or "—"}
                          for r in recipes.RECIPES])
    st.dataframe(table, hide_index=True, width="stretch", row_height=35,
                 column_config={"recipe": st.column_config.TextColumn(pinned=True, width="medium"),
                                **{LABELS[k]: st.column_config.TextColumn(width="medium") for k in recipes.SWITCHES}})
    st.caption("✓ on, — off, any: the paper leaves it open.")

page.show_code(recipes.match_recipe, recipes.differences, recipes.recipe_advantages, recipes.recipe_gradient,
               recipes.recipe_clip, length.length_push, clips.clip_batch)
page.end()
