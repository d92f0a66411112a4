"""Page 21, Your run: the examples read to their curves, the detail slider buckets a long log, the findings shown
after the question with their pages, pasted lines read for this session, and bad input shown as an error."""

from __future__ import annotations

import ast
import json

import numpy as np
import pytest

import rlcore
from tests.apphelp import ROOT, charts, page_text, reveal, run_page

PAGE = ROOT / "pages" / "21_Your_run.py"


def panels(at) -> dict:
    """The run chart's rows by panel (its 'quantity' column)."""
    (chart,) = [c for c in charts(at) if c["spec"].get("vconcat")]
    df = next(d for d in chart["data"].values() if "quantity" in d)
    return {q: rows.sort_values("step") for q, rows in df.groupby("quantity")}


def test_the_healthy_example_draws_its_logs_own_numbers():
    at = run_page(PAGE)
    assert not at.exception and not at.error
    history = json.loads(rlcore.example_log("healthy"))["log_history"]
    rewards = [(r["step"], r["reward"]) for r in history if "reward" in r]  # the file, read here directly
    got = panels(at)["reward"]
    np.testing.assert_allclose(got["step"], [s for s, _ in rewards])
    np.testing.assert_allclose(got["mean"], [r for _, r in rewards], rtol=1e-12)
    np.testing.assert_allclose(got["lowest"], got["highest"])  # one step a bucket: nothing to spread
    assert {"reward", "entropy", "KL to the reference", "validation score"} <= set(panels(at))
    assert "60 steps from 1 to 60" in page_text(at) and "TRL 0.20 or later" in page_text(at)


def test_the_detail_slider_buckets_a_long_log_keeping_its_extremes():
    fine, coarse = (run_page(PAGE, query={"example": "length_limit", "detail": d}) for d in ("400", "100"))
    a, b = panels(fine)["share cut at the length limit"], panels(coarse)["share cut at the length limit"]
    assert len(a) == 300 and len(b) == 100
    assert b["highest"].max() == a["highest"].max() and b["lowest"].min() == a["lowest"].min()
    assert np.all(b["lowest"] <= b["mean"]) and np.all(b["mean"] <= b["highest"])


def test_the_findings_come_after_the_question_with_their_page():
    at = run_page(PAGE, query={"example": "entropy_collapse"})
    assert not at.warning
    at = reveal(PAGE, None, query={"example": "entropy_collapse"})
    (warning,) = at.warning
    assert warning.value.startswith("**Entropy collapse**, from step 38")
    assert "yes, something to look into" in at.info[0].value
    assert any("Entropy and pass@k" in link.proto.label for link in at.get("page_link")) or \
        "Taught on: Entropy and pass@k" in page_text(at)
    healthy = reveal(PAGE, None)
    assert not healthy.warning and "no, nothing to flag" in healthy.info[0].value


VERL = "\n".join(f"step:{s} - actor/entropy:{0.9 * 0.8 ** s:.5f} - actor/ppo_kl:{(-1) ** s * 1e-4} - "
                 f"critic/score/mean:{s / 20}" for s in range(1, 21))


def test_pasted_lines_are_read_for_this_session():
    at = run_page(PAGE)
    at.text_area(key="paste").set_value(VERL).run()
    assert not at.exception and not at.error
    assert "read as a **verl** log" in page_text(at) and "20 steps from 1 to 20" in page_text(at)
    np.testing.assert_allclose(panels(at)["entropy"]["mean"], [round(0.9 * 0.8 ** s, 5) for s in range(1, 21)])
    next(b for b in at.button if (b.key or "").endswith("_show")).click().run()
    kinds = " ".join(w.value for w in at.warning)
    assert "**Entropy collapse**" in kinds and "**A negative KL of the update" in kinds


@pytest.mark.parametrize("bad", ["{nope", '{"log_history": [{"step": 1, "loss": 0.5', "epoch,loss\n1,2\n",
                                 "<script>alert(1)</script>", "[" * 5000])
def test_bad_input_shows_an_error_not_a_traceback(bad):
    at = run_page(PAGE)
    at.text_area(key="paste").set_value(bad).run()
    assert not at.exception
    assert len(at.error) == 1 and "<script>" not in at.error[0].value
    assert not [c for c in charts(at) if c["spec"].get("vconcat")]


def test_page_19_offers_its_run_as_the_logs_this_page_reads_back():
    """Page 19 after a short training: two download buttons, the TRL and the verl log of the run it holds, which
    read_run reads back to the page's own held-out curves."""
    page19 = ROOT / "pages" / "19_R1_Zero_in_miniature.py"
    at = run_page(page19, inputs={"steps": 5})
    next(b for b in at.button if b.label == "Train").click().run()
    labels = {b.proto.label for b in at.get("download_button") if "csv_" not in b.proto.id}
    assert labels == {"This run as TRL's trainer_state.json", "This run as verl's JSON lines"}
    run = at.session_state["zero_run"]
    for write in (rlcore.run_log_trl, rlcore.run_log_verl):
        log = rlcore.read_run(write(run), "run")
        assert log.steps.tolist() == [1, 2, 3, 4, 5] and len(run.updates) == 5
        np.testing.assert_allclose(log.series["entropy"], run.entropy[1:], atol=1e-9)
        np.testing.assert_allclose(log.series["val_score"], run.pass1[1:], atol=1e-9)


def test_a_visitors_log_stays_in_their_session():
    """Another session never sees a log one visitor opened: the page reads it with page.run (no cache the server's
    sessions share) and rlcore's reader writes nothing anywhere."""
    mine = run_page(PAGE)
    mine.text_area(key="paste").set_value(VERL).run()
    assert "read as a **verl** log" in page_text(mine)
    other = run_page(PAGE)
    assert "read as a **verl** log" not in page_text(other) and "Healthy: read as" in page_text(other)
    source = PAGE.read_text(encoding="utf-8")
    assert "page.run(rlcore.your_run, upload" in source and "page.run(rlcore.your_run, data" in source
    assert "page.study(rlcore.your_run" not in source
    for module in ("runlog", "rundiag", "runkeys"):
        tree = ast.parse((ROOT / "rlcore" / "studies" / f"{module}.py").read_text(encoding="utf-8"))
        called = {getattr(n.func, "attr", getattr(n.func, "id", "")) for n in ast.walk(tree) if isinstance(n, ast.Call)}
        assert not called & {"open", "write", "write_bytes", "write_text", "dump", "mkstemp"}, module
