"""Training lab: the whole RL loop on the running example, one algorithm against another."""

import numpy as np
import pandas as pd
import streamlit as st

import rlcore
from ui import charts, i18n, inputs, page, play, prep, turns
from ui.bundles import LabBands
from ui.colors import ALGORITHM_COLORS
from ui.format import esc, fmt, pct, wrap
from ui.i18n import t

scenario = page.setup("p9")

NAMES = {rlcore.ALGORITHM_NAMES[a]: a for a in rlcore.ALGORITHMS}  # the link's (rlcore's) names → rlcore's id
# Looked up once per rerun of the page, not per frame of Play: the names the learner reads (in the page's
# language; the charts' series and the question's options), and back to rlcore's id
SHOWN = {a: t(f"p9.algorithms.{a}") for a in rlcore.ALGORITHMS}
BY_SHOWN = {name: a for a, name in SHOWN.items()}
LINK_SHOWN = {name: SHOWN[a] for name, a in NAMES.items()}  # the multiselect's option (link value) → shown name
DEFAULT_ALGOS = [rlcore.ALGORITHM_NAMES[a] for a in ("reinforce_mean", "grpo", "ppo")]
JUDGE_LABELS = {"the leaf's sampled scores": "samples", "its mean plus noise": "noise"}  # link value → judge
JUDGE_SHOWN = {label: t(f"p9.judge.{judge}") for label, judge in JUDGE_LABELS.items()}
OWN_AGG = "each algorithm's own"
AGGREGATIONS = [OWN_AGG, *rlcore.lab.LOSS_AGGREGATIONS]
AGG_SHOWN = {agg: t("p9.own_agg") if agg == OWN_AGG else agg for agg in AGGREGATIONS}  # verl's names as written
FLATTERY_SHARES = [t("p9.share_below"), t("p9.share_between"), t("p9.share_above")]
DEFAULTS = rlcore.LabConfig()
PLAY = "lab"  # the animation's session keys: lab_playing, lab_last_frame; buttons lab_play, lab_pause, lab_step
FRAME = 5  # percent of the run per frame of the animation: 20 frames from the start to the end

page.presets({
    t("p9.preset_hacking"): {"algos": DEFAULT_ALGOS, "beta": 0.0, "flat": True, "steps": 150},
    t("p9.preset_kl"): {"algos": DEFAULT_ALGOS, "beta": 0.5, "flat": True, "steps": 150},
    t("p9.preset_groups"): {"algos": [rlcore.ALGORITHM_NAMES[m] for m in rlcore.GROUP_METHODS],
                            "G": 4, "beta": 0.0},
    t("p9.preset_length"): {"algos": [rlcore.ALGORITHM_NAMES[a] for a in ("grpo", "gspo", "dapo")], "len": 8,
                            "beta": 0.0, "steps": 150},
})


# Shared by everyone on the server: a room of learners near the same settings reuses each other's runs. An entry is
# 40 KB at the default 100 steps (120 KB at 300), so 256 of them stay under about 30 MB.
@page.cached(256, take_turns=True)  # trainings take turns (ui.turns); cached views wait for none
def run_lab(scenario, config, n_seeds) -> LabBands | int:
    """One algorithm, every seed in one vectorised call, reduced to what the charts need (``ui.bundles``: a
    type pickle can find, since st.cache_data pickles what it returns).

    A run that diverges comes back as the step at which it did, so the other algorithms still show.
    """
    h = rlcore.train(scenario, config, tuple(range(n_seeds)))
    if h.diverged_at is not None:
        return h.diverged_at
    return LabBands(
        score=prep.seed_bands(h.expected_score), probs=prep.seed_bands(h.probs_first),
        flattery=prep.seed_bands(h.probs_branch[..., 1]), kl=prep.seed_bands(h.kl),
        clip=prep.seed_bands(h.clip_fraction), loss=prep.seed_bands(h.loss),
        grad=prep.seed_bands(h.grad_norm), first=rlcore.first_step_loss(h),
        values=prep.seed_bands(h.values) if config.algorithm == "ppo" else None,
        dead=prep.dead_share(h.dead, window=10), dead_total=float(h.dead.mean()),
        length=prep.seed_bands(h.mean_length), token_length=prep.seed_bands(h.token_length),
        entropy=prep.seed_bands(h.entropy), pass1=prep.seed_bands(h.p_correct), p_correct=h.p_correct,
        groups_drawn=float(h.groups_drawn.mean()),
    )


# five views per setting; tables of under 1,800 rows
@st.cache_resource(max_entries=256, show_spinner=False, hash_funcs=turns.HASH_BY_REPR)
def cached_view(key, view: str, _build) -> pd.DataFrame:
    """Build a chart's table once per view of the lab, for the whole run; reruns that change no input, and the
    frames of Play, which only cut it at the step shown, reuse it.

    ``_build`` is not hashed: ``key`` (scenario, configs, seeds) and ``view`` decide what it holds.
    The tables are only read (cut and converted), never changed, so sharing them is safe.
    """
    return _build()


def ask(results: dict, names: list[str], tree, tokens, steps: int, beta: float, flattery: bool, length: int) -> bool:
    """Predict first, from the runs themselves: which algorithm ends highest, or with length tokens on, which one
    ends with the longest answers (one algorithm: how much it flatters, or which first token it favours)."""
    if len(names) > 1 and length:
        final = {n: results[n].length.median[-1] for n in names}
        answer = max(final, key=final.get)
        lengths = t("p9.sep").join(f"{n} {fmt(v, 2)}" for n, v in sorted(final.items(), key=lambda kv: -kv[1]))
        return page.predict(t("p9.ask_length", steps=steps, length=length), names, answer,
                            t("p9.explain_length", lengths=lengths), key="predict_lab")
    if len(names) > 1:
        final = {n: results[n].score.median[-1] for n in names}
        answer = max(final, key=final.get)
        scores = t("p9.sep").join(f"{n} {fmt(v)}" for n, v in sorted(final.items(), key=lambda kv: -kv[1]))
        return page.predict(t("p9.ask_score", steps=steps, beta=fmt(beta)), names, answer,
                            t("p9.explain_score", scores=scores), key="predict_lab")
    name, best = names[0], esc(tokens[tree.best])
    if flattery:
        final = results[name].flattery.median[-1]
        options = FLATTERY_SHARES
        answer = options[0] if final < 0.25 else options[1] if final <= 0.75 else options[2]
        return page.predict(
            t("p9.ask_flattery", beta=fmt(beta), steps=steps, name=name, best=best), options, answer,
            t("p9.explain_flattery", final=pct(final), ref=pct(tree.ref_branch[1]),
              gap=fmt(tree.leaf_means[-1] - tree.leaf_means[tree.best])),
            key="predict_lab",
        )
    final_probs = results[name].probs.median[-1]
    answer = esc(tokens[int(np.argmax(final_probs))])  # options are shown as markdown: escaped
    return page.predict(t("p9.ask_token", steps=steps, name=name), [esc(tok) for tok in tokens], answer,
                        t("p9.explain_token", answer=answer, p=fmt(final_probs.max())), key="predict_lab")


@page.one_at_a_time
def lab_panel(timed: bool) -> None:
    """The question, the settings, the step control, the runs and every chart: the settings feed all of them, so
    the whole lab is one fragment; it reruns on play's timer while playing (``ui.play``). One learner's panel at
    a time on the server (``page.one_at_a_time``)."""
    play.sync(PLAY, timed)
    question = st.container()  # drawn once the runs give its answer
    c1, c2, c3 = st.columns([5, 2, 2])  # room for three algorithm names side by side
    algo_names = inputs.multiselect(t("p9.algos"), list(NAMES), DEFAULT_ALGOS, max_selections=3,
                                    key="algos", where=c1, format_func=LINK_SHOWN.get)
    beta = inputs.slider(t("p9.beta"), 0.0, 1.0, DEFAULTS.beta, 0.01, key="beta", where=c2,
                         help=t("p9.beta_help"))
    steps = inputs.slider(t("p9.steps"), 20, 300, DEFAULTS.steps, 10, key="steps", where=c3,
                          help=t("p9.steps_help"))
    player = st.columns([4, 1, 1], vertical_alignment="bottom")
    main = st.container()       # the main chart, right under the inputs that drive it
    with st.expander(t("judge.more_settings")):
        c1, c2, c3 = st.columns(3)
        lr = inputs.slider(t("p9.lr"), 0.01, 1.0, DEFAULTS.lr, 0.01, key="lr", where=c1,
                           help=t("p9.lr_help"))
        group = inputs.slider(t("p9.group"), 2, 32, DEFAULTS.group_size, 1, key="G", where=c1,
                              help=t("p9.group_help"))
        n_seeds = inputs.slider(t("p9.seeds"), 1, 10, 5, 1, key="seeds", where=c1,
                                help=t("p9.seeds_help"))
        epochs = inputs.slider(t("p9.epochs"), 1, 8, DEFAULTS.epochs, 1, key="epochs", where=c2,
                               help=t("p9.epochs_help"))
        eps = inputs.slider(t("p9.eps"), 0.05, 0.5, DEFAULTS.eps, 0.05, key="eps", where=c2,
                            help=t("p9.eps_help"))
        eps_high = inputs.slider(t("p9.eps_high"), 0.05, 0.5, DEFAULTS.eps_high, 0.01,
                                 key="eps_high", where=c2, help=t("p9.eps_high_help"))
        lam = inputs.slider(t("p9.lam"), 0.0, 1.0, DEFAULTS.lam, 0.05, key="lam", where=c3,
                            help=t("p9.lam_help"))
        resample = inputs.slider(t("p9.resample"), 1, 8, DEFAULTS.resample, 1, key="resample", where=c3,
                                 help=t("p9.resample_help"))
        length = inputs.slider(t("p9.length"), 0, 12, DEFAULTS.length, 1, key="len", where=c3,
                               help=t("p9.length_help"))
        agg_label = inputs.selectbox(t("p9.agg"), AGGREGATIONS, OWN_AGG, key="agg", help=t("p9.agg_help"),
                                     format_func=AGG_SHOWN.get)
        c1, c2, c3 = st.columns([1, 1, 1])
        flattery = inputs.toggle(t("p9.flat"), True, key="flat", where=c1, help=t("p9.flat_help"))
        judge_label = inputs.radio(t("p9.judge_label"), list(JUDGE_LABELS), next(iter(JUDGE_LABELS)),
                                   key="judge", horizontal=True, where=c2, format_func=JUDGE_SHOWN.get)
        noise = DEFAULTS.noise
        if JUDGE_LABELS[judge_label] == "noise":  # only the noise judge has a σ
            noise = inputs.slider(t("p9.noise"), 0.0, 3.0, DEFAULTS.noise, 0.1, key="noise", where=c3,
                                  help=t("p9.noise_help"))

    if not algo_names:
        st.info(t("p9.none"), icon="🧪")
        return

    # canonical: the fields an algorithm does not read are left out of its cache key, so a learner who moves λ
    # retrains PPO alone, and learners whose settings differ only there share the runs
    configs = {SHOWN[NAMES[name]]: page.run(
        rlcore.LabConfig, algorithm=NAMES[name], steps=steps, group_size=group, lr=lr, epochs=epochs, eps=eps,
        beta=beta, lam=lam, judge=JUDGE_LABELS[judge_label], noise=noise, flattery=flattery, length=length,
        eps_high=eps_high, resample=resample, loss_agg=None if agg_label == OWN_AGG else agg_label).canonical()
        for name in algo_names}
    tree = page.run(rlcore.lab_tree, scenario, flattery)
    # A bounded run per algorithm, so one learner's heaviest settings cannot hold up everyone on the server:
    # above the limit the lab runs fewer seeds (at least one), and says so.
    per_seed = max(c.token_updates() for c in configs.values())
    asked, n_seeds = n_seeds, max(1, min(n_seeds, rlcore.lab.MAX_TOKEN_UPDATES // per_seed))
    if n_seeds < asked:
        st.caption(t("p9.fewer_seeds", n=n_seeds, asked=asked))
    results = {}
    # A Streamlit call before each training: the point where a newer input stops this run, so a superseded run
    # is dropped after at most one algorithm instead of all three (Streamlit checks for reruns only there).
    training = st.empty()
    for name, config in configs.items():
        training.caption(t("p9.training", name=name))
        out = run_lab(scenario, config, n_seeds)
        if isinstance(out, int):
            st.warning(t("p9.diverged", name=name, step=out, lr=f"{config.lr:g}"), icon="⚠️")
        else:
            results[name] = out
    training.empty()
    if not results:
        st.error(t("p9.none_finished"), icon="⚠️")
        return

    tokens = scenario.tokens
    best_raw = tokens[tree.best]
    best = esc(best_raw)
    names = list(results)
    band_note = t("p9.band_note", n=n_seeds)
    band_lines = wrap(band_note)  # a subtitle that fits a phone
    start_score = next(iter(results.values())).score.median[0]
    # At most ~60 points per curve, and under ~1,800 rows per chart (4 panels or K tokens, per algorithm).
    keep = prep.thin_steps(steps + 1, max(20, min(61, 1800 // (len(names) * max(4, scenario.n)))))
    keep_steps = keep[keep > 0]  # per-step quantities start at step 1

    def band_frame(field: str, *, column: int | None = None, per_step: bool = False, only=None,
                   source: dict | None = None) -> pd.DataFrame:
        """Long form of one quantity's seed bands for every algorithm: step, algorithm, median, lowest, highest
        (``source``: algorithm → SeedBands, instead of the runs' field)."""
        idx = keep_steps if per_step else keep
        rows = idx - 1 if per_step else idx
        frames = []
        for name in only or names:
            bands = source[name] if source is not None else getattr(results[name], field)
            pick = (lambda a, rows=rows: a[rows]) if column is None else (lambda a, rows=rows: a[rows, column])
            frames.append(pd.DataFrame({"step": idx, "algorithm": name, "median": pick(bands.median),
                                        "lowest": pick(bands.low), "highest": pick(bands.high)}))
        return pd.concat(frames, ignore_index=True)

    algo_colors = {name: ALGORITHM_COLORS[BY_SHOWN[name]] for name in names}
    # everything the charts below depend on, the language of their panel and series names included
    VIEW_KEY = (scenario, tuple(configs[n] for n in names), n_seeds, i18n.current())

    # ---------------------------------------------------------------- the question, the step control
    with question:
        revealed = ask(results, names, tree, tokens, steps, beta, flattery, length)
    if not revealed:  # no empty frames: one note of what the answer opens, then the start state below
        inputs.later("progress", "k")  # drawn with the runs: a link's values wait for the answer
        with main:
            st.info(t("p9.hidden_flattery" if flattery else "p9.hidden", steps=steps,
                      names=t("p9.sep").join(names)), icon=":material/science:")
    # the share of the run shown, not a step number: it stays at the end when the number of steps changes, and a
    # link or a view never holds a step the run does not have
    play.tick(PLAY, timed, "progress", 100, FRAME)
    progress = 100
    if revealed:  # before the answer there is nothing to play
        progress = int(inputs.slider(t("p9.progress"), 0, 100, 100, FRAME, key="progress", where=player[0],
                                     help=t("p9.progress_help")))
        play.controls(PLAY, timed, "progress", 100, progress, where=player[1:], by=FRAME)
    shown = steps * progress // 100
    x_domain = [0, steps]

    x_title = t("p9.x_title")

    def upto(df: pd.DataFrame) -> pd.DataFrame:
        return df[df["step"] <= shown].reset_index(drop=True)

    def facets(df: pd.DataFrame, *, facet: str, facet_order, title: str, subtitle: str, height: int = 150,
               independent_y: bool = True, **bands):
        """One panel per value of ``facet`` (stacked, as wide as the page), up to the step shown, on the whole
        run's x range."""
        return charts.facets(charts.bands(df, x="step", mid="median", low="lowest", high="highest",
                                          x_title=x_title, x_domain=x_domain, **bands),
                             field=facet, order=facet_order, title=title, subtitle=subtitle, height=height,
                             independent_y=independent_y)

    # ---------------------------------------------------------------- the main chart
    if revealed:
        with main:
            score_y = t("p9.score_y")

            def score_view():
                return band_frame("score").assign(quantity=score_y)

            df = cached_view(VIEW_KEY, "score", score_view)
            lo, hi = float(df["lowest"].min()), float(df["highest"].max())
            df = upto(df)
            ch = facets(df, series="algorithm", facet="quantity", facet_order=[score_y],
                        title=t("p9.score_title"), subtitle=band_lines, y_title=score_y,
                        legend_title=t("p9.legend_algorithm"),
                        colors=algo_colors, height=230, y_domain=[round(lo - 0.05, 1), round(hi + 0.05, 1)])
            page.chart(ch, df, alt_text=t("p9.score_alt", shown=shown, steps=steps, names=t("p9.sep").join(names)),
                       name="lab_score", width="stretch")

    # ---------------------------------------------------------------- numbers at the step shown
    if revealed:
        cols = st.columns(len(names))
        for col, name in zip(cols, names, strict=True):
            r = results[name]
            col.markdown(t("p9.after", name=name, shown=shown))
            col.metric(t("p9.score_metric"), fmt(r.score.median[shown]),
                       delta=fmt(r.score.median[shown] - start_score, sign=True),
                       help=t("p9.score_metric_help", n=n_seeds))
            if flattery:
                points = fmt(100 * (r.flattery.median[shown] - tree.ref_branch[1]), 0, sign=True)
                col.metric(t("p9.flattery_metric", best=best), pct(r.flattery.median[shown]),
                           delta=t("p9.points", points=points), delta_color="inverse",
                           help=t("p9.flattery_metric_help"))
            col.metric(t("p9.kl_metric"), fmt(r.kl.median[shown], 3), help=t("p9.kl_metric_help"))

    # ---------------------------------------------------------------- the environment
    plain_q, flat_q = tree.leaf_means[tree.best], tree.leaf_means[-1]
    with st.expander(t("p9.leaves"), expanded=False):
        # the flattering leaf, last, named in the page's language (rlcore names it "<best token> + flattery")
        leaves = [*tree.leaf_names[:-1], t("judge.flattering", answer=best_raw)] if flattery else list(tree.leaf_names)
        answer_col, ref_col, mean_col = t("p9.col_answer"), t("p9.col_ref"), t("p9.col_mean")
        page.table(pd.DataFrame({answer_col: leaves, ref_col: tree.leaf_ref_probs, mean_col: tree.leaf_means}),
                   formats={ref_col: "%.3f", mean_col: "%.2f"})
        st.caption(t("p9.leaves_caption"))
    if flattery:
        st.markdown(t("p9.start_flattery", best=best, plain=fmt(plain_q), flat=fmt(flat_q),
                      ref=pct(tree.ref_branch[1]), start=fmt(start_score)))
    else:
        st.markdown(t("p9.start_plain", start=fmt(start_score)))

    if not revealed:
        return

    # ---------------------------------------------------------------- curves
    st.subheader(t("p9.curves_heading"))
    ppo_name = SHOWN["ppo"]
    clipped_names = [n for n in names if configs[n].clipped]

    def curves_view():
        panels = {}
        if flattery:
            panels[t("p9.panel_flattery", best=best_raw)] = band_frame("flattery")
        panels[t("p9.panel_kl")] = band_frame("kl")
        if clipped_names:
            panels[t("p9.panel_clip")] = band_frame("clip", per_step=True, only=clipped_names)
        if ppo_name in results:  # the critic, as a trainer's dashboard shows it: one panel per decision point
            where = [t("p9.panel_critic_first"), t("p9.panel_critic_branch", best=best_raw)][:2 if flattery else 1]
            for d, label in enumerate(where):
                panels[label] = band_frame("values", column=d, only=[ppo_name])
        return pd.concat([f.assign(quantity=q) for q, f in panels.items()], ignore_index=True)

    full = cached_view(VIEW_KEY, "curves", curves_view)
    panels, df = list(dict.fromkeys(full["quantity"])), upto(full)
    ch = facets(df, series="algorithm", facet="quantity", facet_order=panels,
                title=t("p9.curves_title"), subtitle=band_lines, y_title="", legend_title=t("p9.legend_algorithm"),
                colors=algo_colors)
    page.chart(ch, df, alt_text=t("p9.curves_alt", quantities=t("p9.sep").join(dict.fromkeys(df["quantity"])),
                                  names=t("p9.sep").join(names)), name="lab_curves", width="stretch")
    notes = []
    if flattery:
        notes.append(t("p9.note_flattery", best=best, ref=pct(tree.ref_branch[1])))
    if clipped_names and len(clipped_names) < len(names):
        notes.append(t("p9.note_reinforce"))
    elif clipped_names:
        notes.append(t("p9.note_clip", epochs=epochs))
    if ppo_name in results:
        notes.append(t("p9.note_critic"))
    if notes:
        st.caption(t("p9.note_join").join(notes))

    def first_token_view():
        return pd.concat([band_frame("probs", column=i).assign(token=tok) for i, tok in enumerate(tokens)],
                         ignore_index=True)

    df = upto(cached_view(VIEW_KEY, "first_token", first_token_view))
    ch = facets(df, series="token", facet="algorithm", facet_order=names, tokens=tokens,
                title=t("p9.first_title"), subtitle=band_lines, y_title=t("p9.first_y"),
                legend_title=t("p9.legend_token"), independent_y=False, y_domain=[0, 1])
    page.chart(ch, df, alt_text=t("p9.first_alt"), name="lab_first_token", width="stretch")

    # ---------------------------------------------------------------- length, entropy, pass@k
    st.subheader(t("p9.health_heading"))
    right_names = t("p9.sep").join(f"**{esc(t)}**" for t, r in zip(tokens, tree.right, strict=True) if r)
    k_col, text_col = st.columns([1, 2])
    k = inputs.slider(t("p9.k"), 1, 64, 8, 1, key="k", where=k_col, help=t("p9.k_help"))
    text_col.markdown(t("p9.health_text", right=right_names))
    pass_k = {n: prep.seed_bands(rlcore.pass_at_k(results[n].p_correct, k)) for n in names}

    def health_view():
        panels = {t("p9.panel_length"): band_frame("length"),
                  t("p9.panel_entropy"): band_frame("entropy"),
                  "pass@1": band_frame("pass1"),
                  f"pass@{k}": band_frame("pass_k", source=pass_k)}
        return pd.concat([f.assign(quantity=q) for q, f in panels.items()], ignore_index=True)

    full = cached_view((VIEW_KEY, k), "health", health_view)
    panels, df = list(dict.fromkeys(full["quantity"])), upto(full)
    ch = facets(df, series="algorithm", facet="quantity", facet_order=panels,
                title=t("p9.health_title"), subtitle=band_lines, y_title="",
                legend_title=t("p9.legend_algorithm"), colors=algo_colors)
    page.chart(ch, df, alt_text=t("p9.health_alt", k=k, names=t("p9.sep").join(names)), name="lab_health",
               width="stretch")
    first = results[names[0]]
    st.markdown(t("p9.health_numbers", name=names[0], h0=fmt(first.entropy.median[0], 2),
                  h1=fmt(first.entropy.median[-1], 2), p0=pct(first.pass1.median[0]), p1=pct(first.pass1.median[-1]),
                  k=k, k0=pct(pass_k[names[0]].median[0]), k1=pct(pass_k[names[0]].median[-1])))

    if length:
        def length_view():
            return pd.concat([band_frame("token_length", column=i).assign(token=tok)
                              for i, tok in enumerate(tokens)], ignore_index=True)

        df = upto(cached_view(VIEW_KEY, "length", length_view))
        ch = facets(df, series="token", facet="algorithm", facet_order=names, tokens=tokens,
                    title=t("p9.length_title"), subtitle=band_lines,
                    y_title=t("p9.length_y"), legend_title=t("p9.legend_token"), independent_y=False)
        page.chart(ch, df, alt_text=t("p9.length_alt"), name="lab_length", width="stretch")
        wrong = [i for i in range(len(tokens)) if not tree.right[i]]
        lines = []
        for name in names:
            band = results[name].token_length
            values = dict(name=name, best=best, a0=fmt(band.median[0, tree.best], 2),
                          a1=fmt(band.median[-1, tree.best], 2))
            if wrong:
                w = max(wrong, key=lambda i: tree.ref_first[i])  # the wrong token the reference writes most
                lines.append(t("p9.length_line_wrong", wrong=esc(tokens[w]), w0=fmt(band.median[0, w], 2),
                               w1=fmt(band.median[-1, w], 2), **values))
            else:
                lines.append(t("p9.length_line", **values))
        st.markdown(t("p9.length_text") + "\n" + "\n".join(lines))
    dapo = SHOWN["dapo"]
    if dapo in results:
        st.caption(t("p9.dapo_caption", resample=resample, drawn=fmt(results[dapo].groups_drawn, 2),
                     none=pct(results[dapo].dead_total, 1)))

    # ---------------------------------------------------------------- two questions from trainers' issue trackers
    st.subheader(t("p9.questions_heading"))
    group_names = [n for n in names if BY_SHOWN[n] in rlcore.GROUP_METHODS]
    left, right = st.columns(2, gap="large")
    with left:
        st.markdown(t("p9.zero_loss"))
    with right:
        st.markdown(t("p9.dead_groups", group=group))
        if not group_names:
            st.caption(t("p9.no_group"))
    cols = st.columns(len(names))
    for col, name in zip(cols, names, strict=True):
        loss0, grad0 = results[name].first
        col.markdown(f"**{name}**")
        c1, c2 = col.columns(2)
        c1.metric(t("p9.loss0"), fmt(loss0, 3), help=t("p9.loss0_help"))
        c2.metric(t("p9.grad0"), fmt(grad0, 3), help=t("p9.grad0_help"))
        col.caption(t("p9.dead_total", share=pct(results[name].dead_total, 1)))

    def questions_view():
        panels = {t("p9.panel_loss"): band_frame("loss", per_step=True),
                  t("p9.panel_grad"): band_frame("grad", per_step=True)}
        dead = pd.concat([pd.DataFrame({"step": keep_steps, "algorithm": n, "median": results[n].dead[keep_steps - 1]})
                          for n in names], ignore_index=True)
        panels[t("p9.panel_dead")] = dead.assign(lowest=dead["median"], highest=dead["median"])
        return pd.concat([f.assign(quantity=q) for q, f in panels.items()], ignore_index=True)

    full = cached_view(VIEW_KEY, "questions", questions_view)
    panels, df = list(dict.fromkeys(full["quantity"])), upto(full)
    ch = facets(df, series="algorithm", facet="quantity", facet_order=panels,
                title=t("p9.questions_title"), subtitle=wrap(t("p9.questions_subtitle", n=n_seeds)), y_title="",
                legend_title=t("p9.legend_algorithm"), colors=algo_colors)
    page.chart(ch, df, alt_text=t("p9.questions_alt"), name="lab_questions", width="stretch")


play.fragment(lab_panel, PLAY)

with st.expander(t("p9.one_line")):
    st.markdown(t("p9.one_line_text"))

page.end(code=(rlcore.lab, rlcore.group_advantages, rlcore.gae, rlcore.clipped_objective, rlcore.kl_estimators,
               rlcore.sequence_ratio, rlcore.gradient_weights, rlcore.informative_groups, rlcore.entropy,
               rlcore.pass_at_k,))
