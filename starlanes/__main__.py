"""``python -m starlanes`` and the ``starlanes`` command: :func:`main`."""

import sys

from common.launch import launch


def main() -> int:
    """Run the program (``starlanes.cli.main``); a Ctrl-C while it is imported is status 130, as later
    (:func:`common.launch.launch`)."""
    return launch("starlanes.cli")


if __name__ == "__main__":
    sys.exit(main())
