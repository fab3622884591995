"""The studies beside the result sets: their folders under ``results/`` (:data:`STUDY_DIRS`), read
through :func:`labcore.experiments.study.load_study`.
"""

from __future__ import annotations

EXPLORE_DIR = "explore_e3"
"""Folder of the E3 design study under ``results/`` (``python -m labcore study e3_design``)."""
NEUROGYM_DIR = "explore_neurogym"
"""Folder of the bundled NeuroGym study under ``results/`` (``python -m labcore study
neurogym``)."""
PDW_DIR = "pdw"
PDW_SWEEP_DIR = "pdw_sweep"
PDW_HELD_DIR = "pdw_held"
"""Folders of protocol 8.7's studies (``study pdw``, ``study pdw_sweep``, and the post hoc
``study pdw_held``)."""
INTEGRATION_DIR = "explore_integration"
"""Folder of the integration study (``python -m labcore study integration``; protocol sec. 9)."""
DISSOCIATIONS_DIRS = ("dissociations", "dissociations_seeds20")
"""The measured dissociations' result sets (``labcore.experiments.dissociations``): n = 5 and 20."""
STUDY_DIRS = (
    EXPLORE_DIR,
    NEUROGYM_DIR,
    PDW_DIR,
    PDW_SWEEP_DIR,
    PDW_HELD_DIR,
    INTEGRATION_DIR,
    *DISSOCIATIONS_DIRS,
)
"""Folders under ``results/`` that hold a study, not a result set of ``study paper`` or
``study e4``."""
