"""Shared by every test folder: the helpers in tests/ (apphelp) import by name from any sub-folder."""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
