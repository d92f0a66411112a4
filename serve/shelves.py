"""Shelves: the last few results of a kind, shared by every session of the server, for what no cache can hold
because a live training makes it step by step (page 19's finished runs). One shelf per name and process.
"""

from __future__ import annotations

import threading
from collections import OrderedDict


class Shelf:
    """The last ``size`` results put on it, shared by every session of the server (the least recently used goes
    first): page 19's finished runs, which no cache can hold because a live training makes them step by step."""

    def __init__(self, size: int):
        self.size, self.items, self.lock = size, OrderedDict(), threading.Lock()

    def get(self, key):
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
            return self.items.get(key)

    def put(self, key, item) -> None:
        with self.lock:
            self.items[key] = item
            self.items.move_to_end(key)
            while len(self.items) > self.size:
                self.items.popitem(last=False)


_SHELVES: dict[str, Shelf] = {}
_SHELVES_LOCK = threading.Lock()


def shelf(name: str, size: int) -> Shelf:
    """The server's shelf ``name`` (made with room for ``size`` items the first time it is asked for)."""
    with _SHELVES_LOCK:
        return _SHELVES.setdefault(name, Shelf(size))
