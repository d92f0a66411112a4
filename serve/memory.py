"""The server's memory: how much it holds (``resident_mb``), the gate that keeps a second heavy run from going beside
the first when it holds much (``room_beside``), and glibc asked to give what the sessions' threads free back to the
system: tuned once when this module is imported (``_tune_malloc``; ``ui.page`` imports it, so a page's first lines
do), then trimmed by a thread of its own (``keep_memory_trimmed``). bench/memory_room.py measures it (BENCHMARKS.md).
"""

from __future__ import annotations

import ctypes
import os
import pathlib
import threading
import time

BESIDE_BELOW_MB = 560.0  # above this much resident memory, a run goes beside no other (two heavy runs' arrays at once
                         # took a burst past Community Cloud's 690 MB: their memory counts in the line, not only time)


def resident_mb() -> float:
    """The server's resident memory now, in MB (Linux's /proc; 0 where there is none)."""
    try:
        statm = pathlib.Path("/proc/self/statm").read_text()  # a fixed path: the app opens no file a visitor names
        return int(statm.split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return 0.0



def room_beside() -> bool:
    """Whether the server holds little enough memory (below ``BESIDE_BELOW_MB``) for a run to go beside another."""
    return resident_mb() < BESIDE_BELOW_MB


TRIM_EVERY_S = 30.0  # how often the server gives freed memory back
_TRIMMER: list[threading.Thread] = []
_TRIMMER_LOCK = threading.Lock()

# glibc's mallopt parameters (malloc.h) and what the server asks of them
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD, M_ARENA_MAX = -1, -3, -8
ARENAS = 2                # malloc arenas the server's threads share (as MALLOC_ARENA_MAX=2 would)
OWN_PAGES_FROM = 1 << 20  # a block of 1 MB or more gets pages of its own, given back to the system when freed
KEEP_TOP = 32 << 20       # free memory an arena may keep at its top between two trims (the trimmer takes the rest)


def _glibc():
    """glibc (``libc.so.6``) with ``mallopt`` and ``malloc_trim``, or None (not Linux, or another C library)."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt.argtypes, libc.mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
        libc.malloc_trim.argtypes, libc.malloc_trim.restype = [ctypes.c_size_t], ctypes.c_int
    except (OSError, AttributeError):
        return None
    return libc


def _tune_malloc():
    """Ask glibc, once, when this module is imported (by the first page's first lines, through ``ui.page``, before
    Streamlit's later session threads allocate), for what the environment would set where it cannot be set
    (Community Cloud, a plain ``streamlit run``); returns glibc's ``malloc_trim``, or None without glibc.

    - **Two arenas.** glibc gives each thread that allocates an arena of its own (up to eight per core), and an arena
      keeps what is freed in it. A limit asked for late counts from the arenas already made, so the threads Streamlit
      starts afterwards share those (about five) instead of making more.
    - **Large blocks on pages of their own** (``OWN_PAGES_FROM``). glibc mmaps a block of 128 kB or more, and gives
      its pages back when it is freed, but every such free raises that threshold to the block's size, up to 32 MB:
      once a training has freed its arrays, the next arrays of a few MB are cut from the arenas among long-lived
      small objects, and the holes they leave cannot be given back. A fixed threshold stays where it is set. At
      1 MB a room of 30 sessions left +43 MB behind instead of +106 MB (128 kB: about 0; 2 MB: +71 MB), while a
      training step of page 19 took about the same time (128 kB: 1.4–2× the time, every array's fresh pages faulted
      in; bench/memory_room.py, BENCHMARKS.md).
    - **Free memory at an arena's top is kept up to** ``KEEP_TOP``: a fixed mmap threshold also fixes the trim
      threshold at 128 kB, and giving back and taking again every few arrays cost a training step 1.7× its time;
      the trimmer (``keep_memory_trimmed``) gives back what stays."""
    libc = _glibc()
    if libc is None:
        return None
    libc.mallopt(M_ARENA_MAX, ARENAS)
    libc.mallopt(M_MMAP_THRESHOLD, OWN_PAGES_FROM)
    libc.mallopt(M_TRIM_THRESHOLD, KEEP_TOP)
    return libc.malloc_trim


_TRIM = _tune_malloc()


def keep_memory_trimmed(every: float = TRIM_EVERY_S) -> bool:
    """Start, once per server process, a thread that gives the memory the server's threads freed back to the system
    every ``every`` seconds; whether one runs. glibc keeps a malloc arena per thread that allocated and holds on to
    what is freed in it, and Streamlit runs each session's script in a thread of its own: a room of 30 sessions
    left 320 MB behind after it had gone (bench/memory_room.py). ``malloc_trim(0)`` returns the free pages of every
    arena. Without glibc nothing starts."""
    with _TRIMMER_LOCK:
        if not _TRIMMER:
            if _TRIM is None:
                return False

            def loop() -> None:
                while True:
                    time.sleep(every)
                    _TRIM(0)
            _TRIMMER.append(threading.Thread(target=loop, name="malloc-trim", daemon=True))
            _TRIMMER[0].start()
        return True
