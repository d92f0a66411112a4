"""Where things live: page studies in rlcore.studies, chart preparation in ui.prep, the old names still in rlcore."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import rlcore
from rlcore import studies
from ui import prep

MOVED_TO_PREP = ("SeedBands", "dead_share", "seed_bands", "thin_steps")


@pytest.mark.parametrize("name", MOVED_TO_PREP)
def test_chart_preparation_keeps_its_rlcore_name(name):
    assert name in rlcore.__all__ and name in dir(rlcore)
    assert getattr(rlcore, name) is getattr(prep, name)


def test_an_unknown_name_is_still_an_attribute_error():
    with pytest.raises(AttributeError, match="no_such_thing"):
        rlcore.no_such_thing  # noqa: B018


@pytest.mark.parametrize("name", ["BaselineStudy", "baseline_study", "ValueBreakdown", "value_breakdown",
                                  "KLEstimatorStudy", "kl_estimator_study", "Summary", "summarize", "GroupCredit",
                                  "group_credit", "CriticErrorStudy", "critic_error_study", "PolicyTrace",
                                  "policy_gradient_trace", "ExplorationOutcome", "exploration_outcome", "BlindSpot",
                                  "outcome_blind_spot"])
def test_page_studies_live_in_studies_and_keep_their_rlcore_name(name):
    assert name in rlcore.__all__ and getattr(rlcore, name) is getattr(studies, name)


def test_importing_rlcore_does_not_import_the_app_side():
    code = "import sys, rlcore; print(sorted(m for m in sys.modules if m.split('.')[0] == 'ui'))"
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
