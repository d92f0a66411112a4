"""Studies: what a page shows, one module per study, each with its result type (a frozen dataclass).

A study calls formulas on the same inputs (often the same sampled answers) and returns every number its page
prints or draws, so the text, the metrics and the charts of a page can never disagree; nothing here is new RL
maths. The training lab (``lab``), the judge studies (``judge``) and R1-Zero in miniature (``zero``: the tiny
language model, its task, warm-up and training) are studies too. Studies import formulas and other studies;
no formula imports a study. Each module's ``__all__`` names what ``rlcore`` re-exports from it; ``zero`` is
reached as ``rlcore.zero`` (its ``train`` is not the lab's).
"""

from . import (
               baseline,
               clipping,
               clips,
               collapse,
               critic,
               exploration,
               goodhart,
               judge,
               kl_penalty,
               kl_placement,
               lab,
               length,
               mismatch,
               overview,
               policy_gradient,
               recipes,
               reward,
               rundiag,
               runexport,
               runlog,
               value,
               zero,
)
from .baseline import *  # noqa: F403
from .clipping import *  # noqa: F403
from .clips import *  # noqa: F403
from .collapse import *  # noqa: F403
from .critic import *  # noqa: F403
from .exploration import *  # noqa: F403
from .goodhart import *  # noqa: F403
from .judge import *  # noqa: F403
from .kl_penalty import *  # noqa: F403
from .kl_placement import *  # noqa: F403
from .lab import *  # noqa: F403
from .length import *  # noqa: F403
from .mismatch import *  # noqa: F403
from .overview import *  # noqa: F403
from .policy_gradient import *  # noqa: F403
from .recipes import *  # noqa: F403
from .reward import *  # noqa: F403
from .rundiag import *  # noqa: F403
from .runexport import *  # noqa: F403
from .runlog import *  # noqa: F403
from .value import *  # noqa: F403
from .zero import dpo, model, task, training, warmup  # noqa: F401  (every module of zero loaded, for rlcore's aliases)

MODULES = (baseline, clipping, clips, collapse, critic, exploration, goodhart, judge, kl_penalty, kl_placement, lab,
           length, mismatch, overview, policy_gradient, recipes, reward, rundiag, runexport, runlog,
           value)
__all__ = [*(name for module in MODULES for name in module.__all__), "zero"]  # zero's names stay in rlcore.zero
