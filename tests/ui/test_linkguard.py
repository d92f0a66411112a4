"""ui.linkguard: a query string Streamlit refuses to read comes through as one parameter that says how long it
was; one it reads is passed on unchanged."""

from __future__ import annotations

import streamlit.runtime.app_session as app_session
from streamlit.runtime.state import query_params

from ui import linkguard


def test_a_refused_link_becomes_one_parameter_naming_its_size_and_a_read_one_is_unchanged():
    check = linkguard.noting(query_params.sanitize_query_string)
    short = "&".join(f"p{i}=1" for i in range(1000))  # 1,000 parameters: read
    assert check(short) == short and check("") == ""
    long = short + "&gamma=0.5"  # 1,001: refused by Streamlit, so the app would see nothing
    assert query_params.sanitize_query_string(long) == ""
    assert check(long) == f"link_too_long=1001.{len(long)}"
    huge = "x=" + "a" * (512 * 1024)  # over 512 Ki characters in one parameter
    assert check(huge) == f"link_too_long=1.{len(huge)}"


def test_the_server_uses_the_wrapped_check_once():
    assert app_session.sanitize_query_string.wrapped is query_params.sanitize_query_string  # wrapped once, not twice
