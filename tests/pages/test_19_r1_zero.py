"""Page 19, "R1-Zero in miniature": opening it trains nothing; Train runs the tiny model live; the inspector shows
one group of answers; typed problems are answered or refused with a clear message; runs are shared."""

from __future__ import annotations

import itertools
import threading
import time

import numpy as np
import pandas as pd
import pytest

from pages.views import zero_runs
from rlcore import zero
from serve import jobs, shelves
from tests.apphelp import (
    chart_by_title,
    chart_frame,
    charts,
    data_with,
    keys,
    moves_charts,
    numbers,
    page_file,
    page_text,
    run_page,
    shows_numbers,
    titles,
)
from tests.pages.test_chinese import terms
from tests.pages.zhhelp import english_left

PAGE = page_file("19_")
K = keys(PAGE)
SHORT = {"steps": 5}      # a few steps: about a second of training


def train(at, **settings):
    for name, value in settings.items():
        at.session_state[K(name)] = value
    at.run()
    next(b for b in at.button if b.label == "Train").click().run()
    return at


@pytest.fixture(scope="module")
def trained():
    """The page after Train at the short settings, shared by the tests that only read it (one training each)."""
    return train(run_page(PAGE), **SHORT)


def group_chart(at) -> dict:
    """The inspector's chart: one problem's group of answers, token by token."""
    (chart,) = [c for c in charts(at) if any(" answers, step " in t for t in titles(c["spec"]))]
    return chart


def chart_titles(at) -> list[str]:
    return [t for c in charts(at) for t in titles(c["spec"])]


def test_opening_the_page_trains_nothing_and_train_grows_the_curves():
    # a seed no other test trains, so this run is not one already shared
    at = run_page(PAGE, inputs={"steps": 5, "seed": 11})
    base = chart_frame(at, "On the held-out problems", "value")
    assert set(base["step"]) == {0}                                   # nothing trained: the base model alone
    assert set(chart_frame(at, "How much it writes", "value")["step"]) == {0}   # no empty chart before Train
    at = train(at)
    health = chart_frame(at, "On the held-out problems", "value")
    assert sorted(set(health["step"])) == [0, 1, 2, 3, 4, 5]   # step 0 (the base) and one point per update
    # the base shown before training is the run's step 0: the same held-out draws for the same seed
    step0 = health[health["step"] == 0].reset_index(drop=True)
    pd.testing.assert_frame_equal(step0, base.reset_index(drop=True))
    pass1 = health[health["curve"] == "pass@1"].sort_values("step")["value"].to_numpy()
    passk = health[health["curve"] == "pass@8"].sort_values("step")["value"].to_numpy()
    assert np.all((pass1 >= 0) & (pass1 <= passk) & (passk <= 1))      # pass@8 of the same answers is never lower
    kl = health[health["curve"] == "KL"].sort_values("step")["value"].to_numpy()
    assert kl[0] == 0                                                 # the base against itself


def test_the_length_pass_rate_per_size_where_it_changed_and_what_it_wrote_are_the_runs(trained):
    """The second chart draws, at every step, the run's mean length overall and per problem size, and pass@1 per
    size; the third the push and KL per answer position; the table the samples: the same numbers
    ``rlcore.zero.train`` returns for these settings."""
    at = trained
    run = zero.train(zero.ZeroConfig(steps=5, passk_max=64), 0)   # the page's run: pass@k to 64
    df = chart_frame(at, "How much it writes", "value")
    sizes = [f"{m} numbers" for m in run.sizes]
    for panel, curves in (("mean answer length (tokens)", {"all sizes": run.length,
                                                          **dict(zip(sizes, run.length_by_size.T, strict=True))}),
                          ("pass@1 by problem size", dict(zip(sizes, run.pass1_by_size.T, strict=True)))):
        for name, values in curves.items():
            drawn = df[(df["quantity"] == panel) & (df["curve"] == name)].sort_values("step")["value"]
            np.testing.assert_allclose(drawn, values, rtol=1e-12, err_msg=f"{panel}: {name}")
    df = chart_frame(at, "Where in the answer", "value")
    push = df[df["quantity"] == "share of the update's push"]
    for curve, values in (("first update", run.push[0]), ("last update", run.push[-1])):
        np.testing.assert_allclose(push[push["curve"] == curve].sort_values("position")["value"], values, rtol=1e-12)
    assert push.groupby("curve")["value"].sum().round(12).eq(1).all()        # each update's push adds up to 1
    kl = df[df["quantity"] == "KL to the base (nats per token)"]
    np.testing.assert_allclose(kl.sort_values("position")["value"], run.kl_by_position[-1][~np.isnan(
        run.kl_by_position[-1])], rtol=1e-12)
    (table,) = [d.value for d in at.dataframe if "problem" in d.value.columns]
    assert list(table.columns) == ["problem", "step 0", "step 5"] and len(table) == len(run.sizes)
    assert table["step 0"].tolist() == list(run.samples[0]) and table["step 5"].tolist() == list(run.samples[5])
    assert "at steps 0, 5 (the same draws" in page_text(at)  # the steps the table shows, not those of a longer run


def test_the_inspector_shows_one_group_with_its_advantages(trained):
    at, G = trained, zero.ZeroConfig().group_size
    grid = data_with(group_chart(at), "advantage")
    (table,) = [d.value for d in at.dataframe if "well formed" in d.value.columns]
    assert len(table) == G and grid["answer"].nunique() == G            # G answers, one row each
    # GRPO: one advantage per answer, on each of its tokens, above 0 exactly where the score beats the group's mean
    per_answer = grid.groupby("answer", sort=False)["advantage"]
    assert (per_answer.nunique() == 1).all()
    adv = per_answer.first().reindex(table["answer"]).to_numpy()
    mean = table["score"].mean()
    assert np.array_equal(np.sign(np.round(adv, 12)), np.sign(np.round(table["score"].to_numpy() - mean, 12)))
    # the judge's two verdicts make the score: 1 for right, 1 for well formed
    assert (table["score"] == table["right"].astype(int) + table["well formed"].astype(int)).all()
    # one epoch per batch: the ratio is 1 at every token, so nothing is clipped
    assert np.allclose(grid["ratio"], 1) and not grid["clipped"].any()
    assert grid["probability"].between(0, 1).all()


def test_a_dead_group_is_said_to_teach_nothing_and_a_live_one_is_weighed_by_both_methods(trained):
    """The inspector opens on step 1's first problem, whose answers all got the same score at these settings: every
    advantage is 0, so the page says so instead of drawing GRPO's and Dr. GRPO's weights, all zero; the second
    problem's group is a live one, weighed by both."""
    at, run = trained, zero.train(zero.ZeroConfig(steps=5, passk_max=64), 0)
    scores = [set(zero.group_view(run.updates[0], i).score) for i in (0, 1)]
    assert [len(s) for s in scores] == [1, 2]   # the settings' first group is dead, the second is not
    weighed = "The same group, weighed by GRPO and by Dr. GRPO"
    assert "every advantage is 0 and neither weighting pushes" in page_text(at) and weighed not in chart_titles(at)
    try:
        at.slider(key=K("problem")).set_value(2).run()
        assert weighed in chart_titles(at) and "neither weighting pushes" not in page_text(at)
    finally:
        at.slider(key=K("problem")).set_value(1).run()   # the shared page back as the other tests read it


@pytest.mark.exhaustive  # a second training of the page: CI's exhaustive stage
def test_ppo_gives_each_token_its_own_advantage():
    at = train(run_page(PAGE), **SHORT, algo="PPO with a value head")
    grid = data_with(group_chart(at), "advantage")
    # GAE with a learned V differs along an answer (one value per answer would make every row constant)
    assert (grid.groupby("answer")["advantage"].nunique() > 1).any()


def test_a_setting_changes_the_charts_and_a_run_is_shared():
    at = train(run_page(PAGE), **SHORT)
    moves_charts(at, lambda at: train(at, lr=1e-3))
    # a second learner with the same settings sees that run at once, without pressing Train
    other = run_page(PAGE, inputs={**SHORT, "lr": 1e-3})
    assert sorted(set(chart_frame(other, "On the held-out problems", "value")["step"])) == [0, 1, 2, 3, 4, 5]
    mine, theirs = (chart_frame(a, "On the held-out problems", "value") for a in (at, other))
    pd.testing.assert_frame_equal(mine, theirs)


def test_typed_problems_are_answered_or_refused_clearly():
    at = run_page(PAGE, inputs={"ask": "3 + 4 * 2 + 7 * 5"})
    # 3 + 4 = 7, 7 × 2 = 14, 14 + 7 = 21, 21 × 5 = 105 → 5 (the last two digits)
    subtitles = [c["spec"]["title"].get("subtitle", "") for c in charts(at)]  # a long one is wrapped into lines
    assert any(numbers(" ".join([s] if isinstance(s, str) else s))[-1:] == [5] for s in subtitles)  # the answer
    for bad in ["3", "3 + 0 * 2 + 7 * 5", "three plus four", "3 - 4 * 2 + 7 * 5", "1 + 2 + 3 + 4 + 5 + 6 + 7 + 8", ""]:
        at.text_input(key=K("ask")).set_value(bad).run()
        assert len(at.error) == 1 and numbers(at.error[0].value)[:4] == [2, 7, 1, 9], bad  # 2 to 7 digits, 1 to 9
        assert any(m.value.endswith(":material/menu_book: Glossary") for m in at.markdown)  # the footer is there


def test_the_question_is_answered_from_the_base_models_numbers():
    """The marked answer is the size where writing all the working gains most over answering at once, read from the
    base model's own figures; the chart it reveals draws those figures, one line per size."""
    stats = zero.base_stats()
    at = run_page(PAGE, state={"predict_zero_shown": True})
    gain = [row[np.isfinite(row)][-1] - row[0] for row in stats.forced]
    (info,) = [i.value for i in at.info if "**" in i.value]
    assert info.split("**")[1] == "the largest (7 numbers)" and gain[-1] > gain[0] + 0.1
    row = stats.forced[-1][np.isfinite(stats.forced[-1])]
    last = row[-1] - row[::-1][1:]                  # the gain of the last 1, 2, … results written
    n = int(np.argmax(last >= 0.75 * (row[-1] - row[0]))) + 1
    title = "Only the last written results pay" if 2 * n <= row.size - 1 else "Each written result pays"
    df = chart_frame(at, title, "probability")
    for m, row in zip(stats.sizes, stats.forced, strict=True):
        drawn = df[df["problem size"] == f"{m} numbers"].sort_values("results written")["probability"]
        np.testing.assert_allclose(drawn, row[np.isfinite(row)], rtol=1e-12)


@pytest.mark.exhaustive  # a second training of the page: CI's exhaustive stage
def test_more_epochs_move_the_ratio_and_clip_only_outside_the_band():
    at = train(run_page(PAGE), **SHORT, epochs=4, lr=1e-3)
    grid = data_with(group_chart(at), "ratio")
    assert not np.allclose(grid["ratio"], 1)            # from the second epoch on, π is no longer π_old
    clipped = grid[grid["clipped"]]
    # PPO's clip (ε = 0.2) zeroes a token's gradient only once its ratio has left [0.8, 1.2]
    assert ((clipped["ratio"] < 0.8) | (clipped["ratio"] > 1.2)).all()


@pytest.mark.exhaustive  # a second training of the page: CI's exhaustive stage
def test_a_run_stopped_after_one_update_is_kept_and_inspected():
    """Stop (any rerun during training) leaves the steps trained so far in the session; here, one update."""
    config = zero.ZeroConfig(steps=40, passk_max=64)  # a learner's run measures pass@k to 64
    partial = zero_runs.Recorder(config, 3)
    for s in itertools.islice(zero.train_steps(config, seed=3), 2):   # step 0 and step 1
        partial.add(s)
    at = run_page(PAGE, inputs={"steps": 40, "seed": 3}, state={"zero_partial": partial})
    assert shows_numbers(at, 1, 40)  # stopped after 1 of the 40 steps
    health = chart_frame(at, "On the held-out problems", "value")
    assert sorted(set(health["step"])) == [0, 1]
    assert " answers, step 1" in " ".join(titles(group_chart(at)["spec"]))


class _HeldStep:
    """A real step whose update is handed over only when the test says: ``Recorder.add`` stops halfway through."""

    def __init__(self, step):
        self.measure, self.model, self._update = step.measure, step.model, step.update
        self.reached, self.go = threading.Event(), threading.Event()

    @property
    def update(self):
        self.reached.set()
        self.go.wait(timeout=30)
        return self._update


def test_a_stopped_run_is_read_with_its_steps_whole_while_the_old_thread_adds_one():
    """After Stop the page reruns in a new thread while the stopped run may still be adding a step: the rerun reads
    the steps before it, whole, never that step's measure without its update (a ValueError in collect)."""
    config = zero.ZeroConfig(steps=1, group_size=2, prompts=2, passk_max=2)
    first, second = itertools.islice(zero.train_steps(config, seed=0), 2)
    record, held = zero_runs.Recorder(config, 0), _HeldStep(second)
    record.add(first)
    adding = threading.Thread(target=record.add, args=(held,))
    adding.start()
    try:
        assert held.reached.wait(timeout=30)           # the old thread has the step's measure, not yet its update
        before = record.run()
    finally:
        held.go.set()
        adding.join(timeout=30)
    after = record.run()
    assert (len(before.updates), before.pass1.shape, len(after.updates), after.pass1.shape) == (0, (1,), 1, (2,))


def test_pass_at_k_runs_from_1_to_64_over_the_guessers_floor_and_the_sentence_reads_the_curves(trained):
    """The trained run's pass@k chart: k = 1 … 64 for the base, the trained model and a uniform guesser (1 − 0.99^k),
    each curve never falling; the sentence under it quotes pass@1 and pass@64 of both models, and says the base never
    catches up exactly when the trained curve stays above the base's at every k."""
    at = trained
    df = chart_frame(at, "pass@k on the held-out problems", "pass@k")
    assert sorted(set(df["model"])) == ["The base model", "Trained", "uniform guess (the floor)"]
    curves = {m: c.sort_values("k") for m, c in df.groupby("model")}
    for curve in curves.values():
        assert curve["k"].iloc[0] == 1 and curve["k"].iloc[-1] == 64
        assert np.all(np.diff(curve["pass@k"].to_numpy()) >= -1e-12)
    guess = curves["uniform guess (the floor)"]
    np.testing.assert_allclose(guess["pass@k"], 1 - 0.99 ** guess["k"].to_numpy(), rtol=1e-12)
    assert guess["pass@k"].iloc[-1] <= 0.5
    base, mine = (curves[m]["pass@k"].to_numpy() for m in ("The base model", "Trained"))
    (said,) = [p for p in page_text(at).split("\n") if "pass@64" in p and "guess" in p]
    quoted = numbers(said)
    for value in (base[0], mine[0], base[-1], mine[-1]):
        assert any(abs(q - 100 * value) <= 0.051 for q in quoted), (value, said)
    assert ("never catches up" in said) == bool(np.all(base < mine - 0.005))


@pytest.mark.exhaustive  # a second training of the page: CI's exhaustive stage
def test_the_baselines_are_offline_rft_at_the_same_settings_and_oracle_best_of_g_on_the_base():
    at = train(run_page(PAGE), **SHORT, G=4)
    df = chart_frame(at, "What RL adds", "pass@1")
    assert set(df["curve"]) == {"GRPO"}                                    # RFT not trained yet: only this run
    (rule,) = [d for d in chart_by_title(at, "What RL adds")["data"].values() if "label" in d.columns]
    assert rule["pass@1"].tolist() == [zero.best_of_n(4, 0)]               # best-of-G, G = 4, on the base
    assert "two ways" in " ".join(titles(chart_by_title(at, "What RL adds")["spec"]))
    next(b for b in at.button if b.label.startswith("Train the offline RFT")).click().run()
    df = chart_frame(at, "What RL adds", "pass@1")
    rft = zero.train(zero.ZeroConfig(algorithm="rft_offline", steps=5, group_size=4, passk_max=64), 0)
    np.testing.assert_allclose(df[df["curve"] == "offline RFT"].sort_values("step")["pass@1"], rft.pass1)
    assert "three ways" in " ".join(titles(chart_by_title(at, "What RL adds")["spec"]))


@pytest.mark.exhaustive  # a second training of the page: CI's exhaustive stage
def test_ppo_shows_its_critics_explained_variance_and_the_kl_can_go_in_the_reward():
    at = train(run_page(PAGE), **SHORT, algo="PPO with a value head", beta=0.1, kl_in="in the reward")
    run = zero.train(zero.ZeroConfig(algorithm="ppo", steps=5, beta=0.1, kl_in="reward", passk_max=64), 0)
    health = chart_frame(at, "On the held-out problems", "value")
    critic = health[health["curve"] == "explained variance"].sort_values("step")
    assert critic["step"].tolist() == [1, 2, 3, 4, 5]
    np.testing.assert_allclose(critic["value"], run.explained, rtol=1e-12)
    said = next(md.value for md in at.markdown if "What the critic sees" in md.value)   # what it sees, and its EV
    assert numbers(said)[:2] == [5, pytest.approx(run.explained_end, abs=0.005)] and "never the right answer" in said


@pytest.mark.exhaustive
def test_a_newcomer_sees_the_default_run_the_server_trained_ahead_of_time(monkeypatch):
    monkeypatch.setenv("RL_EXPLORER_BACKGROUND", "1")
    at = run_page(PAGE)                                      # the first visit starts the server's own training
    assert set(chart_frame(at, "On the held-out problems", "value")["step"]) == {0}
    shelf, key = shelves.shelf("zero_defaults", 2), (repr(zero.ZeroConfig()), 0)
    for _ in range(600):
        if shelf.get(key) is not None:
            break
        time.sleep(0.5)
    at.run()                                                 # nobody pressed Train: the whole default run
    steps = zero.ZeroConfig().steps
    assert sorted(set(chart_frame(at, "On the held-out problems", "value")["step"])) == list(range(steps + 1))
    np.testing.assert_allclose(chart_frame(at, "What RL adds", "pass@1").query("curve == 'GRPO'")["pass@1"],
                               zero.train(zero.ZeroConfig(), 0).pass1)


@pytest.mark.exhaustive
def test_train_at_the_settings_the_server_trains_ahead_of_time_waits_for_that_run(monkeypatch):
    """Train pressed while the server trains the default run ahead of time waits for that run (#44: it trained it a
    second time): the page then shows the whole default run, and no run of the learner's own went on the shelf."""
    monkeypatch.setenv("RL_EXPLORER_BACKGROUND", "1")
    monkeypatch.setattr(jobs, "_BACKGROUND", set())
    monkeypatch.setattr(shelves, "_SHELVES", {})
    at = run_page(PAGE)                                      # the first visit starts the server's own training
    key = (repr(zero.ZeroConfig()), 0)
    assert ("zero", key) in jobs._JOBS, "the server trains the default run now"
    next(b for b in at.button if b.label == "Train").click().run(timeout=900)
    steps = zero.ZeroConfig().steps
    assert sorted(set(chart_frame(at, "On the held-out problems", "value")["step"])) == list(range(steps + 1))
    assert shelves.shelf("zero_runs", 3).get(key) is None and shelves.shelf("zero_defaults", 2).get(key) is not None


@pytest.mark.exhaustive  # a second training of the page: CI's exhaustive stage
def test_a_trained_run_and_its_baseline_read_in_chinese():
    """In Chinese, after Train (PPO, so the critic's panel shows) and the RFT baseline, no English is left but the
    names and terms page 19 may show."""
    at = run_page(PAGE, query={"lang": "zh"}, inputs={**SHORT, "algo": "PPO with a value head"})
    next(b for b in at.button if b.label == "训练").click().run()
    next(b for b in at.button if b.label.startswith("用这组设置训练离线 RFT")).click().run()
    assert len(charts(at)) >= 8 and english_left(at, terms(PAGE)) == []
