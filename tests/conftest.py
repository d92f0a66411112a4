"""Shared by every test folder: the helpers in tests/ (apphelp) import by name from any sub-folder."""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from hypothesis import settings

# No per-example deadline: on a shared 2-core machine a first call can take 300 ms for reasons that have
# nothing to do with the code (hypothesis then reports a "flaky" failure). Tests that need a bound on time
# are benchmarks, not tests (bench/).
settings.register_profile("explorer", deadline=None)
settings.load_profile("explorer")
