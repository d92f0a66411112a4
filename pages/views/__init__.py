"""A page's own view code, beside it: the long sections one page draws, kept out of ``ui/`` (the page-writing API).

A module here is imported by exactly one page, its owner (``pages/9_Training_lab.py`` imports ``lab``, page 17
``gao``, page 18 ``dpo``, page 19 ``zero``, ``zero_claims`` and ``zero_runs``), keeps the page rules (functions of
at most 60 lines, no cached computation, at most 250 lines) and counts in its owner's line budget
(tests/app/test_house.py). Streamlit's ``pages/`` folder is read one level deep, so nothing here is a page.
"""
