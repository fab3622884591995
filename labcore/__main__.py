"""``python -m labcore``: see :mod:`labcore.cli`.

``--compute fast|portable`` is read here, before the command line's modules import NumPy or
torch, because the libraries read their code-path pins once (:mod:`labcore.compute`).
"""

import sys

from labcore import compute


def _compute_option(argv: list[str]) -> str | None:
    """The value of ``--compute`` in ``argv`` (``--compute X`` or ``--compute=X``), if any."""
    for i, arg in enumerate(argv):
        if arg == "--compute" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--compute="):
            return arg.split("=", 1)[1]
    return None


if __name__ == "__main__":
    option = _compute_option(sys.argv[1:])
    if option is not None and option in compute.MODES:
        compute.mode_error = None
        compute.configure(option)
    from labcore.cli import main

    sys.exit(main())
