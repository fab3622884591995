"""Training agents: behaviour cloning, reinforcement learning, and saving what they make.

Every module of this package is imported by its own path (no re-exports here): see the
"Concept -> its one home" table of docs/ARCHITECTURE.md.
"""
