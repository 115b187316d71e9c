"""``python -m motti`` and the ``motti`` command (motti/cli.py): :func:`main`."""

import sys

from common.launch import launch


def main() -> int:
    """Run the program (``motti.cli.main``); a Ctrl-C while it is imported is status 130, as later
    (:func:`common.launch.launch`)."""
    return launch("motti.cli")


if __name__ == "__main__":
    sys.exit(main())
