"""Shared by every test folder. The tests are a package: a test imports the shared helpers by their place
(``from tests.apphelp import run_page``, ``tests.pages.zhhelp``, ``tests.e2e.e2ehelp``, ``tests.words``), never by
a path added to ``sys.path``; the repository's root is on the path (pyproject's ``pythonpath``)."""

from hypothesis import settings

# No per-example deadline: on a shared 2-core machine a first call can take 300 ms for reasons that have
# nothing to do with the code (hypothesis then reports a "flaky" failure). Tests that need a bound on time
# are benchmarks, not tests (bench/).
settings.register_profile("explorer", deadline=None)
settings.load_profile("explorer")
