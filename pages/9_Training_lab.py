"""Training lab: the whole RL loop on the running example, one algorithm against another."""

import numpy as np
import pandas as pd
import streamlit as st

import rlcore
from ui import charts, inputs, page, play, prep
from ui.bundles import LabBands
from ui.colors import ALGORITHM_COLORS
from ui.format import esc, fmt, pct, wrap

scenario = page.setup(
    "Run the whole loop for many steps: which algorithm raises the judge's score fastest, and which one learns to "
    "flatter the judge instead?",
)
page.why(
    "The other pages take one term at a time. Here every term works together: the model writes a group of "
    "answers, the judge scores them, an algorithm turns the scores into advantages and a gradient step, and the "
    "updated model writes the next group. Inside the best branch the model can also learn to flatter the judge, "
    "and with length tokens its answers can grow or shrink. Pick up to three algorithms, run each with several "
    "random seeds, press Play to watch them train, and see where they agree and where they differ."
)

NAMES = {rlcore.ALGORITHM_NAMES[a]: a for a in rlcore.ALGORITHMS}  # what the learner reads → rlcore's name
DEFAULT_ALGOS = [rlcore.ALGORITHM_NAMES[a] for a in ("reinforce_mean", "grpo", "ppo")]
JUDGE_LABELS = {"the leaf's sampled scores": "samples", "its mean plus noise": "noise"}
OWN_AGG = "each algorithm's own"
AGGREGATIONS = [OWN_AGG, *rlcore.lab.LOSS_AGGREGATIONS]
DEFAULTS = rlcore.LabConfig()
PLAY = "lab"  # the animation's session keys: lab_playing, lab_last_frame; buttons lab_play, lab_pause, lab_step
FRAME = 5  # percent of the run per frame of the animation: 20 frames from the start to the end

page.presets({
    "Reward hacking (β = 0)": {"algos": DEFAULT_ALGOS, "beta": 0.0, "flat": True, "steps": 150},
    "KL holds it back (β = 0.5)": {"algos": DEFAULT_ALGOS, "beta": 0.5, "flat": True, "steps": 150},
    "GRPO vs Dr. GRPO vs RLOO": {"algos": [rlcore.ALGORITHM_NAMES[m] for m in rlcore.GROUP_METHODS],
                                 "G": 4, "beta": 0.0},
    "Length drift": {"algos": [rlcore.ALGORITHM_NAMES[a] for a in ("grpo", "gspo", "dapo")], "len": 8,
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
@st.cache_resource(max_entries=256, show_spinner=False, hash_funcs=page.HASH_BY_REPR)
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
        lengths = ", ".join(f"{n} {fmt(v, 2)}" for n, v in sorted(final.items(), key=lambda kv: -kv[1]))
        return page.predict(
            f"The judge ignores length. After {steps} steps with up to {length} length tokens, which of the chosen "
            "algorithms writes the longest answers?", names, answer,
            f"Median mean answer length after the last step, in tokens: {lengths}. How each one weighs the tokens "
            "of long and short answers decides it (see below).",
            key="predict_lab",
        )
    if len(names) > 1:
        final = {n: results[n].score.median[-1] for n in names}
        answer = max(final, key=final.get)
        scores = ", ".join(f"{n} {fmt(v)}" for n, v in sorted(final.items(), key=lambda kv: -kv[1]))
        return page.predict(
            f"After {steps} steps with β = {fmt(beta)}, which of the chosen algorithms reaches the highest mean "
            "judge score?", names, answer,
            f"Median mean judge score after the last step: {scores}. Press Play to watch them get there.",
            key="predict_lab",
        )
    name, best = names[0], esc(tokens[tree.best])
    if flattery:
        final = results[name].flattery.median[-1]
        options = ["Below 25%", "Between 25% and 75%", "Above 75%"]
        answer = options[0] if final < 0.25 else options[1] if final <= 0.75 else options[2]
        return page.predict(
            f"With β = {fmt(beta)}, after {steps} steps of {name}, what share of the {best} branch's answers "
            "flatter the judge?",
            options, answer,
            f"The median run ends at {pct(final)}, from the reference's {pct(tree.ref_branch[1])}. Flattery scores "
            f"{fmt(tree.leaf_means[-1] - tree.leaf_means[tree.best])} more than the plain answer, and nothing but "
            "β's KL term holds the policy back from chasing that gap.",
            key="predict_lab",
        )
    final_probs = results[name].probs.median[-1]
    answer = esc(tokens[int(np.argmax(final_probs))])  # options are shown as markdown: escaped
    return page.predict(
        f"After {steps} steps of {name}, which first token will the policy favour?",
        [esc(t) for t in tokens], answer,
        f"**{answer}** ends with probability {fmt(final_probs.max())} in the median run.",
        key="predict_lab",
    )


@page.one_at_a_time
def lab_panel(timed: bool) -> None:
    """The question, the settings, the step control, the runs and every chart: the settings feed all of them, so
    the whole lab is one fragment; it reruns on play's timer while playing (``ui.play``). One learner's panel at
    a time on the server (``page.one_at_a_time``)."""
    play.sync(PLAY, timed)
    question = st.container()  # drawn once the runs give its answer
    c1, c2, c3 = st.columns([5, 2, 2])  # room for three algorithm names side by side
    algo_names = inputs.multiselect("Algorithms to compare (up to three)", list(NAMES), DEFAULT_ALGOS,
                                    max_selections=3, key="algos", where=c1)
    beta = inputs.slider("KL coefficient β", 0.0, 1.0, DEFAULTS.beta, 0.01, key="beta", where=c2,
                         help="How strongly the policy is held near the reference model")
    steps = inputs.slider("Steps", 20, 300, DEFAULTS.steps, 10, key="steps", where=c3,
                          help="Each step samples a fresh group of answers and updates the policy")
    player = st.columns([4, 1, 1], vertical_alignment="bottom")
    main = st.container()       # the main chart, right under the inputs that drive it
    with st.expander("More settings"):
        c1, c2, c3 = st.columns(3)
        lr = inputs.slider("Step size η", 0.01, 1.0, DEFAULTS.lr, 0.01, key="lr", where=c1,
                           help="Plain gradient descent on the logits of each decision")
        group = inputs.slider("Group size G", 2, 32, DEFAULTS.group_size, 1, key="G", where=c1,
                              help="Answers written and scored per step")
        n_seeds = inputs.slider("Seeds", 1, 10, 5, 1, key="seeds", where=c1,
                                help="Independent runs per algorithm; curves show the median and the range")
        epochs = inputs.slider("Epochs per group", 1, 8, DEFAULTS.epochs, 1, key="epochs", where=c2,
                               help="Passes over each group (every algorithm but REINFORCE, which takes one step)")
        eps = inputs.slider("Clip ε", 0.05, 0.5, DEFAULTS.eps, 0.05, key="eps", where=c2,
                            help="A token stops pulling once its ratio π/π_old leaves [1 − ε, 1 + ε]")
        eps_high = inputs.slider("Upper clip ε_high (DAPO, CISPO)", 0.05, 0.5, DEFAULTS.eps_high, 0.01,
                                 key="eps_high", where=c2,
                                 help="DAPO's clip-higher: the ratio may rise to 1 + ε_high before it stops pulling "
                                      "(CISPO: its weight is capped there)")
        lam = inputs.slider("GAE λ (PPO)", 0.0, 1.0, DEFAULTS.lam, 0.05, key="lam", where=c3,
                            help="0 trusts the critic's V, 1 trusts the final score")
        resample = inputs.slider("DAPO: most groups per step", 1, 8, DEFAULTS.resample, 1, key="resample", where=c3,
                                 help="Dynamic sampling: DAPO writes groups until one has scores that differ, at "
                                      "most this many")
        length = inputs.slider("Length tokens (0: off)", 0, 12, DEFAULTS.length, 1, key="len", where=c3,
                               help="After its content an answer may go on for up to this many tokens, each a "
                                    "stop-or-continue choice; the judge ignores them")
        agg_label = inputs.selectbox("Loss aggregation", AGGREGATIONS, OWN_AGG, key="agg",
                                     help="How the token losses of a group add up (verl's names); "
                                          "matters once answers differ in length")
        c1, c2, c3 = st.columns([1, 1, 1])
        flattery = inputs.toggle("Flattering branch", True, key="flat", where=c1,
                                 help="Inside the best branch, offer the continuation that flatters the judge")
        judge_label = inputs.radio("The judge scores an answer with", list(JUDGE_LABELS), next(iter(JUDGE_LABELS)),
                                   key="judge", horizontal=True, where=c2)
        noise = DEFAULTS.noise
        if JUDGE_LABELS[judge_label] == "noise":  # only the noise judge has a σ
            noise = inputs.slider("Judge noise σ", 0.0, 3.0, DEFAULTS.noise, 0.1, key="noise", where=c3,
                                  help="Standard deviation of the judge's noise around each answer's mean score; "
                                       "0 makes the judge give every answer of a leaf the same score")

    if not algo_names:
        st.info("Pick at least one algorithm above to start the lab.", icon="🧪")
        return

    # canonical: the fields an algorithm does not read are left out of its cache key, so a learner who moves λ
    # retrains PPO alone, and learners whose settings differ only there share the runs
    configs = {name: page.run(rlcore.LabConfig, algorithm=NAMES[name], steps=steps, group_size=group, lr=lr,
                              epochs=epochs, eps=eps, beta=beta, lam=lam, judge=JUDGE_LABELS[judge_label],
                              noise=noise, flattery=flattery, length=length, eps_high=eps_high, resample=resample,
                              loss_agg=None if agg_label == OWN_AGG else agg_label).canonical()
               for name in algo_names}
    tree = page.run(rlcore.lab_tree, scenario, flattery)
    # A bounded run per algorithm, so one learner's heaviest settings cannot hold up everyone on the server:
    # above the limit the lab runs fewer seeds (at least one), and says so.
    per_seed = max(c.token_updates() for c in configs.values())
    asked, n_seeds = n_seeds, max(1, min(n_seeds, rlcore.lab.MAX_TOKEN_UPDATES // per_seed))
    if n_seeds < asked:
        st.caption(f"These settings make a large run, so the lab trains {n_seeds} of the {asked} seeds to stay "
                   "quick for everyone on the server; fewer steps, epochs, answers per group or length tokens "
                   "leave room for more.")
    results = {}
    # A Streamlit call before each training: the point where a newer input stops this run, so a superseded run
    # is dropped after at most one algorithm instead of all three (Streamlit checks for reruns only there).
    training = st.empty()
    for name, config in configs.items():
        training.caption(f"Training {name}…")
        out = run_lab(scenario, config, n_seeds)
        if isinstance(out, int):
            st.warning(f"{name} could not finish: the run diverged at step {out} (a logit overflowed); try a step "
                       f"size below {config.lr:g}, fewer epochs or a smaller β.", icon="⚠️")
        else:
            results[name] = out
    training.empty()
    if not results:
        st.error("No algorithm finished with these settings; lower the step size η or β.", icon="⚠️")
        return

    tokens = scenario.tokens
    best_raw = tokens[tree.best]
    best = esc(best_raw)
    names = list(results)
    seeds_word = "seed" if n_seeds == 1 else "seeds"
    band_note = f"median of {n_seeds} {seeds_word}; the band spans the lowest to the highest"
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

    algo_colors = {name: ALGORITHM_COLORS[NAMES[name]] for name in names}
    VIEW_KEY = (scenario, tuple(configs[n] for n in names), n_seeds)  # everything the charts below depend on

    # ---------------------------------------------------------------- the question, the step control
    with question:
        revealed = ask(results, names, tree, tokens, steps, beta, flattery, length)
    if not revealed:  # no empty frames: one note of what the answer opens, then the start state below
        inputs.later("progress", "k")  # drawn with the runs: a link's values wait for the answer
        with main:
            panels = ["the mean judge score of each run", "what each algorithm does over time (KL to the reference"
                      + (", flattery" if flattery else "") + ", clipped tokens, PPO's critic)",
                      "the probability of each first token", "answer length, entropy and pass@k",
                      "the loss, the gradient and the dead groups, step by step"]
            st.info(f"Answer the question above (or press “Just show me”) to see {steps} steps of "
                    f"{', '.join(names)}: " + "; ".join(panels) + ". Then Play shows the runs train, frame by frame.",
                    icon=":material/science:")
    # the share of the run shown, not a step number: it stays at the end when the number of steps changes, and a
    # link or a view never holds a step the run does not have
    play.tick(PLAY, timed, "progress", 100, FRAME)
    progress = 100
    if revealed:  # before the answer there is nothing to play
        progress = int(inputs.slider("Run shown (%)", 0, 100, 100, FRAME, key="progress", where=player[0],
                                     help="How much of the training the charts show, from the start (0%, before "
                                          "any update) to the last step; Play shows it frame by frame, Step one "
                                          "frame more"))
        play.controls(PLAY, timed, "progress", 100, progress, where=player[1:], by=FRAME)
    shown = steps * progress // 100
    x_domain = [0, steps]

    def upto(df: pd.DataFrame) -> pd.DataFrame:
        return df[df["step"] <= shown].reset_index(drop=True)

    def facets(df: pd.DataFrame, *, facet: str, facet_order, title: str, subtitle: str, height: int = 150,
               independent_y: bool = True, **bands):
        """One panel per value of ``facet`` (stacked, as wide as the page), up to the step shown, on the whole
        run's x range."""
        return charts.facets(charts.bands(df, x="step", mid="median", low="lowest", high="highest",
                                          x_title="training step", x_domain=x_domain, **bands),
                             field=facet, order=facet_order, title=title, subtitle=subtitle, height=height,
                             independent_y=independent_y)

    # ---------------------------------------------------------------- the main chart
    if revealed:
        with main:
            def score_view():
                return band_frame("score").assign(quantity="mean judge score (0–10)")

            df = cached_view(VIEW_KEY, "score", score_view)
            lo, hi = float(df["lowest"].min()), float(df["highest"].max())
            df = upto(df)
            ch = facets(df, series="algorithm", facet="quantity", facet_order=["mean judge score (0–10)"],
                        title="Mean judge score over training", subtitle=band_lines, y_title="mean judge score (0–10)",
                        legend_title="algorithm",
                        colors=algo_colors, height=230, y_domain=[round(lo - 0.05, 1), round(hi + 0.05, 1)])
            page.chart(ch, df, alt_text=f"Mean judge score per training step, up to step {shown} of {steps}, for "
                                              f"{', '.join(names)}", name="lab_score", width="stretch")

    # ---------------------------------------------------------------- numbers at the step shown
    if revealed:
        cols = st.columns(len(names))
        for col, name in zip(cols, names, strict=True):
            r = results[name]
            col.markdown(f"**{name}** after {shown} steps")
            col.metric("Mean judge score", fmt(r.score.median[shown]),
                       delta=fmt(r.score.median[shown] - start_score, sign=True),
                       help=f"Median over {n_seeds} {seeds_word} of the policy's exact mean score")
            if flattery:
                col.metric(f"Flattery inside {best}", pct(r.flattery.median[shown]),
                           delta=f"{fmt(100 * (r.flattery.median[shown] - tree.ref_branch[1]), 0, sign=True)} points",
                           delta_color="inverse", help="Share of the best branch's answers that flatter the judge")
            col.metric("KL to the reference", fmt(r.kl.median[shown], 3), help="In nats, over whole answers")

    # ---------------------------------------------------------------- the environment
    plain_q, flat_q = tree.leaf_means[tree.best], tree.leaf_means[-1]
    with st.expander("The answers the model can write, and what the judge gives them", expanded=False):
        st.dataframe(pd.DataFrame({"answer": list(tree.leaf_names), "reference probability": tree.leaf_ref_probs,
                                   "mean judge score": tree.leaf_means}), hide_index=True, width="stretch",
                     column_config={"reference probability": st.column_config.NumberColumn(format="%.3f"),
                                    "mean judge score": st.column_config.NumberColumn(format="%.2f")})
        st.caption("The policy is a table of logits: one row for the first token, one for the choice inside the best "
                   "branch. The reference policy is where training starts.")
    if flattery:
        st.markdown(
            f"**{best}** has the best mean score, so its branch holds a second choice: the plain continuation, "
            f"which the judge scores {fmt(plain_q)} on average, or flattery, which it scores {fmt(flat_q)}. The "
            f"reference model flatters {pct(tree.ref_branch[1])} of the time. Every run starts from the reference, "
            f"where the mean judge score is {fmt(start_score)}."
        )
    else:
        st.markdown(f"The flattering branch is off: each answer is one first-token choice. Every run starts from the "
                    f"reference, where the mean judge score is {fmt(start_score)}.")

    if not revealed:
        return

    # ---------------------------------------------------------------- curves
    st.subheader("Training curves")
    ppo_name = rlcore.ALGORITHM_NAMES["ppo"]
    clipped_names = [n for n in names if configs[n].clipped]

    def curves_view():
        panels = {}
        if flattery:
            panels[f"flattery inside {best_raw} (share)"] = band_frame("flattery")
        panels["KL to the reference (nats)"] = band_frame("kl")
        if clipped_names:
            panels["clipped tokens (share)"] = band_frame("clip", per_step=True, only=clipped_names)
        if ppo_name in results:  # the critic, as a trainer's dashboard shows it: one panel per decision point
            where = ["before the first token", f"inside {best_raw}"][:2 if flattery else 1]
            for d, label in enumerate(where):
                panels[f"PPO critic: V {label}"] = band_frame("values", column=d, only=[ppo_name])
        return pd.concat([f.assign(quantity=q) for q, f in panels.items()], ignore_index=True)

    full = cached_view(VIEW_KEY, "curves", curves_view)
    panels, df = list(dict.fromkeys(full["quantity"])), upto(full)
    ch = facets(df, series="algorithm", facet="quantity", facet_order=panels,
                title="What each algorithm does over time", subtitle=band_lines, y_title="", legend_title="algorithm",
                colors=algo_colors)
    page.chart(ch, df, alt_text=f"One panel per quantity ({', '.join(dict.fromkeys(df['quantity']))}), per training "
                                f"step, for {', '.join(names)}", name="lab_curves", width="stretch")
    notes = []
    if flattery:
        notes.append(f"Flattery is the share of the {best} branch's answers that flatter; the reference's is "
                     f"{pct(tree.ref_branch[1])}.")
    if clipped_names and len(clipped_names) < len(names):
        notes.append("REINFORCE takes one plain gradient step per group: it has no ratio and nothing to clip.")
    elif clipped_names:
        notes.append(f"Clipped tokens are averaged over the {epochs} epochs of each step; the first epoch never clips.")
    if ppo_name in results:
        notes.append("PPO's critic starts at 0 and learns V from the returns it sees; until it catches up, PPO's "
                     "advantages (GAE with that V) are mostly the raw score.")
    if notes:
        st.caption(" ".join(notes))

    def first_token_view():
        return pd.concat([band_frame("probs", column=i).assign(token=tok) for i, tok in enumerate(tokens)],
                         ignore_index=True)

    df = upto(cached_view(VIEW_KEY, "first_token", first_token_view))
    ch = facets(df, series="token", facet="algorithm", facet_order=names, tokens=tokens,
                title="Probability of each first token", subtitle=band_lines, y_title="π(token)",
                legend_title="first token", independent_y=False, y_domain=[0, 1])
    page.chart(ch, df, alt_text="Probability of each first token per training step, one panel per algorithm",
               name="lab_first_token", width="stretch")

    # ---------------------------------------------------------------- length, entropy, pass@k
    st.subheader("Length, entropy and pass@k")
    right_names = ", ".join(f"**{esc(t)}**" for t, r in zip(tokens, tree.right, strict=True) if r)
    k_col, text_col = st.columns([1, 2])
    k = inputs.slider("k for pass@k", 1, 64, 8, 1, key="k", where=k_col,
                      help="pass@k: the chance that at least one of k answers is right")
    text_col.markdown(
        f"An answer counts as right when it starts with {right_names}, the best first token, whatever follows. "
        "pass@1 is the policy's exact chance of a right answer; pass@k = 1 − (1 − pass@1)^k. Entropy measures how "
        "spread out the first choice still is: when it collapses, pass@k stops gaining from extra tries."
    )
    pass_k = {n: prep.seed_bands(rlcore.pass_at_k(results[n].p_correct, k)) for n in names}

    def health_view():
        panels = {"mean answer length (tokens)": band_frame("length"),
                  "entropy of the first token (nats)": band_frame("entropy"),
                  "pass@1": band_frame("pass1"),
                  f"pass@{k}": band_frame("pass_k", source=pass_k)}
        return pd.concat([f.assign(quantity=q) for q, f in panels.items()], ignore_index=True)

    full = cached_view((VIEW_KEY, k), "health", health_view)
    panels, df = list(dict.fromkeys(full["quantity"])), upto(full)
    ch = facets(df, series="algorithm", facet="quantity", facet_order=panels,
                title="Answer length, entropy and pass@k", subtitle=band_lines, y_title="", legend_title="algorithm",
                colors=algo_colors)
    page.chart(ch, df, alt_text=f"Mean answer length, entropy of the first token, pass@1 and pass@{k} per training "
                                f"step, for {', '.join(names)}", name="lab_health", width="stretch")
    first = results[names[0]]
    st.markdown(
        f"Under {names[0]} the entropy of the first choice goes from {fmt(first.entropy.median[0], 2)} to "
        f"{fmt(first.entropy.median[-1], 2)} nats, pass@1 from {pct(first.pass1.median[0])} to "
        f"{pct(first.pass1.median[-1])}, and pass@{k} from {pct(pass_k[names[0]].median[0])} to "
        f"{pct(pass_k[names[0]].median[-1])}."
    )

    if length:
        def length_view():
            return pd.concat([band_frame("token_length", column=i).assign(token=tok)
                              for i, tok in enumerate(tokens)], ignore_index=True)

        df = upto(cached_view(VIEW_KEY, "length", length_view))
        ch = facets(df, series="token", facet="algorithm", facet_order=names, tokens=tokens,
                    title="Mean answer length after each first token", subtitle=band_lines,
                    y_title="tokens per answer", legend_title="first token", independent_y=False)
        page.chart(ch, df, alt_text="Mean answer length after each first token per training step, one panel per "
                                    "algorithm", name="lab_length", width="stretch")
        wrong = [i for i in range(len(tokens)) if not tree.right[i]]
        lines = []
        for name in names:
            band = results[name].token_length
            line = (f"- **{name}**: answers after **{best}** go from {fmt(band.median[0, tree.best], 2)} to "
                    f"{fmt(band.median[-1, tree.best], 2)} tokens")
            if wrong:
                w = max(wrong, key=lambda i: tree.ref_first[i])  # the wrong token the reference writes most
                line += (f"; after **{esc(tokens[w])}**, a wrong start, from {fmt(band.median[0, w], 2)} to "
                         f"{fmt(band.median[-1, w], 2)}")
            lines.append(line + ".")
        st.markdown(
            "The judge ignores length, so any drift comes from how the loss weighs tokens. Under "
            "seq-mean-token-mean (GRPO, and GSPO's per-answer ratio) each answer's loss is divided by its own "
            "length: a long wrong answer is pushed down less per token than a short one, a short right answer "
            "is pushed up more than a long one. Token-mean (DAPO, CISPO, PPO) and seq-mean-token-sum-norm "
            "(Dr. GRPO's) weigh every token alike.\n" + "\n".join(lines)
        )
    dapo = rlcore.ALGORITHM_NAMES["dapo"]
    if dapo in results:
        st.caption(f"Dynamic sampling: DAPO writes groups until one has scores that differ (at most {resample} per "
                   f"step): {fmt(results[dapo].groups_drawn, 2)} per step on average here, and "
                   f"{pct(results[dapo].dead_total, 1)} of its steps found none.")

    # ---------------------------------------------------------------- two questions from trainers' issue trackers
    st.subheader("Two questions trainers keep asking")
    group_names = [n for n in names if NAMES[n] in rlcore.GROUP_METHODS]
    left, right = st.columns(2, gap="large")
    with left:
        st.markdown(
            "**“The loss is exactly 0 at the first step, but the model still learns.”** At the first epoch of a step "
            "the policy is still the one that wrote the group, so every ratio ρ is 1, and a group's advantages average "
            "to zero: the loss, their weighted sum, is 0. Its **gradient** is not, because each answer pushes the "
            "logits of *its own* tokens, up or down by its advantage, and those pushes do not cancel. β adds a term "
            "of its own once the policy has drifted; REINFORCE and PPO have no such cancellation."
        )
    with right:
        st.markdown(
            f"**“Dead groups”: all {group} answers of a group got the same score.** A group baseline then subtracts "
            "that very score from each one: every advantage is 0 and the group teaches nothing (GRPO, Dr. GRPO, RLOO). "
            "REINFORCE's running mean and PPO's critic are not built from the group, so the same scores still carry a "
            "signal for them. How often it happens depends on the judge's spread and on G: try G = 2, or the noise "
            "judge with σ = 0."
        )
        if not group_names:
            st.caption("None of the chosen algorithms uses a group baseline; add GRPO, Dr. GRPO or RLOO to compare.")
    cols = st.columns(len(names))
    for col, name in zip(cols, names, strict=True):
        loss0, grad0 = results[name].first
        col.markdown(f"**{name}**")
        c1, c2 = col.columns(2)
        c1.metric("loss, step 1", fmt(loss0, 3), help="At the first epoch, where ρ = 1; median over seeds")
        c2.metric("gradient norm", fmt(grad0, 3), help="Norm of ∂loss/∂logits at that same first epoch")
        col.caption(f"Dead groups over the whole run: {pct(results[name].dead_total, 1)}")

    def questions_view():
        panels = {"loss at the first epoch": band_frame("loss", per_step=True),
                  "gradient norm at the first epoch": band_frame("grad", per_step=True)}
        dead = pd.concat([pd.DataFrame({"step": keep_steps, "algorithm": n, "median": results[n].dead[keep_steps - 1]})
                          for n in names], ignore_index=True)
        panels["dead groups (share, last 10 steps)"] = dead.assign(lowest=dead["median"], highest=dead["median"])
        return pd.concat([f.assign(quantity=q) for q, f in panels.items()], ignore_index=True)

    full = cached_view(VIEW_KEY, "questions", questions_view)
    panels, df = list(dict.fromkeys(full["quantity"])), upto(full)
    ch = facets(df, series="algorithm", facet="quantity", facet_order=panels,
                title="Loss, gradient and dead groups, step by step",
                subtitle=wrap(f"{band_note} (dead groups: share over all seeds)"), y_title="", legend_title="algorithm",
                colors=algo_colors)
    page.chart(ch, df, alt_text="Loss and gradient norm at the first epoch of each step, and the share of dead groups",
               name="lab_questions", width="stretch")


play.fragment(lab_panel, PLAY)

with st.expander("What each algorithm does, in one line"):
    st.markdown(
        "- **REINFORCE**: push up every token of an answer by its score (minus β·KL); no baseline, so every "
        "sampled answer is pushed up and only the size of the push differs.\n"
        "- **REINFORCE + running mean**: the same, minus a slow running mean of past scores.\n"
        "- **GRPO**: write a group, score each answer against the group, (s − mean) / std; clipped "
        "ratio over several epochs; KL in the loss (Schulman's k3) with weight β.\n"
        "- **Dr. GRPO**: GRPO without dividing by the std.\n"
        "- **RLOO**: each answer against the mean of the *other* answers.\n"
        "- **PPO**: a learned critic V per decision point, GAE(γ, λ) advantages per token, clipped ratio over "
        "several epochs, KL as a per-token penalty in the reward.\n"
        "- **DAPO**: GRPO's advantages with an upper clip that lets rare tokens rise further (ε_high), every token "
        "weighted alike (token-mean), and groups whose scores are all equal drawn again. The paper drops the KL "
        "term; here β applies to it like to the others (set β = 0 to match).\n"
        "- **GSPO**: one ratio per answer, the geometric mean of its token ratios, clipped per answer in a very "
        "narrow range [1 − 0.0003, 1 + 0.0004].\n"
        "- **CISPO**: the ratio is clipped as a weight that carries no gradient, so no token ever loses its "
        "gradient; token-mean."
    )

page.show_code(rlcore.lab, rlcore.group_advantages, rlcore.gae, rlcore.clipped_objective, rlcore.kl_estimators,
               rlcore.sequence_ratio, rlcore.gradient_weights, rlcore.informative_groups, rlcore.entropy,
               rlcore.pass_at_k)
page.end()
