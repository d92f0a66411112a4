"""A chart's CSV is a file the session holds while its table is open, not one made on click: Streamlit keeps no
session reference to a file made on click and deletes it after the next two script runs of anyone on the server,
so on a busy server the browser's fetch found it gone (HTTP 404 in tests/deploy/test_replicas.py)."""

from __future__ import annotations

from tests.apphelp import ROOT, run_page


def test_an_open_tables_csv_is_sent_with_the_page_not_made_on_click():
    at = run_page(ROOT / "pages" / "2_Reward_and_return.py")
    key = next(k for k in at.session_state if str(k).startswith("table_"))
    at.session_state[key] = True  # the learner opens the chart's table
    at.run()
    buttons = [b.proto for b in at.get("download_button") if "csv_" in b.proto.id]
    assert buttons, "the open table has its CSV button"
    for b in buttons:
        assert b.url.endswith(".csv") and not b.deferred_file_id, b  # a file with a URL, nothing made on click
