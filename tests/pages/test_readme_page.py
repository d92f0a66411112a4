"""The README's "Adding a page", tried as a new contributor would: its four blocks (the page, its table in each
catalogue, its test) installed into a copy of the app make a page that every suite accepts.

The copy holds the repository's tracked files; the page goes into ``pages/``, each table is appended to its
catalogue, the test into ``tests/pages/``. Nothing else is touched, which is the point: those four files are all a
new page needs (``ui.nav`` finds it from its ``page.setup`` call and its table). The quick test runs the README's
own test, the house rules, the map and the catalogue checks on the copy; the exhaustive one runs every suite that
is parametrised by page (sharing, fuzz, reveal, the Chinese checks, chart specs, security, ...) on the new page.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.apphelp import ROOT

PAGE_FILE = "pages/3_Advantage_signs.py"
TEST_FILE = "tests/pages/test_3_signs.py"
STEM = Path(PAGE_FILE).stem


def readme_blocks() -> dict[str, str]:
    """The blocks of the README's "Adding a page" section: page, en, zh, test."""
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("\n## Adding a page\n", 1)[1].split("\n## ")[0]
    blocks = [textwrap.dedent(b) for b in re.findall(r"```(?:python|toml)\n(.*?)\n *```", section, flags=re.S)]
    assert len(blocks) == 4, "the page, its two catalogue tables and its test"
    return dict(zip(("page", "en", "zh", "test"), blocks, strict=True))


def installed(tmp_path: Path) -> Path:
    """A copy of the app's tracked files with the README's page installed as the README says."""
    app = tmp_path / "app"
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for rel in filter(None, tracked.decode().split("\0")):
        if (ROOT / rel).is_file():
            (app / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, app / rel)
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
    out = pytest_in(app, "-o", "addopts=", TEST_FILE, f"tests/app/test_house.py::test_a_page_only_draws_in_one_shape"
                    f"[{STEM}.py]", "tests/ui/test_nav.py", "tests/ui/test_i18n.py::test_both_catalogues_hold_the_"
                    "same_entries_with_the_same_placeholders", "tests/ui/test_i18n.py::test_every_name_the_code_"
                    "looks_up_by_data_has_an_entry")
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert passed(out) >= 14, out.stdout[-1500:]  # the README's 2, the house rule, the map's 9, the catalogues' 2


@pytest.mark.exhaustive
def test_every_suite_that_runs_each_page_accepts_the_readme_page(tmp_path):
    """Every case of the page-parametrised suites on the new page, quick share or not (``-o addopts=``: no marker
    filter), and the tests that read every page at once."""
    app = installed(tmp_path)
    out = pytest_in(app, "-o", "addopts=", "-m", "not e2e", "tests/app", "tests/pages", "tests/ui",
                    "-k", f"{STEM} or Advantage_signs or map_lists or catalogues_hold or looks_up_by_data")
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert passed(out) >= 40, out.stdout[-1500:]  # 53 when written
