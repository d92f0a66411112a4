"""ui.page's helpers for the server: panels that take turns, and cache keys made from rlcore's dataclasses."""

from __future__ import annotations

import threading
import time

import pytest

import rlcore
from serve import cache
from ui import page


def test_panels_take_turns_across_threads():
    inside, most, lock = [0], [0], threading.Lock()

    @page.one_at_a_time
    def panel(i):
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        time.sleep(0.02)  # long enough for the other threads to be at the door, were it open
        with lock:
            inside[0] -= 1
        return i

    threads = [threading.Thread(target=panel, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert most[0] == 1 and inside[0] == 0, "two panels ran at once"
    assert panel.__name__ == "panel" and panel(7) == 7  # the fragment's name and the result pass through


def test_a_panel_that_stops_early_lets_the_next_one_run():
    @page.one_at_a_time
    def stops():
        raise RuntimeError("st.stop, or a newer rerun")

    with pytest.raises(RuntimeError):
        stops()
    done = threading.Event()
    threading.Thread(target=page.one_at_a_time(done.set), daemon=True).start()
    assert done.wait(2), "the turn was kept after the exception"


def test_cache_keys_tell_apart_scenarios_and_configs_that_differ_in_one_digit():
    calls = []

    @cache.cached(8)
    def probe(scenario, config):
        calls.append(1)
        return scenario.samples[0][0], config.lr

    base = rlcore.Scenario(tokens=("a", "b"), probs=(0.5, 0.5), samples=((0.1,), (2.0,)))
    nudged = rlcore.Scenario(tokens=("a", "b"), probs=(0.5, 0.5), samples=((0.1 + 2**-56,), (2.0,)))
    assert nudged.samples[0][0] != base.samples[0][0]
    cfg = rlcore.LabConfig(lr=0.3)
    assert probe(base, cfg) == (0.1, 0.3)
    assert probe(nudged, cfg) == (0.1 + 2**-56, 0.3)           # not the first one's entry
    assert probe(base, rlcore.LabConfig(lr=0.3 + 2**-54)) == (0.1, 0.3 + 2**-54)
    assert len(calls) == 3
    same = rlcore.Scenario(tokens=("a", "b"), probs=(0.5, 0.5), samples=((0.1,), (2.0,)))
    assert probe(same, rlcore.LabConfig(lr=0.3)) == (0.1, 0.3) and len(calls) == 3  # equal values: a hit


def test_a_shelf_keeps_its_last_items_and_lets_the_least_recently_used_go():
    """page.shelf: what page 19's sessions share (finished runs): bounded, the least recently used out first."""
    shelf = page.shelf("test_shelf_lru", 2)
    assert page.shelf("test_shelf_lru", 99) is shelf  # one per name on the server; the first size holds
    shelf.put("a", 1)
    shelf.put("b", 2)
    assert shelf.get("a") == 1  # a is now the most recently used
    shelf.put("c", 3)
    assert (shelf.get("a"), shelf.get("b"), shelf.get("c")) == (1, None, 3)
