"""Who asks for a turn: the session (one tab's run of the script) and its visitor, as the lines count them.

A visitor is one browser, its tabs are its sessions: the balancer's signed ``rl_visitor`` cookie, else the token of
Streamlit's XSRF cookie, which every tab of a browser sends; with neither, the session alone. Where the server knows
the address a session comes from (a plain server's peer, the balancer's X-Forwarded-For), the browsers of one address
draw on one share; where it does not (this machine, Community Cloud's proxy: ``st.context.ip_address`` is None), each
browser is a share (``visitor_of``). Outside Streamlit (tests, scripts, the server's own threads) a session is the
calling thread; the server's own work is the visitor ``SERVER``.
"""

from __future__ import annotations

import re
import threading
import uuid

import streamlit as st

SERVER = "server"     # the session and visitor of the server's own work (``serve.jobs.in_background``)
TURN_KEY = "turns_session"  # the session's token in its lines
VISITOR_COOKIE = "rl_visitor"  # a browser's id, set (and signed) by the balancer (deploy/haproxy.py)
_VISITOR_ID = re.compile(r"([0-9a-fA-F-]{36})\.[0-9a-zA-Z_-]{20,64}")  # what the balancer sets: a UUID, its signature
XSRF_COOKIE = "_streamlit_xsrf"  # Streamlit's XSRF cookie: one random token per browser, every tab sends it
_XSRF = re.compile(r"2\|([0-9a-f]{8})\|([0-9a-f]{32})\|[0-9]{1,12}")  # Streamlit's version 2: 2|mask|masked token|time


def thread_session() -> str:
    """The session of a thread outside Streamlit: the thread itself."""
    return f"thread-{threading.get_ident()}"


def who(visitor) -> tuple[str, str]:
    """A visitor as the line counts it: (its share, its browser). ``visitor_of`` gives the pair (the share is the
    address where one is known, else the browser itself); a plain string is one browser with a share of its own."""
    return tuple(visitor) if isinstance(visitor, tuple) else (visitor, visitor)


def this_session() -> str:
    """Who is asking for a turn: this Streamlit session (a token kept in its state); outside a server (tests,
    scripts), the calling thread. Ask right before joining a line: reading the session's state is a point where
    Streamlit stops a superseded run. A rerun starts in a new thread while the old run winds down (its option
    ``runner.fastReruns``), and the old run, between two turns of a training, would otherwise join the line again
    as the same session and take the waiting new run's place (``Line._join``), so the new run stopped there."""
    if not st.runtime.exists():
        return thread_session()
    return st.session_state.setdefault(TURN_KEY, uuid.uuid4().hex)


def xsrf_token(cookie) -> str | None:
    """The browser's own token in Streamlit's XSRF cookie, or None. Streamlit sends the token masked afresh on every
    page it serves (``2|mask|token XOR mask|time``, the mask 4 random bytes repeated), so two tabs of a browser
    carry different cookie values for one token: unmasked, they are the same."""
    found = _XSRF.fullmatch(cookie) if isinstance(cookie, str) else None
    if found is None:
        return None
    mask, masked = bytes.fromhex(found[1]), bytes.fromhex(found[2])
    return bytes(b ^ mask[i % 4] for i, b in enumerate(masked)).hex()


def visitor_of(cookies, address, session: str = "") -> tuple[str, str]:
    """The visitor a session belongs to, as the lines count it: (its share, its browser).

    The browser: behind the balancer, its ``rl_visitor`` cookie (signed by the balancer, which passes no other);
    else the token of Streamlit's XSRF cookie (every tab of a browser sends one token, two browsers never share one);
    a session with neither is a browser of its own (``session``). The share: where the server knows the address
    (``st.context.ip_address``: a plain server's peer, the balancer's X-Forwarded-For), that address, so the
    browsers of one address, forged or not, share one; where it does not (None: this machine, Community Cloud's
    proxy), the browser itself."""
    cookie = cookies.get(VISITOR_COOKIE)
    signed = _VISITOR_ID.fullmatch(cookie) if isinstance(cookie, str) else None
    token = xsrf_token(cookies.get(XSRF_COOKIE))
    browser = (f"browser {signed[1].lower()}" if signed else f"browser xsrf {token}" if token
               else f"session {session}")
    if isinstance(address, str) and address:
        share = f"address {address}"
        return share, f"{share} {browser}"
    return browser, browser


def this_visitor() -> tuple[str, str]:
    """This session's visitor (``visitor_of``, from Streamlit's ``st.context``); outside a server, the thread."""
    if not st.runtime.exists():
        return who(thread_session())
    return visitor_of(st.context.cookies, st.context.ip_address, this_session())
