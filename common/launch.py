"""Where the commands start (``motti``, ``starlanes``, ``arena``, and ``python -m`` each, through the game's
``__main__``): :func:`launch`. This module imports nothing that Python's own start has not imported already,
so that a Ctrl-C while the program is imported finds the program's handling in place."""

import importlib

INTERRUPTED = 130
"""The exit status of a Ctrl-C (the table of common/cli.py)."""


def launch(module: str) -> int:
    """Import *module* (``motti.cli``) and return its ``main()``. A Ctrl-C while the import runs (numpy,
    scipy: up to a fifth of a second) gives status 130 with nothing printed, as once the program runs
    (:func:`common.cli.run_main`); it printed Python's traceback."""
    try:
        main = importlib.import_module(module).main
    except KeyboardInterrupt:
        return INTERRUPTED
    status: int = main()
    return status
