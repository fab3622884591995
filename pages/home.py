"""Home: what the lab is, in plain words."""

import streamlit as st

st.title("Consciousness-Theories Ablation Lab")
st.write(
    "Small gridworld agents that embody three theories of consciousness (Global Workspace, "
    "Higher-Order, Integrated Information). Switch their parts off and watch which abilities go."
)
st.info("These agents are not conscious: they are reference implementations of proposed mechanisms.")
