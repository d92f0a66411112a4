"""A script for tests/e2e/test_superseded_run_e2e.py: its first run trains without end in turns of the training
line, making no Streamlit call between its steps; a click on Again reruns it, which Streamlit does in a new thread
while the old run winds down (``runner.fastReruns``), and that second run asks for a training turn of its own."""

import pathlib
import sys
import time

import streamlit as st

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))  # the repository, for ``serve``

from serve import line

st.button("Again")
runs = st.session_state["runs"] = st.session_state.get("runs", 0) + 1
if runs == 1:
    st.write("training")

    def steps():
        while True:
            time.sleep(0.1)
            yield None

    for _ in line.in_turns(steps(), where=st.empty()):
        pass  # nothing drawn between steps: the old run meets Streamlit only where it asks for its next turn
else:
    line.in_a_training_turn(time.sleep, 0.1)
    st.write(f"run {runs} had its turn")
