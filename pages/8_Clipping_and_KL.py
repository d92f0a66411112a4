"""The old address /Clipping_and_KL, from before the page was split in two: a shared link goes on to the half
that reads its inputs (the KL penalty's, else ratio and clipping), with its parameters."""

import streamlit as st

KL_INPUTS = {"share", "beta", "n", "kl_seed"}  # the link names of pages/8_KL_penalty.py's inputs

params = {k: st.query_params.get_all(k) for k in st.query_params}
st.switch_page("pages/8_KL_penalty.py" if KL_INPUTS & params.keys() else "pages/8_Ratio_and_clipping.py",
               query_params=params)
