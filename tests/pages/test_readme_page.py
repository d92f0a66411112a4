"""The README's "Adding a page", tried as a new contributor would: its four blocks (the page, its table in each
catalogue, its test) installed into a copy of the app make a page that every suite accepts.

The copy holds the repository's tracked files; the page goes into ``pages/``, each table is appended to its
catalogue, the test into ``tests/pages/``. Nothing else is touched, which is the point: those four files are all a
new page needs (``ui.nav`` finds it from its ``page.setup`` call and its table). The quick test runs the README's
own test, the house rules, the map and the catalogue checks on the copy; the exhaustive ones run the README's command
for a page's checks (``--page``, tests/conftest.py) on the new page, and check that adding it moves no other page's
quick cases. And the four files, by a check on the repository itself: no table in tests/ is keyed by page, and every
page has its own test.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.apphelp import GLOSSARY, ROOT, own_tests, page_names
from ui import nav

PAGE_FILE = "pages/3_Advantage_signs.py"
TEST_FILE = "tests/pages/test_3_signs.py"
STEM = Path(PAGE_FILE).stem


def readme_blocks() -> dict[str, str]:
    """The blocks of the README's "Adding a page" section: page, en, zh, test."""
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("\n## Adding a page\n", 1)[1].split("\n## ")[0]
    blocks = [textwrap.dedent(b) for b in re.findall(r"```(?:python|toml)\n(.*?)\n *```", section, flags=re.S)]
    assert len(blocks) == 4, "the page, its two catalogue tables and its test"
    return dict(zip(("page", "en", "zh", "test"), blocks, strict=True))


# ----------------------------------------------------------------------------- four files, by a check
# A table in tests/ keyed by page (a dict's keys, a set's members) is a line a new page would have to add there: a
# fifth file. What differs from page to page lives in the page's own files (its words a Chinese page keeps in English:
# keep_english in its table of locales/zh.toml). A table that must stay is named here with the reason; none must.
KEYED_BY_PAGE_ALLOWED = {  # file → why its table stays
    "tests/rlcore/test_rundiag.py": "the pages rlcore's diagnoses of a run point to: rlcore's choice, not a page's",
    "tests/e2e/test_layout.py": "the two pages where a chart's toolbar once covered a slider and a table: cases",
}


def keyed_by_page(source: str, where: str = "") -> list[str]:
    """Each dict or set literal in ``source`` with two or more keys (members) naming pages, as a line that names the
    pages and the fix."""
    names, found = page_names(), []
    for node in ast.walk(ast.parse(source)):
        keys = node.keys if isinstance(node, ast.Dict) else node.elts if isinstance(node, ast.Set) else []
        pages = [names[k.value] for k in keys if isinstance(k, ast.Constant) and k.value in names]
        if len(pages) >= 2:
            found.append(f"{where}:{node.lineno} holds a table keyed by page ({', '.join(pages[:3])}, ...): a new page "
                         "would need a line here too. Move each page's entry into that page's own files (its table "
                         "in the catalogues, e.g. keep_english in locales/zh.toml, or its own test)")
    return found


@pytest.mark.every_page
def test_no_test_holds_a_table_keyed_by_page():
    found = [line for path in sorted((ROOT / "tests").rglob("*.py")) if path.relative_to(ROOT).as_posix()
             not in KEYED_BY_PAGE_ALLOWED for line in keyed_by_page(path.read_text(encoding="utf-8"),
                                                                   path.relative_to(ROOT).as_posix())]
    assert found == [], "\n".join(found)


@pytest.mark.every_page
def test_the_table_finder_finds_the_allow_list_there_was():
    """It could fail: test_chinese.py's per-page TERMS of round 2, and a set of table ids, are each reported."""
    terms = 'TERMS = {"5_TD_error_and_GAE.py": {"Dr", "RLOO"}, "6_Policy_gradient.py": {"REINFORCE"}}'
    (line,) = keyed_by_page(terms, "tests/pages/test_chinese.py")
    assert "pages/5_TD_error_and_GAE.py, pages/6_Policy_gradient.py" in line and "keep_english" in line
    assert len(keyed_by_page('SKIP = {"p5", "p9"}')) == 1 and keyed_by_page('X = {"p5": 1, "other": 2}') == []


@pytest.mark.every_page
def test_every_page_has_a_test_of_its_own():
    """The fourth file. The Glossary, a reference page, is tested by tests/ui/test_glossary.py and
    tests/pages/test_zh_glossary.py through ``apphelp.GLOSSARY``."""
    assert own_tests()["pages/2_Reward_and_return.py"] == ["tests/pages/test_2_reward.py"]  # it finds them
    missing = [page for page, tests in own_tests().items() if not tests and ROOT / page != GLOSSARY]
    assert missing == [], [f"{page} has no test of its own: add tests/pages/test_<number>_<name>.py that opens it "
                           f"with page_file(\"{Path(page).stem}\") (README, Adding a page, step 4)" for page in missing]


def installed(tmp_path: Path, page: bool = True) -> Path:
    """A copy of the app's tracked files with the README's page installed as the README says (or, ``page`` False,
    without it)."""
    app = tmp_path / ("app" if page else "before")
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for rel in filter(None, tracked.decode().split("\0")):
        if (ROOT / rel).is_file():
            (app / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, app / rel)
    if not page:
        return app
    blocks = readme_blocks()
    (app / PAGE_FILE).write_text(blocks["page"] + "\n", encoding="utf-8")
    (app / TEST_FILE).write_text(blocks["test"] + "\n", encoding="utf-8")
    for lang in ("en", "zh"):
        catalogue = app / "locales" / f"{lang}.toml"
        catalogue.write_text(catalogue.read_text(encoding="utf-8").rstrip("\n") + "\n\n" + blocks[lang] + "\n",
                             encoding="utf-8")
    return app


def pytest_in(app: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-n", "0", *args],
                          cwd=app, capture_output=True, text=True, timeout=1200)


def passed(out: subprocess.CompletedProcess) -> int:
    found = re.search(r"(\d+) passed", out.stdout)
    return int(found.group(1)) if found else 0


def test_the_readme_shows_the_four_files():
    blocks = readme_blocks()
    assert 'page.setup("p_signs")' in blocks["page"] and "@page.panel" in blocks["page"]
    assert blocks["en"].startswith("[p_signs]") and blocks["zh"].startswith("[p_signs]")
    assert "nav_title" in blocks["en"] and "nav_icon" in blocks["en"] and "nav_title" in blocks["zh"]
    assert f'page_file("{STEM[:len("3_Advantage")]}")' in blocks["test"]


def test_the_readme_page_installed_passes_its_test_the_house_rules_the_map_and_the_catalogues(tmp_path):
    app = installed(tmp_path)
    checks = [f"tests/app/test_house.py::test_a_page_only_draws_in_one_shape[pages/{STEM}.py]", "tests/ui/test_nav.py",
              "tests/ui/test_i18n.py::test_both_catalogues_hold_the_same_entries_with_the_same_placeholders",
              "tests/ui/test_i18n.py::test_every_name_the_code_looks_up_by_data_has_an_entry",
              "tests/pages/test_readme_page.py::test_no_test_holds_a_table_keyed_by_page",
              "tests/pages/test_readme_page.py::test_every_page_has_a_test_of_its_own"]
    out = pytest_in(app, "-o", "addopts=", TEST_FILE, *checks)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert passed(out) >= 16, out.stdout[-1500:]  # the README's 2, the house rule, the map's 10, the catalogues' 2, ...


def collected(app: Path, *args: str) -> set[str]:
    """The ids of the cases pytest selects in ``app``'s suites run page by page (tests/rlcore, zero and deploy run
    no page)."""
    out = pytest_in(app, "--collect-only", "tests/app", "tests/pages", "tests/ui", "tests/e2e", *args)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    return {line for line in out.stdout.splitlines() if "::" in line}


@pytest.mark.exhaustive  # three collections of the page suites: half a minute
def test_the_readme_page_moves_no_other_pages_cases_and_its_command_selects_its_checks(tmp_path):
    """The quick suite (pyproject's addopts) keeps every case it had when the page is added, and gains only the
    page's own; ``--page`` selects the page's test, its cases of the suites run page by page, and no case of
    another page."""
    before, after = collected(installed(tmp_path, page=False)), collected(app := installed(tmp_path))
    assert before <= after, f"cases that left the quick suite: {sorted(before - after)[:5]}"
    assert all(STEM in c or "Advantage_signs" in c or c.startswith(TEST_FILE) for c in after - before), \
        sorted(after - before)
    mine = collected(app, "--page", STEM)
    assert len([c for c in mine if c.startswith(TEST_FILE)]) == 2
    assert {c.split("::")[0] for c in mine if STEM in c} >= {f"tests/{s}.py" for s in SUITES}
    others = [Path(p.path).stem for p in nav.PAGES if Path(p.path).stem != STEM]
    assert [c for c in mine if any(re.search(rf"\b{o}\b", c) for o in others)] == []


SUITES = ("app/test_house", "app/test_fuzz_pages", "app/test_sharing", "app/test_security", "pages/test_chinese",
          "pages/test_zh_tables", "pages/test_reveal", "ui/test_chart_specs", "ui/test_predict")


@pytest.mark.exhaustive
def test_every_suite_that_runs_each_page_accepts_the_readme_page(tmp_path):
    """The README's command for a page's checks, on the README's page: every case of the page-parametrised suites on
    it, quick share or not, and the tests that read every page at once (``every_page``)."""
    app = installed(tmp_path)
    out = pytest_in(app, "--page", STEM)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert passed(out) >= 40, out.stdout[-1500:]  # 53 when written
