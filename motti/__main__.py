"""``python -m motti``: the same as the ``motti`` command (motti/cli.py)."""

import sys

from motti.cli import main

sys.exit(main())
