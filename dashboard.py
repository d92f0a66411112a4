"""Home page: first the question, the candidate tokens, one chart and where to start; then the RL loop, the story of
the credit, the quick reference (folded) and the map of every page (its text is the catalogue's ``[home]``)."""

import pandas as pd
import streamlit as st

import rlcore
from ui import charts, nav, page
from ui.format import breakable, esc, fmt, fmt_list, pct
from ui.i18n import listed, t

scenario = page.setup("home")
s = page.study(rlcore.summarize, scenario)
tokens = scenario.tokens
likely, best = breakable(tokens[s.likely]), breakable(tokens[s.best])  # escaped, and a long name wraps on a phone
prompt, prefix = esc(scenario.prompt), esc(scenario.prefix)

left, right = st.columns([3, 2], gap="large")
with left:
    st.subheader(f"“{prompt}”")
    table = pd.DataFrame({"token": tokens, "probability": scenario.probs, "mean judge score (Q)": s.q,
                          "answer": [rlcore.answer_text(scenario, tok) for tok in tokens]})
    page.chart(charts.titled(charts.token_bars(table, value="probability", tokens=tokens,
                                               axes=charts.Axes(y=t("home.col_probability"), y_domain=[0, 1])),
                             title=t("home.policy_title"), subtitle=t("home.policy_subtitle", prefix=scenario.prefix)),
               table, alt_text=t("home.policy_alt"), name="policy")
    st.markdown(t("home.policy_text", prefix=prefix))
    # the chart's fields headed in the reader's language; the answers below, whole (in a column they ran off the table)
    page.table(table.drop(columns="answer").rename(columns={"token": t("home.col_token"),
                                                            "probability": t("home.col_probability"),
                                                            "mean judge score (Q)": t("home.col_q")}),
               formats={t("home.col_probability"): "%.3f", t("home.col_q"): "%.2f"})
    st.markdown("\n".join(t("home.answer_line", token=breakable(tok), answer=esc(answer))
                          for tok, answer in zip(tokens, table["answer"], strict=True)))
with right:
    first = nav.PAGES[1]  # the first page of the map
    st.subheader(t("home.start"))
    st.markdown(t("home.start_text"))
    st.page_link(first.path, label=t("home.start_link", title=nav.title(first)), icon=first.icon)
    st.subheader(t("home.loop"))
    # edges and their label in mid grey: 3.4:1 on white and 5.6:1 on the dark theme (black vanished there)
    st.graphviz_chart(f"""
digraph loop {{
  rankdir=TB; bgcolor="transparent";
  node [shape=box, style="rounded,filled", fillcolor="#F2F2F2", fontcolor="#1A1A1A", color="#8C8C8C",
        fontname="Helvetica", fontsize=12];
  edge [fontname="Helvetica", fontsize=11, color="#8C8C8C", fontcolor="#8C8C8C", penwidth=1.5];
  prompt [label="{t("home.loop_prompt")}"];
  write  [label="{t("home.loop_write")}"];
  judge  [label="{t("home.loop_judge")}"];
  credit [label="{t("home.loop_credit")}"];
  update [label="{t("home.loop_update")}"];
  prompt -> write -> judge -> credit -> update;
  update -> prompt [label="{t("home.loop_next")}", style=dashed];
}}
""")

st.subheader(t("home.credit"))
adv_text = listed(f"{esc(tok)} {fmt(a, sign=True)}" for tok, a in zip(tokens, s.advantage, strict=True))
st.markdown(t("home.credit_text", likely=likely, prefix=prefix, score=fmt(s.answer_score), v=fmt(s.v),
              q=fmt(s.q[s.likely]), td=fmt(s.td_at_action, sign=True), advantages=adv_text,
              before=fmt_list(scenario.probs), after=fmt_list(s.probs_after_step), v_after=fmt(s.v_after_step)))

group_text = (t("home.group_some", scores=listed(fmt(x) for x in s.group_likely), n=s.group_likely.size, token=likely,
                size=rlcore.GROUP_SIZE) if s.group_likely.size else
              t("home.group_none", token=likely, size=rlcore.GROUP_SIZE))
values = {
    "policy": f"π({likely}) = {fmt(scenario.probs[s.likely])}",
    "state": f"“{prompt}” + “{prefix}”",
    "action": " / ".join(breakable(tok) for tok in tokens),
    "reward": t("home.terms.reward_value", score=fmt(s.answer_score), n=len(s.answer_tokens)),
    "return": t("home.terms.return_value", score=fmt(s.answer_score)),
    "value": fmt(s.v),
    "q": fmt_list(s.q),
    "advantage": " / ".join(fmt(a, sign=True) for a in s.advantage),
    "baseline": t("home.terms.baseline_value", ratio=fmt(s.variance_ratio, 3)),
    "td": t("home.terms.td_value", td=fmt(s.td_at_action, sign=True), token=likely),
    "gae": t("home.terms.gae_value", gae=fmt(s.gae_first_token, sign=True)),
    "group": group_text,
    "gradient": t("home.terms.gradient_value", probs=fmt_list(s.probs_after_step)),
    "exploration": t("home.terms.exploration_value", chance=pct(s.discover_best_10), token=best),
    "clipping": t("home.terms.clipping_value", token=best, low=fmt(s.clip_range_best[0]),
                  high=fmt(s.clip_range_best[1])),
    "kl": t("home.terms.kl_value", kl=fmt(s.kl_flattery_90)),
}

# folded: numbers and terms come after the story; three columns, so the table fits a phone
with st.expander(t("home.reference"), icon=":material/table_chart:"):
    st.caption(t("home.reference_help"))
    st.markdown(t("home.reference_header") + "\n|---|---|---|\n" + "\n".join(
        f"| **{t(f'home.terms.{term}')}** | {t(f'home.terms.{term}_means')} | {value} |"
        for term, value in values.items()))

st.subheader(t("home.every_page"))
targets = [p for p in nav.PAGES if p is not nav.HOME]  # every page of the map, the lab and the glossary too
for start in range(0, len(targets), 3):  # three a row: four cut the longest titles off on a laptop
    for col, target in zip(st.columns(3), targets[start:start + 3], strict=False):
        col.page_link(target.path, label=nav.title(target), icon=target.icon)

page.end()
