"""The classroom modes: the Mystery agent puzzles (:mod:`labcore.classroom.mystery`) and the
guided lesson (:mod:`labcore.classroom.lesson`)."""
