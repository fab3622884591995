"""People beside the agents: their trial tables measured with the lab's own markers."""
