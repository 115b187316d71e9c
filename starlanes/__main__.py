"""``python -m starlanes``: the same as the ``starlanes`` command."""

import sys

from starlanes.cli import main

sys.exit(main())
