"""Recipe composer: the few switches that tell REINFORCE, RLOO, GRPO, Dr. GRPO, DAPO, GSPO, CISPO, REINFORCE++ apart."""

import pandas as pd
import streamlit as st

import rlcore
from ui import inputs, nav, page
from ui.charts import Axes, Key, answer_labels, grouped_bars, titled
from ui.colors import method_colors
from ui.format import esc, fmt, fmt_list, wrap
from ui.i18n import t

scenario = page.setup("p12")
LABELS = {k: t(f"p12.labels.{k}") for k in rlcore.SWITCHES}
THIS = t("p12.this_recipe")  # the legend's name of the learner's recipe
COLORS = method_colors([THIS, "GRPO"])
tokens = scenario.tokens


# the map of the family: why a recipe flips a switch away from GRPO\'s value ([p12.reasons] of the catalogue), and
# the page that shows it happen
TAUGHT_ON = {"baseline": "pages/4_Baseline_and_variance.py", "scale": "pages/9_Training_lab.py",
             "aggregation": "pages/10_Length_and_aggregation.py", "ratio": "pages/11_Clips_after_PPO.py",
             "clip": "pages/11_Clips_after_PPO.py", "kl": "pages/13_KL_gradients.py",
             "dynamic_sampling": "pages/9_Training_lab.py"}


def page_link(path: str) -> str:
    """A markdown link to a page of the map, relative to this one (so it also works under a path prefix)."""
    return f"[{nav.title(nav.info(path))}]({nav.url_path(path)})"


def family_map() -> None:
    """The GRPO family on one screen: each named recipe, the switches it flips away from GRPO's, why, and where
    to see each one (all read from ``rlcore.recipes``)."""
    base = rlcore.recipe(rlcore.recipes.REFERENCE)
    lines = [t("p12.base", name=recipe_name(base.name),
               switches=t("p12.base_sep").join(t("p12.base_switch", switch=switch_name(k), value=in_words(k, v))
                                               for k, v in base.switches.items())), ""]
    for r in rlcore.RECIPES:
        if r.name == base.name:
            continue
        lines.append("- " + t("p12.changes", name=recipe_name(r.name)))
        lines += ["    - " + t("p12.change", switch=switch_name(k), value=in_words(k, this),
                                why=t(f"p12.reasons.{k}.{this}"), link=page_link(TAUGHT_ON[k]))
                  for k, this, _ in rlcore.differences(rlcore.recipe_switches(r.name))]
    st.markdown("\n".join(lines))
    st.caption(t("p12.map_caption"))


def switch_name(key: str) -> str:
    """A switch's label inside a sentence ("divide by a std", "KL penalty")."""
    label = LABELS[key]
    return label if label.startswith("KL") else label.lower()


def value_name(key: str, value) -> str:
    """A switch value as the page shows it (rlcore's name in English)."""
    return t(f"p12.values.{key}.{value}")


def in_words(key: str, value) -> str:
    """A switch value inside a sentence: on / off for dynamic sampling."""
    return t("p12.on") if value is True else t("p12.off") if value is False else value_name(key, value)


def shown(key: str, value) -> str:
    """A switch value in words: ✓ / — for on and off."""
    return "✓" if value is True else "—" if value is False else value_name(key, value)


def recipe_name(name: str) -> str:
    """A named recipe's name in the page's language (rlcore's name in English)."""
    return t(f"p12.recipes.{name}.name")


GRPO = rlcore.recipe_switches("GRPO")  # the switches start as GRPO's
page.presets({name: rlcore.recipe_switches(name) for name in ("GRPO", "Dr. GRPO", "DAPO", "GSPO")})


@page.panel
def composer() -> None:
    """The switches, the recipe they match, and this recipe against GRPO on the running example."""
    c1, c2, c3, c4 = st.columns(4)
    d1, d2, d3, d4 = st.columns(4)  # a second row, so a phone shows the switches in this order
    switches = {k: inputs.selectbox(LABELS[k], rlcore.SWITCHES[k], GRPO[k], key=k, where=col,
                                    format_func={v: value_name(k, v) for v in rlcore.SWITCHES[k]}.get)
                for k, col in zip(("baseline", "scale", "aggregation", "ratio", "clip", "kl"),
                                  (c1, c2, c3, c4, d1, d2), strict=True)}
    switches["dynamic_sampling"] = inputs.toggle(LABELS["dynamic_sampling"], GRPO["dynamic_sampling"],
                                                 key="dynamic_sampling", where=d3,
                                                 help=t("p12.dynamic_help"))
    step = inputs.slider(t("p12.step"), 0.0, 1.0, 0.2, 0.05, key="step", where=d4, help=t("p12.step_help"))
    with st.expander(t("p12.more")):
        eps_high = inputs.slider(t("p12.eps_high"), 0.2, 0.6, 0.28, 0.01, key="high")
    switches = page.run(rlcore.check_switches, switches)
    name_the_recipe(switches)

    c = page.study(rlcore.recipe_comparison, scenario, switches, step, eps_high)
    worst = c.worst
    options = [t("p12.larger"), t("p12.smaller"), t("p12.same")]
    answer = options[("larger", "smaller", "same").index(c.than_reference)]
    revealed = page.predict(
        t("p12.question", score=fmt(c.batch.scores[worst]), token=esc(tokens[c.batch.actions[worst]])), options,
        answer,
        t("p12.explanation", mine=fmt(c.mine.advantages[worst], 3, sign=True),
          grpo=fmt(c.reference.advantages[worst], 3, sign=True)),
        key="predict_recipe")
    draw_comparison(c, switches, step, revealed)


def name_the_recipe(switches) -> None:
    """The published recipes these switches are, or the nearest one and the switches it differs in."""
    matches = rlcore.match_recipe(switches)
    for name in matches:
        r = rlcore.recipe(name)
        link = t("p12.arxiv_link", arxiv=r.arxiv) if r.arxiv else ""
        st.success(t("p12.match", name=recipe_name(r.name), source=t(f"p12.recipes.{name}.source"), link=link),
                   icon=":material/verified:")
    if not matches:
        name, gap = rlcore.recipe_distances(switches)[0]
        gaps = t("p12.list_sep").join(LABELS[k].lower() for k in gap)
        st.info(t("p12.nearest", name=recipe_name(name), switches=gaps), icon=":material/explore:")


def draw_comparison(c, switches, step, revealed: bool) -> None:
    """Token weights and the gradient the clip leaves, this recipe beside GRPO; the advantages once answered."""
    batch = c.batch
    labels = answer_labels(tokens, batch.actions)
    rows = pd.concat([pd.DataFrame({"answer": labels, "first token": [tokens[k] for k in batch.actions],
                                    "score": batch.scores, "tokens": batch.lengths, "recipe": who,
                                    "advantage": o.advantages, "token weight": o.weights,
                                    "gradient kept": o.kept})
                      for who, o in ((THIS, c.mine), ("GRPO", c.reference))], ignore_index=True)
    left, right = st.columns(2, gap="large")
    with left:
        page.chart(titled(grouped_bars(rows, x="answer", y="token weight", key=Key("recipe", colors=COLORS),
                                       axes=Axes(t("p12.x_title"), t("p12.weights_y")), tooltips=("tokens", "score"),
                                       digits=4),
                          title=t("p12.weights_title"), subtitle=wrap(t(
                              "p12.weights_subtitle", aggregation=value_name("aggregation", switches["aggregation"])))),
                   rows, alt_text=t("p12.weights_alt"), name="recipe_weights")
    with right:
        page.chart(titled(grouped_bars(rows, x="answer", y="gradient kept", key=Key("recipe", colors=COLORS),
                                       axes=Axes(t("p12.x_title"), t("p12.gradient_y")), tooltips=("tokens", "score")),
                          title=t("p12.gradient_title", step=fmt(step)),
                          subtitle=wrap(t("p12.gradient_subtitle", ratio=value_name("ratio", switches["ratio"]),
                                          clip=value_name("clip", switches["clip"])))),
                   rows, alt_text=t("p12.gradient_alt"), name="recipe_gradient")
    if not revealed:
        return
    page.chart(titled(grouped_bars(rows, x="answer", y="advantage", key=Key("recipe", colors=COLORS),
                                   axes=Axes(t("p12.x_title"), t("p12.advantages_y")), tooltips=("tokens", "score")),
                      title=t("p12.advantages_title"),
                      subtitle=wrap(t("p12.advantages_subtitle", baseline=value_name("baseline", switches["baseline"]),
                                      scale=value_name("scale", switches["scale"])))),
               rows, alt_text=t("p12.advantages_alt"), name="recipe_advantages")
    explain(switches, c, step)
    st.caption(t("p12.one_group"))


def explain(switches, c, step) -> None:
    """One line per switch that differs from GRPO, with its numbers on the running example."""
    diffs = rlcore.differences(switches)
    if not diffs:
        st.markdown(t("p12.diff.none"))
        return
    n, longest, mine, grpo = c.batch.actions.size, c.longest, c.mine, c.reference
    lines = []
    for key, this, theirs in diffs:
        head = t("p12.diff.head", switch=LABELS[key], this=value_name(key, this), theirs=value_name(key, theirs))
        if key in ("baseline", "scale"):
            lines.append(t("p12.diff.advantages", head=head, mine=fmt_list(mine.advantages, sep=t("page.list_sep")),
                           grpo=fmt_list(grpo.advantages, sep=t("page.list_sep"))))
        elif key == "aggregation":
            lines.append(t("p12.diff.aggregation", head=head, length=int(c.batch.lengths[longest]),
                           mine=fmt(mine.weights[longest], 4), grpo=fmt(grpo.weights[longest], 4)))
        elif key in ("ratio", "clip"):
            lines.append(t("p12.diff.unclipped", head=head, step=fmt(step), grpo=grpo.stopped)
                         if mine.clip is None else
                         t("p12.diff.clipped", head=head, step=fmt(step), stopped=mine.stopped, total=n,
                           grpo=grpo.stopped))
        elif key == "kl":
            where = {"none": "p12.diff.kl_none", "in reward": "p12.diff.kl_reward", "in loss": "p12.diff.kl_loss"}
            lines.append(t(where[this], head=head))
        else:
            lines.append(t("p12.diff.kept" if c.informative else "p12.diff.dropped", head=head))
    st.markdown(t("p12.diff.heading") + "\n\n" + "\n".join(lines))


def the_family() -> None:
    """The map of the family and the table of every named recipe's switches, folded."""
    with st.expander(t("p12.family"), icon=":material/account_tree:"):
        family_map()
    with st.expander(t("p12.table")):
        # the recipe's name pinned and wide enough for "REINFORCE with a baseline"; the switches scroll beside it
        # on a phone (the map above says the same in words, one recipe a line)
        col = t("p12.col_recipe")
        table = pd.DataFrame([{col: recipe_name(r.name), **{LABELS[k]: shown(k, r.switches[k]) if k in r.switches
                                                             else t("p12.any")
                                                             for k in rlcore.SWITCHES}, "arXiv": r.arxiv or "—"}
                              for r in rlcore.RECIPES])
        st.dataframe(table, hide_index=True, width="stretch", row_height=35,
                     column_config={col: st.column_config.TextColumn(pinned=True, width="medium"),
                                    **{LABELS[k]: st.column_config.TextColumn(width="medium")
                                       for k in rlcore.SWITCHES}})
        st.caption(t("p12.table_caption"))


composer()
the_family()

page.end(code=(rlcore.recipe_comparison, rlcore.match_recipe, rlcore.differences, rlcore.recipe_advantages,
               rlcore.recipe_gradient, rlcore.recipe_clip, rlcore.length_push, rlcore.clip_batch,))
