"""Memory: every Streamlit cache stays within its max_entries, and a long session levels off.

Quick (default run): page 4's "Your baseline b" slider feeds ``study`` (``st.cache_data``, max_entries=32)
through the tuple of baselines, so every new b is a cache miss. Sweeping b over 16 more values than that
must leave ``study`` holding exactly 32 entries, and running every page once creates the other
caches; then every ``st.cache_data`` and ``st.cache_resource`` the process holds must declare a
max_entries and hold no more than it. (The static check that every cache in pages/ and ui/ declares
max_entries is tests/app/test_security.py's; this is its run-time counterpart.) Streamlit has no public
way to read a cache's size, so this test file, and only it, reads ``streamlit.runtime.caching``'s cache
registries (the ones behind Streamlit's /_stcore/metrics endpoint).

Exhaustive (marker ``exhaustive``, run by .ci/run after the quick suite): one AppTest session driven
through 2,000 distinct widget states must level off.
No slider has 2,000 steps, so the run sweeps b (0 to 10 in steps of 0.01: 1,001 values) up at n = 100
answers, moves the "Sampled answers" slider to n = 200, and sweeps b back down: 2,000 distinct (n, b)
states, each one a new cache key. n stays small in both halves so that the two halves do the same work
(a bigger n in one half would make the comparison of their growth meaningless) and the run stays as
short as the page allows.

The process RSS (VmRSS) is read every 200 reruns (after gc.collect()). Criterion, from measurements: the
first half pays one-off costs (imports warmed up, allocator arenas, the cache filling to its 32 entries), the
second half must not keep paying. Last-half growth must be under 25 MB and under half the first-half growth,
or under 12 MB outright (so that a run whose warm-up already happened, earlier in the same process, is not
failed by allocator creep). Measured on this page, 2,000 reruns, last half: +1.7, +3.5 and +7.2 MB (three
runs; the last after the rlcore fuzz in the same process), first half +12, +12 and +9 MB, nearly all of it
within the first 200 reruns. The creep is ~1–4 KB per rerun: allocator fragmentation, plus Streamlit keeping
one lock and key string (~0.2 KB) per distinct cache key forever (tracemalloc; cache_utils._value_locks).

What RSS can and cannot see: it catches anything that keeps ~12 KB or more per rerun (the running-average
DataFrame alone is ~19 KB at n = 100, and its chart spec carries it again). It cannot separate a small leak
from that creep: a copy of this page with ``max_entries`` removed from ``study`` (one ~6 KB entry kept per
rerun) grew +7.8 MB over the last half, inside the criterion. That case is caught directly instead, by the
cache check above, which the soak repeats at its end.
"""

from __future__ import annotations

import gc
import time

import pytest
import streamlit as st
from streamlit.runtime.caching import cache_data_api, cache_resource_api
from streamlit.testing.v1 import AppTest

from serve import shelves
from tests.apphelp import ALL_PAGES, input_key, page_file, run_page

RERUNS = 2_000
EVERY = 200
B_GRID = [round(i * 0.01, 2) for i in range(1001)]  # the b slider's whole step grid, 0.00 … 10.00
LAST_HALF_MB = 25.0
NOISE_MB = 12.0
OVERFILL = 16  # the quick sweep tries this many more distinct b values than study can hold


def rss_mb() -> float:
    gc.collect()
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024  # kB → MB
    raise RuntimeError("no VmRSS in /proc/self/status")


def widget_states() -> list[tuple[str, float]]:
    """2,000 (slider key, value) moves, each to a value the page has not shown with the other slider's value."""
    up = [v for v in B_GRID if v != 8.0][:999]                     # b up the grid at n = 100 (8.0 is the default)
    down = [v for v in reversed(B_GRID) if v != up[-1]][:999]      # b back down at n = 200
    return [("n", 100), *(("b", v) for v in up), ("n", 200), *(("b", v) for v in down)]


def test_widget_states_are_distinct_and_on_the_grid():
    moves = widget_states()
    assert len(moves) == RERUNS
    state, seen = {"n": 2000, "b": 8.0}, {(2000, 8.0)}
    for key, value in moves:
        assert value != state[key], "every move is a real change"
        state[key] = value
        seen.add((state["n"], state["b"]))
        assert value in (B_GRID if key == "b" else range(100, 20_001, 100)), (key, value)
    assert len(seen) == RERUNS + 1  # 2,000 new states after the first run


@pytest.mark.exhaustive
def test_rss_levels_off_over_2000_reruns():
    at = AppTest.from_file(str(page_file("4_")), default_timeout=60).run()
    series = [(0, rss_mb())]
    start = time.perf_counter()
    for i, (key, value) in enumerate(widget_states(), start=1):
        at.slider(key=input_key(page_file("4_"), key)).set_value(value).run()
        if i % EVERY == 0:
            assert at.slider(key=input_key(page_file("4_"), key)).value == value
            series.append((i, rss_mb()))
    elapsed = time.perf_counter() - start
    print(f"\n{RERUNS} reruns in {elapsed:.0f} s ({elapsed / RERUNS * 1000:.0f} ms each)")
    print("reruns  RSS MB")
    for i, mb in series:
        print(f"{i:6d}  {mb:7.1f}")
    rss = dict(series)
    first, last = rss[RERUNS // 2] - rss[0], rss[RERUNS] - rss[RERUNS // 2]
    print(f"growth: first half {first:+.1f} MB, last half {last:+.1f} MB")
    assert last < LAST_HALF_MB, f"RSS grew {last:.1f} MB over the last {RERUNS // 2} reruns: {series}"
    assert last < max(first / 2, NOISE_MB), (
        f"RSS does not level off: {first:.1f} MB over the first half, {last:.1f} MB over the last: {series}")

    check_caches()


def check_caches() -> dict[str, tuple[int, int]]:
    """Every st.cache_data and st.cache_resource in the process is bounded and within its bound.

    Returns (entries, max_entries) by cache name."""
    entries = {}
    data = [c for caches in cache_data_api._data_caches._function_caches.values() for c in caches.values()]
    for cache in data:
        assert cache.max_entries is not None, f"st.cache_data {cache.display_name} is unbounded"
        n = sum(len(family) for family in cache.get_stats().values())  # one CacheStat per stored entry
        assert n <= cache.max_entries, (cache.display_name, n, cache.max_entries)
        entries[cache.display_name] = n, cache.max_entries
    resources = [c for caches in cache_resource_api._resource_caches._function_caches.values()
                 for c in caches.values()]
    for cache in resources:
        assert cache.max_entries is not None, f"st.cache_resource {cache.display_name} is unbounded"
        n = len(cache._mem_cache)
        assert n <= cache.max_entries, (cache.display_name, n, cache.max_entries)
        entries[cache.display_name] = n, cache.max_entries
    for name, shelf in shelves._SHELVES.items():  # what the sessions share besides the caches (page 19's runs)
        assert len(shelf.items) <= shelf.size, (name, len(shelf.items), shelf.size)
        entries[name] = len(shelf.items), shelf.size
    return entries


def study_entries(entries: dict[str, tuple[int, int]]) -> tuple[int, int]:
    """The entries and bound of the cache of page 4's study, the one its baseline slider sweeps."""
    (n_and_bound,) = [v for k, v in entries.items() if k.endswith(".baseline_study")]
    return n_and_bound


def test_caches_stay_within_max_entries():
    n_key, b_key = (input_key(page_file("4_"), name) for name in ("n", "b"))
    st.cache_data.clear()  # another test in this process may have filled the caches with the values swept here
    at = AppTest.from_file(str(page_file("4_")), default_timeout=60).run()
    at = at.slider(key=n_key).set_value(100).run()
    before, bound = study_entries(check_caches())
    sweep = [v for v in B_GRID[::7] if v != at.slider(key=b_key).value][:bound + OVERFILL]  # 0.00, 0.07, 0.14, ...
    assert len(set(sweep)) == bound + OVERFILL
    for i, value in enumerate(sweep, start=1):
        at = at.slider(key=b_key).set_value(value).run()
        if i == 10:
            assert study_entries(check_caches())[0] >= min(before + 10, bound)  # each new b is a new entry
    assert study_entries(check_caches())[0] == bound, f"{bound + OVERFILL} new keys fill study; eviction holds it"

    for path in ALL_PAGES:  # every page once, so that every cache exists and is checked
        run_page(path)
    entries = check_caches()
    names = {k.rsplit(".", 1)[-1] for k in entries}
    assert {"baseline_study", "lab_bands", "exploration_study", "answer_critic_error", "base_measure"} <= names, names
