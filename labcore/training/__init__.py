"""Training agents: behaviour cloning, reinforcement learning, and saving what they make (each
module imported by its own path)."""
