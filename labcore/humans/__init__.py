"""People beside the agents: trial tables read into the lab's own markers.

- :mod:`labcore.humans.columns`: the two trial-table formats (the Confidence Database's and the
  lab's), their columns and the checks of a file and its header (a dual task's columns, the
  condition column);
- :mod:`labcore.humans.trials`: the contract of the cells and rows (missed trials, units per
  subject and condition), read into validated arrays (one sentence per refusal);
- :mod:`labcore.humans.markers`: per-subject accuracy, Type-2 AUROC, meta-d', M-ratio and
  calibration by the lab's markers, and the one rule that turns a confidence into ratings;
- :mod:`labcore.humans.datasets`: several files measured together, one table and a group line
  per data set and condition;
- :mod:`labcore.humans.reference`: the published figures about people, typed once;
- :mod:`labcore.humans.example`: the lab's synthetic example file;
- :mod:`labcore.humans.session`: "be the agent", the wagering task played by a visitor;
- :mod:`labcore.humans.command`: ``python -m labcore markers FILE.csv``.

Like ``labcore/training/`` and ``labcore/storage/``, the package re-exports nothing: import each
name from its module.
"""
