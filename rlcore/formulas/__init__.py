"""Formulas: one pure, checked function per quantity, as in rlax.

A return, a value estimate, an advantage, a TD error, a ratio, a clip, a KL, an entropy, pass@k: each is one
function of arrays (batched along leading axes where a caller needs it) that checks its inputs with ``checks``
and raises ``ValueError`` naming the argument. A formula module imports only other formula modules, never a
study (tests/rlcore/test_structure.py reads the imports). Each module's ``__all__`` names what ``rlcore``
re-exports from it; ``checks`` is the shared input checking, imported by module.
"""

from . import (
               aggregation,
               checks,
               credit,
               diagnostics,
               estimates,
               example,
               generation,
               kl,
               policy,
               ppo,
               preference,
               returns,
               sampling,
)
from .aggregation import *  # noqa: F403
from .credit import *  # noqa: F403
from .diagnostics import *  # noqa: F403
from .estimates import *  # noqa: F403
from .example import *  # noqa: F403
from .generation import *  # noqa: F403
from .kl import *  # noqa: F403
from .policy import *  # noqa: F403
from .ppo import *  # noqa: F403
from .preference import *  # noqa: F403
from .returns import *  # noqa: F403
from .sampling import *  # noqa: F403

MODULES = (aggregation, checks, credit, diagnostics, estimates, example, generation, kl, policy, ppo, preference,
           returns, sampling)
__all__ = [name for module in MODULES for name in module.__all__]
