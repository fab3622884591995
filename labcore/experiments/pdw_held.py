"""The reward explorer's post hoc follow-up (protocol change log 2026-11-24, not registered): the
five choices the explorer held at Song's values, each set to protocol 8.6's value from the old
default (``O~<choice>``), and all five together (``O~all``).

The same agents, files, rules and runner as the explorer (:mod:`labcore.experiments.pdw_sweep`,
:mod:`labcore.experiments.pdw_sweep_findings`), on the follow-up's cells:
``python -m labcore study pdw_held --jobs 2`` (about 15 min on 2 cores).
"""

from __future__ import annotations

from labcore.experiments.pdw_sweep import make_study

STUDY = make_study("held")
