"""Shared by every test folder. The tests are a package: a test imports the shared helpers by their place
(``from tests.apphelp import run_page``, ``tests.pages.zhhelp``, ``tests.e2e.e2ehelp``, ``tests.words``), never by
a path added to ``sys.path``; the repository's root is on the path (pyproject's ``pythonpath``)."""

import os

import pytest
from hypothesis import settings
from streamlit.testing.v1 import AppTest

# No per-example deadline: on a shared 2-core machine a first call can take 300 ms for reasons that have
# nothing to do with the code (hypothesis then reports a "flaky" failure). Tests that need a bound on time
# are benchmarks, not tests (bench/).
settings.register_profile("explorer", deadline=None)
settings.load_profile("explorer")


# The server trains page 19's default run ahead of time (serve.jobs.in_background): about half a minute of a core in
# every process that opens the page. The suites' processes (AppTest's, and the servers the browser tests start, which
# inherit this) do not; tests/serve/test_turns.py and the browser test of the default run switch it back on.
os.environ.setdefault("RL_EXPLORER_BACKGROUND", "0")

# Every AppTest run fails its test on an exception the page did not catch (a page shows st.error, never a
# traceback), so no page test repeats that check. A test about a page that is meant to raise says so with
# ``@pytest.mark.app_exception`` and reads ``at.exception`` itself. (Patched once per process rather than in an
# autouse fixture: hypothesis refuses function-scoped fixtures around @given tests.)
_allow_exception = False


def pytest_runtest_setup(item):
    global _allow_exception
    _allow_exception = item.get_closest_marker("app_exception") is not None


def _run_without_exception(self, *args, **kwargs):
    at = _plain_run(self, *args, **kwargs)
    if at.exception and not _allow_exception:
        pytest.fail(f"the page raised: {[e.message for e in at.exception]}", pytrace=False)
    return at


_plain_run = AppTest._run
AppTest._run = _run_without_exception


# ``python -m pytest -n 0 --page 3_Advantage_signs``: one page's checks (README, "Adding a page"). Its own test file
# (``apphelp.own_tests``), its cases of every suite run page by page (a case whose id names the page's file, stem,
# address or table: the house rules, fuzz, sharing, security, the Chinese checks, the tables ...), the quick share's
# and CI's alike, and the checks marked ``every_page``, which read every page at once (the map and its icons, the
# catalogues, the Glossary's order, the four files). The browser tests stay out: add ``-m e2e`` for them.
def pytest_addoption(parser):
    parser.addoption("--page", metavar="PAGE", help="run one page's checks: its file's stem, e.g. 3_Advantage_signs")


def pytest_configure(config):
    if config.getoption("--page") and config.option.markexpr == "not exhaustive":  # pyproject's addopts: replaced
        config.option.markexpr = "not e2e"


def pytest_collection_modifyitems(config, items):
    wanted = config.getoption("--page")
    if not wanted:
        return
    import pathlib
    import re

    from tests.apphelp import ROOT, own_tests, page_names
    from ui import nav

    path = page_names().get(wanted.removeprefix("pages/"), page_names().get(wanted))
    if path is None:
        stems = ", ".join(pathlib.Path(p.path).stem for p in nav.PAGES)
        raise pytest.UsageError(f"--page {wanted}: no such page; give a page file's stem: {stems}")
    page, stem = nav.info(path), pathlib.Path(path).stem
    names = "|".join(re.escape(n) for n in (stem, nav.url_path(path) or "Home"))
    in_id = re.compile(rf"(?<![A-Za-z0-9])(?:(?:{names})(?![A-Za-z0-9])|{re.escape(page.table)}\.)")
    own = {ROOT / f for f in own_tests()[path]}
    keep, drop = [], []
    for item in items:
        param = getattr(getattr(item, "callspec", None), "id", "")
        mine = item.path in own or in_id.search(param) or item.get_closest_marker("every_page")
        (keep if mine else drop).append(item)
    config.hook.pytest_deselected(items=drop)
    items[:] = keep
