"""Your run: a real training log (TRL, verl, OpenRLHF, a tracker's CSV) read with the explorer's concepts."""

import pandas as pd
import streamlit as st

import rlcore
from ui import charts, inputs, nav, page
from ui.colors import method_colors
from ui.format import esc, fmt, pct
from ui.i18n import t

page.setup("p21", scenario=False)
DETAIL = [100, 200, 400, 800]  # buckets per curve
MAX_PASTE = 200_000           # characters of pasted lines
OWN_LOG = "your_run_log"      # session key: the visitor's last log read, with what it was read from
DRAWN = ("reward", "reward_std", "val_score", "kl", "ppo_kl", "entropy", "clip_fraction", "length", "length_clipped",
         "zero_std_groups", "explained_variance", "value_loss", "grad_norm", "loss", "margin", "chosen_logp",
         "rejected_logp", "accuracy", "eval_loss")
EXPECTED = ("loss_zero_expected", "clip_zero_expected")  # what a finding explains, not a problem
NEGATIVE = ("k1", "k3", "old_minus_new", "kl_loss_type")   # the conventions [p21.negative] explains
# how each finding's sentence reads its evidence: placeholder → (evidence key, "pct" | "int" | "num")
WORDS = {
    "entropy_collapse": {"early": ("early", "num"), "late": ("late", "num"), "ratio": ("ratio", "pct")},
    "kl_growth": {"middle": ("middle", "num"), "late": ("late", "num"), "times": ("times", "times")},
    "kl_spike": {"peak": ("peak", "num"), "median": ("median", "num"), "times": ("times", "times")},
    "length_limit": {"early": ("early", "pct"), "late": ("late", "pct")},
    "dead_groups": {"mean": ("mean", "pct"), "steps": ("all_dead_steps", "int")},
    "dead_std": {"steps": ("all_dead_steps", "int"), "share": ("share", "pct")},
    "loss_zero_expected": {"median": ("median_abs", "num"), "most": ("max_abs", "num")},
    "clip_zero_expected": {"steps": ("steps", "int"), "most": ("max", "num")},
    "negative_kl": {"steps": ("steps", "int"), "share": ("share", "pct"), "lowest": ("lowest", "num"),
                    "at": ("lowest_step", "int")},
    "displacement_reward": {"c0": ("chosen_early", "num"), "c1": ("chosen_late", "num"),
                            "m0": ("margin_early", "num"), "m1": ("margin_late", "num")},
    "displacement": {"c0": ("chosen_early", "num"), "c1": ("chosen_late", "num"), "m0": ("margin_early", "num"),
                     "m1": ("margin_late", "num")},
    "reward_without_accuracy": {"r0": ("reward_early", "num"), "r1": ("reward_late", "num"),
                                "spread": ("reward_spread", "num"), "v0": ("val_first", "num"),
                                "v1": ("val_last", "num"), "vs0": ("val_first_step", "int"),
                                "vs1": ("val_last_step", "int")},
    "critic_blind": {"late": ("late", "num"), "best": ("best", "num")},
    "non_finite": {"n": ("steps", "int")},
}
SHOW = {"pct": lambda x: pct(x, 1), "int": lambda x: f"{int(x):,}", "num": lambda x: fmt(x, 4),
        "times": lambda x: fmt(x, 1) + "×"}


def taught_on(table: str) -> nav.PageInfo:
    return next(p for p in nav.PAGES if p.table == table)


def page_link(table: str) -> str:
    where = taught_on(table)
    return f"[{nav.title(where)}]({nav.url_path(where.path)})"


def own_log(key: tuple, read):
    """The visitor's log as read last in this session (``st.session_state``, theirs alone), or read now."""
    kept = st.session_state.get(OWN_LOG)
    if kept is None or kept[0] != key:
        kept = st.session_state[OWN_LOG] = (key, read())
    return kept[1]


@page.panel
def run_panel() -> None:
    c1, c2 = st.columns([3, 2])
    names = list(rlcore.EXAMPLE_LOGS)
    example = inputs.segmented(t("p21.example"), names, names[0], key="example", where=c1,
                               help=t("p21.example_help"), format_func=lambda n: t(f"p21.examples.{n}"))
    most = inputs.select_slider(t("p21.detail"), DETAIL, 400, key="detail", where=c2, help=t("p21.detail_help"))
    upload = c1.file_uploader(t("p21.upload"), key="upload", help=t("p21.upload_help"),
                              max_upload_size=rlcore.MAX_LOG_BYTES // 1_000_000)
    with st.expander(t("p21.paste")):
        pasted = st.text_area(t("p21.paste"), key="paste", max_chars=MAX_PASTE, help=t("p21.paste_help"),
                              label_visibility="collapsed")
    # a visitor's log is read for this session only: no shared cache, nothing written anywhere; the session keeps
    # its last reading, so answering the question does not read 20 MB again
    if upload is not None:
        run = own_log(("upload", upload.file_id, most), lambda: page.run(rlcore.your_run, upload.getvalue(),
                                                                         upload.name, int(most)))
        shown_name = esc(run.log.name)
    elif pasted.strip():
        data = pasted.encode("utf-8", "surrogatepass")
        run = own_log(("paste", pasted, most), lambda: page.run(rlcore.your_run, data, "pasted", int(most)))
        shown_name = t("p21.pasted")
    else:
        run = page.study(rlcore.example_run, example, int(most), entries=len(DETAIL) * len(names))
        shown_name = t(f"p21.examples.{example}")
    describe(run.log, shown_name)
    key_table(run.log)
    curves(run)
    flagged = [f for f in run.findings if f.kind not in EXPECTED]
    options = [t("p21.yes"), t("p21.no")]
    revealed = page.predict(t("p21.question"), options, options[0] if flagged else options[1],
                            t("p21.explain_yes", n=len(flagged)) if flagged else t("p21.explain_no"),
                            key="predict_run")
    if revealed:
        findings(run)


def describe(log, shown_name: str) -> None:
    """What the log is: its trainer, algorithm, steps, the version its keys date it to, what the reader did."""
    algorithm = (t("p21.algorithm", algorithm=t(f"p21.algorithms.{log.algorithm}")) if log.algorithm
                 else t("p21.algorithm_unknown"))
    lines = [t("p21.summary", name=shown_name, trainer=t(f"p21.trainers.{log.trainer}"), algorithm=algorithm,
               n=f"{log.steps.size:,}", first=f"{int(log.steps[0]):,}", last=f"{int(log.steps[-1]):,}")]
    if log.version is not None:
        lines.append(t(f"p21.version_{log.version[0]}", version=log.version[1]))
    elif log.trainer == "csv" and log.keys:
        lines.append(t("p21.keys_of", trainer=t(f"p21.trainers.{log.keys}")))
    lines += [t(f"p21.notes.{kind}", n=f"{n:,}") for kind, n in log.notes]
    st.markdown(t("p21.sentence_sep").join(lines))


def key_table(log) -> None:
    """Each mapped key with its concept, its page and its sign convention; the keys nobody knows, listed."""
    with st.expander(t("p21.keys_title"), icon=":material/key:"):
        st.caption(t("p21.keys_caption"))
        rows = [{t("p21.col_concept"): t(f"p21.concepts.{c}"), t("p21.col_key"): key,
                 t("p21.col_page"): nav.title(taught_on(rlcore.runkeys.CONCEPTS[c][0])),
                 t("p21.col_sign"): t(f"p21.conventions.{log.conventions[c]}") if c in log.conventions else ""}
                for c, key in log.source.items()]
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
        tables = dict.fromkeys(rlcore.runkeys.CONCEPTS[c][0] for c in log.source)
        if tables:
            st.markdown(t("p21.pages_line", links=t("p21.link_sep").join(page_link(p) for p in tables)))
        if log.extras:
            st.caption(t("p21.extras", n=f"{len(log.extras):,}"))
        for title, keys in (("p21.unknown", log.unknown), ("p21.not_numbers", log.not_numbers)):
            if keys:
                st.markdown(t(title, n=f"{len(keys):,}"))
                st.dataframe(pd.DataFrame({t("p21.col_key"): list(keys)}), hide_index=True, height=160)


def curves(run) -> None:
    """The log's concepts over the steps, one panel each: the buckets' means, with their lowest and highest."""
    b = run.buckets
    shown = [c for c in DRAWN if c in b.mean and (b.mean[c] == b.mean[c]).any()]
    if not shown:
        st.info(t("p21.nothing_drawn"))
        return
    labels = {c: t(f"p21.concepts.{c}") for c in shown}
    frames = [pd.DataFrame({"quantity": labels[c], "step": b.first, "mean": b.mean[c], "lowest": b.low[c],
                            "highest": b.high[c]}).dropna(subset=["mean"]) for c in shown]
    df = pd.concat(frames, ignore_index=True)
    colors = method_colors({labels[c]: ("KL" if c == "kl" else None) for c in shown})
    axes = charts.Axes(t("p21.x_step"), "", whole="x")
    ch = charts.facets(charts.bands(df, x="step", mid="mean", low="lowest", high="highest",
                                    key=charts.Key("quantity", colors=colors, title=t("p21.legend")), axes=axes),
                       field="quantity", order=list(labels.values()), title=t("p21.chart_title"), size=(330, 110),
                       subtitle=t("p21.chart_subtitle", steps=f"{run.log.steps.size:,}", buckets=f"{b.first.size:,}"))
    page.chart(ch, df, alt_text=t("p21.chart_alt", concepts=t("p21.concept_sep").join(labels.values())),
               name="your_run", width="stretch")


def findings(run) -> None:
    """Each finding with its numbers, its thresholds and the page that teaches it; or that there is nothing."""
    st.subheader(t("p21.findings_title"))
    if not run.findings:
        st.success(t("p21.nothing"), icon=":material/check_circle:")
    for f in run.findings:
        box = st.info if f.kind in EXPECTED else st.warning
        box(finding_text(f), icon=":material/info:" if f.kind in EXPECTED else "⚠️")
        if f.thresholds:
            st.caption(t("p21.thresholds", values=", ".join(
                t("p21.threshold", name=t(f"p21.threshold_names.{k}"), value=fmt(v, 3))
                for k, v in f.thresholds.items())))
        where = taught_on(f.page)
        nav.link(st, where, t("p21.taught", title=nav.title(where)), where.icon)
    st.caption(t("p21.checks"))


def finding_text(f) -> str:
    """A finding's sentence, its numbers filled in (and what explains it, for a negative KL)."""
    kind = {"growth": "kl_growth", "spike": "kl_spike"}.get(f.detail, f.kind) if f.kind == "kl_runaway" else f.kind
    kind = {"reward_std": "dead_std", "implicit_reward": "displacement_reward"}.get(f.detail, kind)
    values = {name: SHOW[how](f.evidence[key]) for name, (key, how) in WORDS[kind].items()}
    text = t(f"p21.findings.{kind}", first=f"{f.first_step:,}", last=f"{f.last_step:,}", key=esc(f.series),
             concept=t(f"p21.concepts.{f.series}") if f.kind == "negative_kl" else "", **values)
    if f.kind == "negative_kl":
        text += t("p21.sentence_sep") + t(f"p21.negative.{f.detail if f.detail in NEGATIVE else 'other'}")
    if f.kind == "length_limit" and "length_early" in f.evidence:
        text += t("p21.sentence_sep") + t("p21.findings.length_change", early=fmt(f.evidence["length_early"], 1),
                        late=fmt(f.evidence["length_late"], 1))
    if f.kind == "loss_zero_expected" and "grad_norm_median" in f.evidence:
        text += t("p21.sentence_sep") + t("p21.findings.grad_norm", norm=fmt(f.evidence["grad_norm_median"], 4))
    return text


run_panel()
page.end(code=(rlcore.read_run, rlcore.diagnose_run))
