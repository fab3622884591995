"""Plotly figure builders: pure functions from arrays or result tables to figures (no file read,
no Streamlit).
"""
