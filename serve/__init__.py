"""What the server shares between sessions, one module per concern; pages use it through ``ui.page`` only.

Streamlit runs every session's script in a thread of one process, so what one session does the others feel:

- ``visitors``: who asks, a session (a tab) and its visitor (a browser, within its address where it is known).
- ``line``: the fair line and its turns: ``Line``, the server's two lines (``PANELS``, ``TRAININGS``), panels drawn
  one at a time, long trainings in slices, a training turn kept while its panel draws.
- ``cache``: ``st.cache_data`` for rlcore's results, bounded and keyed cheaply; heavy ones computed in turns.
- ``shelves``: the last few results of a kind no cache can hold (page 19's finished runs), one shelf per name.
- ``jobs``: the server's own work, once ahead of time, in turns after every visitor's, and waiting for it.
- ``memory``: resident memory, the gate on a run beside another, glibc tuned at import and trimmed by a thread.

Layers: this package imports rlcore and streamlit, never ``ui`` or ``pages`` (the words of its notices are the
caller's ``say``); ``ui`` imports it; pages and ``dashboard.py`` do not (tests/app/test_house.py). It is the one
place of the app that starts threads or waits on locks. Each module holds its own state once per process.
"""
