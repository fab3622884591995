"""``python -m labcore``: see :mod:`labcore.cli`."""

import sys

from labcore.cli import main

if __name__ == "__main__":
    sys.exit(main())
