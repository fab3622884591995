"""People beside the agents: trial tables read into the lab's own markers (formats in
``columns``, the contract in ``trials``, markers, several files in ``datasets``, the published
``reference``, the synthetic ``example``, "Be the agent" ``session``, the ``markers`` command).
"""
