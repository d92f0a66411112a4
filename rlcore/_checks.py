"""Old name of ``rlcore.checks``, kept only until rlcore/lab.py imports ``.checks`` (delete at the merge)."""

from .checks import count, in_range, non_negative  # noqa: F401
