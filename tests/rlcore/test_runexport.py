"""The explorer's runs written as TRL and verl logs (rlcore.run_log_trl / run_log_verl) read back by read_run to
the run's own curves, for a miniature run and a lab run."""

from __future__ import annotations

import json

import numpy as np
import pytest

import rlcore
from rlcore import zero
from tests.rejects import rejects


@pytest.fixture(scope="module")
def mini():
    # no pass@k is read: 8 answers per held-out problem, not 1,024 (17.7 s → 1.4 s of CPU)
    return zero.train(zero.ZeroConfig(steps=3, group_size=4, prompts=2, algorithm="ppo", passk_max=8), 0)


@pytest.fixture(scope="module")
def lab_run():
    return rlcore.lab.train(rlcore.ARTICLE_SCENARIO, rlcore.LabConfig(algorithm="ppo", steps=12, length=3),
                            seeds=(0, 1))


WRITERS = {"trl": (rlcore.run_log_trl, 0), "verl": (rlcore.run_log_verl, 1)}


@pytest.mark.parametrize("trainer", list(WRITERS))
@pytest.mark.parametrize("which", ["mini", "lab_run"])
def test_a_run_written_as_a_trainers_log_reads_back_to_its_own_curves(trainer, which, request):
    run = request.getfixturevalue(which)
    write, col = WRITERS[trainer]
    log = rlcore.read_run(write(run), "run")
    steps, metrics = rlcore.run_metrics(run)
    assert log.trainer == trainer and log.unknown == () and log.steps.tolist() == steps.tolist()
    written = {c for c, keys in rlcore.runexport.KEYS.items() if keys[col] and c in metrics}
    assert written - {"reward_max", "reward_min"} <= set(log.series) and len(written) >= 8
    for c in written - {"reward_max", "reward_min"}:
        assert log.source[c] == rlcore.runexport.KEYS[c][col]
        np.testing.assert_allclose(log.series[c], metrics[c], atol=1e-9, err_msg=c)


def test_the_logged_numbers_are_the_runs_own(mini, lab_run):
    _, m = rlcore.run_metrics(mini)
    np.testing.assert_allclose(m["reward"], [u.score.mean() for u in mini.updates])
    np.testing.assert_allclose(m["val_score"], mini.pass1[1:])
    np.testing.assert_allclose(m["explained_variance"], [u.explained for u in mini.updates])
    ended = [((u.answers == zero.task.END) | (u.answers == zero.task.PAD)).any(axis=1) for u in mini.updates]
    np.testing.assert_allclose(m["length_clipped"], [1 - e.mean() for e in ended])
    _, lm = rlcore.run_metrics(lab_run, seed=1)
    np.testing.assert_allclose(lm["val_score"], lab_run.p_correct[1, 1:])
    np.testing.assert_allclose(lm["zero_std_groups"], lab_run.dead[1])
    assert np.all((lm["length_clipped"] >= 0) & (lm["length_clipped"] <= 1))


def test_the_trl_log_has_trainer_state_shape_and_bad_runs_are_refused(mini, lab_run):
    doc = json.loads(rlcore.run_log_trl(mini))
    assert doc["global_step"] == 3 and doc["log_history"][-1]["train_runtime"] == 0.0
    assert any("eval_rewards/accuracy_reward/mean" in row for row in doc["log_history"])
    rejects(lambda: rlcore.run_log_trl("a run"), "run must be")
    rejects(lambda: rlcore.run_log_verl(lab_run, seed=2), "seed")


# example → (trainer, steps, the findings it was made to show; the others it may show are its own truth)
EXAMPLES = {"healthy": ("trl", 60, set()), "entropy_collapse": ("verl", 100, {"entropy_collapse"}),
            "length_limit": ("verl", 300, {"length_limit"})}
NOTES = {"clip_zero_expected", "loss_zero_expected"}


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_the_pages_examples_are_the_projects_runs_showing_what_they_are_named_for(name):
    trainer, steps, shows = EXAMPLES[name]
    log = rlcore.read_run(rlcore.example_log(name), name)
    assert (log.trainer, log.steps.tolist()) == (trainer, list(range(1, steps + 1)))
    kinds = {f.kind for f in rlcore.diagnose_run(log)} - NOTES
    assert shows <= kinds and (shows or kinds == set())
    source, config, _ = rlcore.runexport.EXAMPLES[name]
    assert config["steps"] == steps and source in ("zero", "lab")
    rejects(lambda: rlcore.example_log("nope"), "name")


@pytest.mark.parametrize("algorithm", ["grpo", "ppo"])
def test_the_labs_logs_are_the_first_seed_of_its_bands(algorithm):
    config = rlcore.LabConfig(algorithm=algorithm, steps=10)
    logs = rlcore.lab_logs(rlcore.ARTICLE_SCENARIO, config)
    assert sorted(logs) == (["verl"] if algorithm == "ppo" else ["trl", "verl"])
    bands = rlcore.lab_bands(rlcore.ARTICLE_SCENARIO, config, 1)  # one seed: its band is that seed's run
    for trainer, data in logs.items():
        log = rlcore.read_run(data, {"trl": "trainer_state.json", "verl": "lab.jsonl"}[trainer])
        assert log.trainer == trainer and log.steps.tolist() == list(range(1, 11))
        np.testing.assert_allclose(log.series["loss"], bands.loss.median, atol=1e-9)
        np.testing.assert_allclose(log.series["kl"], bands.kl.median[1:], atol=1e-9)
