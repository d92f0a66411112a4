"""rlcore: the numerical core of the RL-for-LLMs explorer (pure numpy).

Every number a page shows comes from a function here. Nothing in this package imports streamlit, altair,
pandas, ``ui`` or ``pages`` (tests/rlcore/test_structure.py reads every import to make sure). Two folders, as
in rlax:

* ``formulas/``: one pure, checked function per quantity (returns, estimates, credit, policy, ppo, kl,
  aggregation, diagnostics, preference, the running example, generation, sampling, checks);
* ``studies/``: what a page shows, one module per study with its result type (the home page's overview, the
  reward, value, baseline, GAE, policy-gradient, exploration, KL-penalty and clipping studies, clips, length,
  recipes, KL placement, collapse, mismatch, the judge studies, the training lab, and ``zero``: R1-Zero in
  miniature).

Every name a module lists in its ``__all__`` is reachable from here by that name (``rlcore.gae``,
``rlcore.train``, ``rlcore.fit_reward_model``), and every module by its own (``rlcore.lab``, ``rlcore.zero``).
The modules' addresses from before the two folders still import (``from rlcore.length import length_push``,
``import rlcore.zero.task``): each is the same module object as its new address.
"""

import sys

from . import formulas, studies
from .formulas import *  # noqa: F403
from .studies import *  # noqa: F403

# every module by its name, at its old address too: rlcore.lab is rlcore.studies.lab, rlcore.zero.task is
# rlcore.studies.zero.task (one module object under two names, never a second copy)
for _name, _module in list(sys.modules.items()):
    for _folder in ("rlcore.formulas.", "rlcore.studies."):
        if _name.startswith(_folder):
            _old = "rlcore." + _name.removeprefix(_folder)
            sys.modules.setdefault(_old, _module)
            if "." not in _name.removeprefix(_folder):  # a module of the folder, not of zero
                assert globals().setdefault(_name.removeprefix(_folder), _module) is _module, _name
sys.modules.setdefault("rlcore.judge_studies", studies.judge)
judge_studies = studies.judge
del _name, _module, _folder, _old

__all__ = [*formulas.__all__, *studies.__all__]
