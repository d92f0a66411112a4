"""The map of the explorer: every page in reading order, with the title and icon a learner sees."""

from __future__ import annotations

from typing import NamedTuple


class PageInfo(NamedTuple):
    path: str    # relative to the app's folder, as st.page_link and st.switch_page want it
    title: str
    icon: str    # a Material icon, drawn without an emoji font


HOME = PageInfo("dashboard.py", "Home", ":material/home:")
PAGES = (
    HOME,
    PageInfo("pages/1_Loop_state_action.py", "Loop, state and action", ":material/autorenew:"),
    PageInfo("pages/2_Reward_and_return.py", "Reward and return", ":material/flag:"),
    PageInfo("pages/3_Value_Q_advantage.py", "Value, Q and advantage", ":material/bar_chart:"),
    PageInfo("pages/4_Baseline_and_variance.py", "Baseline and variance", ":material/ssid_chart:"),
    PageInfo("pages/5_TD_error_and_GAE.py", "TD error and GAE", ":material/functions:"),
    PageInfo("pages/6_Policy_gradient.py", "Policy gradient", ":material/trending_up:"),
    PageInfo("pages/7_Exploration.py", "Exploration", ":material/travel_explore:"),
    PageInfo("pages/8_Clipping_and_KL.py", "Clipping and KL", ":material/compress:"),
    PageInfo("pages/9_Training_lab.py", "Training lab", ":material/science:"),
    PageInfo("pages/10_Length_and_aggregation.py", "Length and aggregation", ":material/straighten:"),
    PageInfo("pages/11_Clips_after_PPO.py", "Clips after PPO", ":material/content_cut:"),
    PageInfo("pages/12_Recipe_composer.py", "Recipe composer", ":material/tune:"),
)


def info(path: str) -> PageInfo:
    """The entry of the page at ``path`` (e.g. "pages/5_TD_error_and_GAE.py")."""
    for p in PAGES:
        if p.path == path:
            return p
    raise KeyError(path)
