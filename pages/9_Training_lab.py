"""Training lab: the whole RL loop on the running example, one algorithm against another."""

import pandas as pd
import streamlit as st

import rlcore
from pages.views import lab
from ui import inputs, page, play
from ui.colors import ALGORITHM_COLORS
from ui.format import esc, fmt, pct, wrap
from ui.i18n import t

scenario = page.setup("p9")

NAMES = {rlcore.ALGORITHM_NAMES[a]: a for a in rlcore.ALGORITHMS}  # the link's (rlcore's) names → rlcore's id
SHOWN = {a: t(f"p9.algorithms.{a}") for a in rlcore.ALGORITHMS}  # in the page's language, once per rerun of the page
BY_SHOWN, LINK_SHOWN = {name: a for a, name in SHOWN.items()}, {name: SHOWN[a] for name, a in NAMES.items()}
DEFAULT_ALGOS = [rlcore.ALGORITHM_NAMES[a] for a in ("reinforce_mean", "grpo", "ppo")]
JUDGE_LABELS = {"the leaf's sampled scores": "samples", "its mean plus noise": "noise"}  # link value → judge
JUDGE_SHOWN = {label: t(f"p9.judge.{judge}") for label, judge in JUDGE_LABELS.items()}
AGGREGATIONS = [OWN_AGG := "each algorithm's own", *rlcore.lab.LOSS_AGGREGATIONS]  # verl's names, as written
AGG_SHOWN = {agg: t("p9.own_agg") if agg == OWN_AGG else agg for agg in AGGREGATIONS}
FLATTERY_SHARES = [t("p9.share_below"), t("p9.share_between"), t("p9.share_above")]
D = rlcore.LabConfig()  # the defaults (and five seeds)
PLAY = "lab"  # the animation's session keys: lab_playing, lab_last_frame; buttons lab_play, lab_pause, lab_step
FRAME = 5  # percent of the run per frame of the animation: 20 frames from the start to the end

page.presets({
    t("p9.preset_hacking"): {"algos": DEFAULT_ALGOS, "beta": 0.0, "flat": True, "steps": 150},
    t("p9.preset_kl"): {"algos": DEFAULT_ALGOS, "beta": 0.5, "flat": True, "steps": 150},
    t("p9.preset_groups"): {"algos": [rlcore.ALGORITHM_NAMES[m] for m in rlcore.GROUP_METHODS], "G": 4, "beta": 0.0},
    t("p9.preset_length"): {"algos": [rlcore.ALGORITHM_NAMES[a] for a in ("grpo", "gspo", "dapo")], "len": 8,
                            "beta": 0.0, "steps": 150},
})


def ask(v: dict) -> bool:
    """Predict first, from the runs themselves (``rlcore.lab_question`` picks the question and reads its answer)."""
    names, tree, steps, beta, sep = v["names"], v["tree"], v["steps"], fmt(v["beta"]), t("p9.sep")
    q = page.run(rlcore.lab_question, v["results"], names, length=v["length"], flattery=v["flattery"])
    if q.kind in ("length", "score"):  # the entries' placeholders: steps and length or β; the finals
        finals = sep.join(f"{n} {fmt(x)}" for n, x in q.ranking)
        said = t(f"p9.explain_{q.kind}", lengths=finals, scores=finals)
        return page.predict(t(f"p9.ask_{q.kind}", steps=steps, length=v["length"], beta=beta), names,
                            names[q.answer], said, key="predict_lab")
    if q.kind == "flattery":
        return page.predict(t("p9.ask_flattery", beta=beta, steps=steps, name=names[0], best=v["best"]),
                            FLATTERY_SHARES, FLATTERY_SHARES[q.answer],
                            t("p9.explain_flattery", final=pct(q.final), ref=pct(tree.ref_branch[1]),
                              gap=fmt(tree.leaf_means[-1] - tree.leaf_means[tree.best])), key="predict_lab")
    options = [esc(tok) for tok in v["tokens"]]  # options are shown as markdown: escaped
    return page.predict(t("p9.ask_token", steps=steps, name=names[0]), options, options[q.answer],
                        t("p9.explain_token", answer=options[q.answer], p=fmt(q.final)), key="predict_lab")


def draw_settings() -> dict:
    """The algorithms, β and the steps on top, the rest under "More settings": every setting by name (a LabConfig's
    by its field), and where the step control and the main chart go, right under them (``player``, ``main``)."""
    c1, c2, c3 = st.columns([5, 2, 2])  # room for three algorithm names side by side
    s = {"algos": inputs.multiselect(t("p9.algos"), list(NAMES), DEFAULT_ALGOS, max_selections=3, key="algos",
                                     where=c1, format_func=LINK_SHOWN.get),
         "beta": inputs.slider(t("p9.beta"), 0.0, 1.0, D.beta, 0.01, key="beta", where=c2, help=t("p9.beta_help")),
         "steps": inputs.slider(t("p9.steps"), 20, 300, D.steps, 10, key="steps", where=c3, help=t("p9.steps_help")),
         "player": st.columns([4, 1, 1], vertical_alignment="bottom"), "main": st.container()}
    with st.expander(t("judge.more_settings")):
        cols = st.columns(3)
        for i, (field, (key, lo, hi, step)) in enumerate(rlcore.lab.SETTINGS.items()):  # three to a column
            s[field] = inputs.slider(t(f"p9.{field}"), lo, hi, getattr(D, field, 5), step, key=key, where=cols[i // 3],
                                     help=t(f"p9.{field}_help"))
        agg = inputs.selectbox(t("p9.agg"), AGGREGATIONS, OWN_AGG, key="agg", help=t("p9.agg_help"),
                               format_func=AGG_SHOWN.get)
        c1, c2, c3 = st.columns([1, 1, 1])
        s["flattery"] = inputs.toggle(t("p9.flat"), True, key="flat", where=c1, help=t("p9.flat_help"))
        s["judge"] = JUDGE_LABELS[inputs.radio(t("p9.judge_label"), list(JUDGE_LABELS), next(iter(JUDGE_LABELS)),
                                               key="judge", horizontal=True, where=c2, format_func=JUDGE_SHOWN.get)]
        s["noise"] = inputs.slider(t("p9.noise"), 0.0, 3.0, D.noise, 0.1, key="noise", where=c3, help=t(
            "p9.noise_help")) if s["judge"] == "noise" else D.noise  # only the noise judge has a σ
    return s | {"loss_agg": None if agg == OWN_AGG else agg}


def train_runs(s: dict) -> tuple[dict, int, dict]:
    """Each chosen algorithm's ``canonical`` config and runs (its seeds' bands) by shown name, and the seeds trained."""
    given = {f: s[f] for f in rlcore.LabConfig.__dataclass_fields__ if f in s}  # the settings a LabConfig takes
    configs = {SHOWN[NAMES[name]]: page.run(rlcore.LabConfig, algorithm=NAMES[name], **given).canonical()
               for name in s["algos"]}  # canonical: settings an algorithm does not read never split its runs
    n_seeds = page.run(rlcore.lab_seed_count, list(configs.values()), s["seeds"])  # no run holds up the server
    if n_seeds < s["seeds"]:
        st.caption(t("p9.fewer_seeds", n=n_seeds, asked=s["seeds"]))
    light = page.run(rlcore.lab_is_light, list(configs.values()), n_seeds)  # a newcomer's short panel goes beside
    results = lab.train(  # shared by the server's learners: 256 entries of 40 KB (100 steps) to 120 KB (300 steps)
        configs, lambda c: page.study(rlcore.lab_bands, scenario, c, n_seeds, entries=256, heavy=True, light=light),
        training=lambda name: t("p9.training", name=name),
        diverged=lambda name, c, out: t("p9.diverged", name=name, step=out.diverged_at, lr=f"{c.lr:g}"))
    return configs, n_seeds, results


def draw_runs(v: dict, revealed: bool) -> None:
    """Once revealed, the main chart (the mean judge score) and each algorithm's numbers at the step shown; then the
    environment: the leaves of the tree every run starts from, and the mean judge score there."""
    names, shown, tree, start = v["names"], v["shown"], v["tree"], fmt(v["start_score"])
    if revealed:
        score = lab.bands(v, "score")
        lo, hi = float(score[2].low.min()), float(score[2].high.max())
        with v["main"]:
            lab.panels(v, {t("p9.score_y"): score}, name="lab_score", title=t("p9.score_title"), height=230,
                        y_title=t("p9.score_y"), y_domain=[round(lo - 0.05, 1), round(hi + 0.05, 1)],
                        alt_text=t("p9.score_alt", shown=shown, steps=v["steps"], names=t("p9.sep").join(names)))
        for col, name in zip(st.columns(len(names)), names, strict=True):
            r = v["results"][name]
            col.markdown(t("p9.after", name=name, shown=shown))
            col.metric(t("p9.score_metric"), fmt(r.score.median[shown]),
                       delta=fmt(r.score.median[shown] - v["start_score"], sign=True),
                       help=t("p9.score_metric_help", n=v["n_seeds"]))
            if v["flattery"]:
                points = fmt(100 * (r.flattery.median[shown] - tree.ref_branch[1]), 0, sign=True)
                col.metric(t("p9.flattery_metric", best=v["best"]), pct(r.flattery.median[shown]),
                           delta=t("p9.points", points=points), delta_color="inverse",
                           help=t("p9.flattery_metric_help"))
            col.metric(t("p9.kl_metric"), fmt(r.kl.median[shown], 3), help=t("p9.kl_metric_help"))
    with st.expander(t("p9.leaves"), expanded=False):
        # the flattering leaf, last, named in the page's language (rlcore names it "<best token> + flattery")
        leaves = [*tree.leaf_names[:-1], t("judge.flattering", answer=v["best_raw"])] if v["flattery"] \
            else list(tree.leaf_names)
        answer_col, ref_col, mean_col = t("p9.col_answer"), t("p9.col_ref"), t("p9.col_mean")
        page.table(pd.DataFrame({answer_col: leaves, ref_col: tree.leaf_ref_probs, mean_col: tree.leaf_means}),
                   formats={ref_col: "%.3f", mean_col: "%.2f"})
        st.caption(t("p9.leaves_caption"))
    st.markdown(t("p9.start_flattery", best=v["best"], plain=fmt(tree.leaf_means[tree.best]),
                  flat=fmt(tree.leaf_means[-1]), ref=pct(tree.ref_branch[1]), start=start) if v["flattery"]
                else t("p9.start_plain", start=start))


def draw_curves(v: dict) -> None:
    """What each algorithm does over time (flattery, KL, clipping, PPO's critic), and the first token's policy."""
    st.subheader(t("p9.curves_heading"))
    names, best_raw, ppo, sep = v["names"], v["best_raw"], SHOWN["ppo"], t("p9.sep")
    clipped = [n for n in names if v["configs"][n].clipped]
    parts = {t("p9.panel_flattery", best=best_raw): lab.bands(v, "flattery")} if v["flattery"] else {}
    parts[t("p9.panel_kl")] = lab.bands(v, "kl")
    if clipped:
        parts[t("p9.panel_clip")] = lab.bands(v, "clip", only=clipped)
    if ppo in v["results"]:  # the critic, as a trainer's dashboard shows it: one panel per decision point
        where = [t("p9.panel_critic_first"), t("p9.panel_critic_branch", best=best_raw)][:2 if v["flattery"] else 1]
        parts |= {label: lab.bands(v, "values", column=d, only=[ppo]) for d, label in enumerate(where)}
    lab.panels(v, parts, name="lab_curves", title=t("p9.curves_title"), alt_text=lambda df: t(
        "p9.curves_alt", quantities=sep.join(dict.fromkeys(df["quantity"])), names=sep.join(names)))
    notes = [t("p9.note_flattery", best=v["best"], ref=pct(v["tree"].ref_branch[1])) if v["flattery"] else "",
             "" if not clipped else t("p9.note_reinforce") if len(clipped) < len(names) else
             t("p9.note_clip", epochs=v["epochs"]), t("p9.note_critic") if ppo in v["results"] else ""]
    if any(notes):
        st.caption(t("p9.note_join").join(filter(None, notes)))
    lab.panels(v, "probs", by_token=True, name="lab_first_token", title=t("p9.first_title"), y_title=t("p9.first_y"),
                alt_text=t("p9.first_alt"), y_domain=[0, 1])


def draw_health(v: dict) -> None:
    """Answer length, entropy and pass@k; with length tokens on, each first token's answer length; DAPO's groups."""
    st.subheader(t("p9.health_heading"))
    names, tree, tokens, results, first = v["names"], v["tree"], v["tokens"], v["results"], v["names"][0]
    k_col, text_col = st.columns([1, 2])
    k = inputs.slider(t("p9.k"), 1, 64, 8, 1, key="k", where=k_col, help=t("p9.k_help"))
    right = t("p9.sep").join(f"**{esc(tok)}**" for tok, r in zip(tokens, tree.right, strict=True) if r)
    text_col.markdown(t("p9.health_text", right=right))
    pass_k = {n: page.run(rlcore.lab_pass_at_k, results[n], k) for n in names}
    parts = {t("p9.panel_length"): lab.bands(v, "length"), t("p9.panel_entropy"): lab.bands(v, "entropy"),
             "pass@1": lab.bands(v, "pass1"), f"pass@{k}": lab.bands(v, "pass_k", source=pass_k)}
    lab.panels(v, parts, name="lab_health", title=t("p9.health_title"),
                alt_text=t("p9.health_alt", k=k, names=t("p9.sep").join(names)))
    r, rk = results[first], pass_k[first]
    st.markdown(t("p9.health_numbers", name=first, h0=fmt(r.entropy.median[0], 2), h1=fmt(r.entropy.median[-1], 2),
                  p0=pct(r.pass1.median[0]), p1=pct(r.pass1.median[-1]), k=k, k0=pct(rk.median[0]),
                  k1=pct(rk.median[-1])))
    if v["length"]:
        lab.panels(v, "token_length", by_token=True, name="lab_length", title=t("p9.length_title"),
                    y_title=t("p9.length_y"), alt_text=t("p9.length_alt"))
        w, lines = tree.likeliest_wrong, [t("p9.length_text")]
        for name, m in ((n, results[n].token_length.median) for n in names):
            said = dict(name=name, best=v["best"], a0=fmt(m[0, tree.best], 2), a1=fmt(m[-1, tree.best], 2))
            lines.append(t("p9.length_line", **said) if w is None else t(
                "p9.length_line_wrong", wrong=esc(tokens[w]), w0=fmt(m[0, w], 2), w1=fmt(m[-1, w], 2), **said))
        st.markdown("\n".join(lines))
    if dapo := results.get(SHOWN["dapo"]):
        st.caption(t("p9.dapo_caption", resample=v["resample"], drawn=fmt(dapo.groups_drawn, 2),
                     none=pct(dapo.dead_total, 1)))


def draw_questions(v: dict) -> None:
    """Two questions from trainers' issue trackers: a loss of 0 that still learns, and groups that teach nothing."""
    st.subheader(t("p9.questions_heading"))
    names, results = v["names"], v["results"]
    left, right = st.columns(2, gap="large")
    left.markdown(t("p9.zero_loss"))
    right.markdown(t("p9.dead_groups", group=v["group_size"]))
    if not any(BY_SHOWN[n] in rlcore.GROUP_METHODS for n in names):
        right.caption(t("p9.no_group"))
    for col, name in zip(st.columns(len(names)), names, strict=True):
        col.markdown(f"**{name}**")
        c1, c2 = col.columns(2)
        c1.metric(t("p9.loss0"), fmt(results[name].first[0], 3), help=t("p9.loss0_help"))
        c2.metric(t("p9.grad0"), fmt(results[name].first[1], 3), help=t("p9.grad0_help"))
        col.caption(t("p9.dead_total", share=pct(results[name].dead_total, 1)))
    lab.panels(v, {t("p9.panel_loss"): lab.bands(v, "loss"), t("p9.panel_grad"): lab.bands(v, "grad"),
                    t("p9.panel_dead"): lab.bands(v, "dead")}, name="lab_questions", title=t("p9.questions_title"),
                alt_text=t("p9.questions_alt"), subtitle=wrap(t("p9.questions_subtitle", n=v["n_seeds"])))


@page.one_at_a_time
def lab_panel(timed: bool) -> None:
    """The question, the settings, the step control, the runs and every chart, all fed by the settings: one fragment,
    rerun on play's timer while playing (``ui.play``), one learner's at a time on the server (``one_at_a_time``)."""
    play.sync(PLAY, timed)
    question = st.container()  # drawn once the runs give its answer
    s = draw_settings()
    if not s["algos"]:
        st.info(t("p9.none"), icon="🧪")
        return
    tree = page.run(rlcore.lab_tree, scenario, s["flattery"])
    configs, n_seeds, results = train_runs(s)
    if not results:
        st.error(t("p9.none_finished"), icon="⚠️")
        return
    names, tokens = list(results), scenario.tokens
    v = s | {"tree": tree, "configs": configs, "n_seeds": n_seeds, "results": results, "names": names,
             "keep": lab.kept_steps(s["steps"], len(names), scenario.n), "scenario": scenario,
             "tokens": tokens, "best": esc(tokens[tree.best]), "best_raw": tokens[tree.best],
             "start_score": results[names[0]].score.median[0], "band_lines": wrap(t("p9.band_note", n=n_seeds)),
             "colors": {name: ALGORITHM_COLORS[BY_SHOWN[name]] for name in names},
             "titles": (t("p9.x_title"), t("p9.legend_token"), t("p9.legend_algorithm"))}
    with question:
        revealed = ask(v)
    if not revealed:  # no empty frames: one note of what the answer opens, then the start state below
        inputs.later("progress", "k")  # drawn with the runs: a link's values wait for the answer
        s["main"].info(t("p9.hidden_flattery" if s["flattery"] else "p9.hidden", steps=s["steps"],
                         names=t("p9.sep").join(names)), icon=":material/science:")
    progress = play.player(PLAY, timed, t("p9.progress"), key="progress", by=FRAME, where=s["player"],
                           help=t("p9.progress_help"), shown=revealed)  # before the answer there is nothing to play
    v["shown"] = s["steps"] * progress // 100
    draw_runs(v, revealed)
    if revealed:
        for section in (draw_curves, draw_health, draw_questions, lab.log_downloads):
            section(v)


play.fragment(lab_panel, PLAY)
with st.expander(t("p9.one_line")):
    st.markdown(t("p9.one_line_text"))

page.end(code=(rlcore.lab, rlcore.lab_bands, rlcore.group_advantages, rlcore.gae, rlcore.clipped_objective,
               rlcore.kl_estimators, rlcore.sequence_ratio, rlcore.gradient_weights, rlcore.informative_groups,
               rlcore.entropy, rlcore.pass_at_k,))
