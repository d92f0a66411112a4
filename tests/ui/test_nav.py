"""The page map and the navigation every page draws: titles and icons, never file names."""

import pathlib
import re

import pytest
from streamlit.testing.v1 import AppTest

from tests.apphelp import ROOT, page_file, run_page
from ui import nav


@pytest.mark.every_page
def test_map_lists_every_page_file_once_home_first():
    scripts = [ROOT / "dashboard.py", *(ROOT / "pages").glob("*.py")]
    forwarders = {p for p in scripts if "page.setup(" not in p.read_text()}  # old addresses: st.switch_page only
    on_disk = {p.relative_to(ROOT).as_posix() for p in scripts if p not in forwarders}
    assert [p.path for p in nav.PAGES].count(nav.HOME.path) == 1
    assert {p.path for p in nav.PAGES} == on_disk and len(nav.PAGES) == len(on_disk)
    assert nav.PAGES[0] == nav.HOME and nav.HOME.title == "Home"
    assert not (shared := shared_icons(nav.PAGES)), "\n".join(shared)
    for p in nav.PAGES:
        assert re.fullmatch(r":material/[a-z_]+:", p.icon), f"{p.path}: nav_icon {p.icon} is no :material/<name>:"
        assert ".py" not in p.title and "_" not in p.title, f"{p.path}: nav_title {p.title!r} reads as a file name"


def shared_icons(pages) -> list[str]:
    """Each icon two pages or more share, as a line naming the pages and the fix."""
    by_icon = {}
    for p in pages:
        by_icon.setdefault(p.icon, []).append(p)
    return [f"{' and '.join(f'{p.path} ([{p.table}])' for p in same)} share the icon {icon}: give one of them another "
            "nav_icon in its table of locales/en.toml (a Material icon no other page uses)"
            for icon, same in by_icon.items() if len(same) > 1]


def test_a_shared_icon_is_reported_with_both_pages():
    twin = nav.PAGES[2]._replace(path="pages/3_New.py", table="p_new")
    (line,) = shared_icons([*nav.PAGES, twin])
    assert line.startswith(f"{nav.PAGES[2].path} ([{nav.PAGES[2].table}]) and pages/3_New.py ([p_new]) share"), line


def test_path_of_accepts_a_file_path_or_the_maps_path():
    assert nav.path_of(str(ROOT / "pages" / "5_TD_error_and_GAE.py")) == "pages/5_TD_error_and_GAE.py"
    assert nav.path_of("pages/5_TD_error_and_GAE.py") == "pages/5_TD_error_and_GAE.py"
    assert nav.path_of("/tmp/elsewhere.py") is None


def test_neighbours_follow_the_reading_order():
    assert nav.neighbours("dashboard.py") == (None, nav.PAGES[1])
    assert nav.neighbours("pages/3_Value_Q_advantage.py") == (nav.PAGES[2], nav.PAGES[4])
    assert nav.neighbours(nav.PAGES[-1].path) == (nav.PAGES[-2], None)


def links(block) -> list[tuple[str, str]]:
    return [(el.proto.page, el.proto.label) for el in block.get("page_link")]


def test_home_sidebar_and_body_link_every_page_by_title():
    at = run_page(ROOT / "dashboard.py")
    sidebar, body = links(at.sidebar), links(at.main)
    assert [label.strip("*") for _, label in sidebar] == [p.title for p in nav.PAGES]
    assert sidebar[0][1] == "**Home**", "the current page is marked"
    assert all(not label.startswith("**") for _, label in sidebar[1:])
    body_targets = {page for page, _ in body}
    for p in nav.PAGES[1:]:
        url_path = pathlib.Path(p.path).stem.split("_", 1)[1]  # "pages/9_Training_lab.py" → "Training_lab"
        assert url_path in body_targets, f"home misses {p.title}"
    assert not any(".py" in label for _, label in sidebar + body)
    # the footer: no previous page, next is the first concept page
    assert body[-1][1] == f"Next: {nav.PAGES[1].title}"


@pytest.mark.parametrize("prefix", ["3_", "9_"])
def test_a_page_takes_its_title_and_icon_from_the_map(prefix):
    at = run_page(page_file(prefix))
    entry = nav.info(page_file(prefix).relative_to(ROOT).as_posix())
    assert at.title[0].value == f"{entry.icon} {entry.title}"


def test_home_heading_is_its_own_and_its_link_says_home():
    at = run_page(ROOT / "dashboard.py")
    assert at.title[0].value == f"{nav.HOME.icon} {nav.HOME.heading}" and nav.HOME.heading != nav.HOME.title


@pytest.mark.app_exception
def test_a_script_missing_from_the_map_is_an_error_that_says_where_to_add_it(caplog):
    def script():
        from ui import page

        page.setup("p_new")

    at = AppTest.from_function(script, default_timeout=30).run()
    assert at.exception and not at.title
    assert "LookupError" in caplog.text and "[p_new] holds nav_title and nav_icon" in caplog.text  # shown redacted


def test_the_map_is_read_from_the_pages_and_their_tables(tmp_path):
    """A page is its file and its catalogue table: a script that names a table is in the map, in the order of its
    number (home first); one that names none (an old address) is not; a table without a title is an error."""
    (tmp_path / "pages").mkdir()
    (tmp_path / "dashboard.py").write_text('page.setup("home")\n')
    (tmp_path / "pages" / "2_Reward_and_return.py").write_text('scenario = page.setup("p2")\n')
    (tmp_path / "pages" / "10_Length_and_aggregation.py").write_text('page.setup("p10")\n')
    (tmp_path / "pages" / "1_Loop_state_action.py").write_text('page.setup(\n    "p1")\n')
    (tmp_path / "pages" / "3_Old_address.py").write_text('st.switch_page("pages/2_Reward_and_return.py")\n')
    assert [p.table for p in nav.read_map(tmp_path)] == ["home", "p1", "p2", "p10"]
    assert nav.read_map(tmp_path)[2] == nav.info("pages/2_Reward_and_return.py")
    (tmp_path / "pages" / "4_New.py").write_text('page.setup("p_new")\n')
    with pytest.raises(LookupError, match=r"pages/4_New.py names the catalogue table \[p_new\], which lacks"):
        nav.read_map(tmp_path)
