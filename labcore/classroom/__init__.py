"""The classroom: the class store, the Mystery agent puzzles and the guided lesson."""
