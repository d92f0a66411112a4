"""The one place the app reaches into Streamlit's internals: so that a link too long to read is not dropped
without a word.

Streamlit reads no part of a query string of more than 1,000 parameters or 512 Ki characters: it logs a warning
on the server and the page opens as if the link had none, valid parameters too, and the visitor is not told.
The check happens in the server before any script runs, and Streamlit's public API shows a script neither the
dropped text nor that anything was dropped (``st.context.url`` leaves the query out). So this module wraps that
check, once per process, when it is first imported (from the first run of a page): a link it refuses comes
through as ``?link_too_long=<parameters>.<characters>``, which ``ui.inputs`` reports and clears. Streamlit's own
check still decides; nothing of the refused text reaches the app. A session whose first message reached the
server before the first page run of that process is read as Streamlit does (no notice).

tests/app/test_security.py allows this module, and only this one, to import from ``streamlit.runtime``; if a
Streamlit upgrade moves the check, the import fails loudly and the protocol test of the notice fails.
"""

from __future__ import annotations

import streamlit.runtime.app_session as app_session
from streamlit.runtime.state import query_params

TOO_LONG = "link_too_long"  # the parameter that stands in for a link Streamlit did not read
MAX_FIELDS = query_params.CLIENT_STATE_QUERY_STRING_MAX_FIELDS
MAX_CHARS = query_params.CLIENT_STATE_QUERY_STRING_MAX_LENGTH


def noting(sanitize):
    """``sanitize`` (Streamlit's check), but a query string it refuses becomes ``link_too_long=<n>.<chars>``."""
    def check(query_string: str) -> str:
        kept = sanitize(query_string)
        if query_string and not kept:
            return f"{TOO_LONG}={query_string.count('&') + 1}.{len(query_string)}"
        return kept
    check.wrapped = sanitize
    return check


if not hasattr(app_session.sanitize_query_string, "wrapped"):  # once per process
    app_session.sanitize_query_string = noting(app_session.sanitize_query_string)
