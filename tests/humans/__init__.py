"""Tests of labcore.humans: trial tables, their markers, the human reference, be the agent."""
