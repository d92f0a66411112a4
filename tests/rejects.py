"""``rejects(lambda: f(bad), "name")``: the call raises a ValueError whose message matches ``match`` (the
argument it names, as the house's rule asks); the message is returned for further checks."""

import pytest


def rejects(call, match: str | None = None) -> str:
    with pytest.raises(ValueError, match=match) as info:
        call()
    return str(info.value)


def names(call, name: str) -> str:
    """``rejects`` whose message opens with the argument ``name`` ("name ..." or "other and name ..."), so a short
    name like ``p`` cannot match by accident."""
    return rejects(call, rf"^(?:\w+ and )?(?:{name})(?!\w)")
