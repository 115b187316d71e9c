"""The ``--status FILE`` JSON of spec/motti.md §6, written by the session (motti/session.py).

The file is rewritten atomically (common.save.write_atomic) after every action and every window change. Its
keys: ``board`` (rows in the map grid format of §3.2), ``width``, ``height``, ``players``, ``capitals``
(``{"k": [x, y] or null}``), ``turn`` (null once the game is over), ``action``, ``attacks_left``,
``crosses`` (``[[x, y], ...]``), ``alive``, ``winner``, ``turns`` (turns played), ``result`` (``"win"``,
``"land"``, ``"draw"``, or null while the game runs, §2.9–§2.10), ``rules`` (the rule options,
``{"reset_rule", "capital_rule", "tie_rule", "max_turns"}``: motti.rules.Rules.options), ``max_turns`` (the
cap of §2.9 or null), ``land`` (``{"k": cells}`` per alive player), ``reset`` (what stands between the game
and the next global reset, §2.8: ``{"rule": "strict", "takeable": {"k": n}}`` or ``{"rule": "empty", "free":
n}``, null once the game is over; motti.rules.ResetOutlook), ``resets`` (the turns with a global reset so
far), ``tip`` (the last tip asked for, while it stands: ``{"player", "action", "cells", "why"}``,
motti.explain.Tip), ``message`` (the last announcement or null), ``windows`` (per open window: source,
display, players, window_id, size ``[w, h]`` px, ``x0``, ``y0``, ``c``, ``view_cells`` ``[x0, y0, x1, y1]``
(motti.viewport.Geometry.as_status), ``note``: the window's own line, a question or why a click did nothing,
or null; ``legend``: the whole text of its legend band; ``history``: whether the ``m`` panel is shown;
``help``: whether the help of ``?``/F1 is shown)
``console`` (the players at the terminal, or null without a console) and ``last_turn`` (the cells the
previous turn changed: ``{"player", "action", "cells": [[x, y, CHANGE], ...], "reset"}``, null before the
first turn ended; motti.announce.LastTurn).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from common.save import save_json
from motti.mapfile import dump_map

if TYPE_CHECKING:
    from motti.announce import LastTurn
    from motti.compose import Composer
    from motti.explain import Tip


def board_rows(game: Composer) -> list[str]:
    """The board in the map grid format of spec §3.2: ``.`` sea, ``a``–``i`` free, ``A``–``I`` occupied."""
    return dump_map(game.board).split("\ngrid\n", 1)[1].splitlines()


def status_data(game: Composer, *, message: str | None = None, windows: list[dict[str, Any]] | None = None,
                console: Collection[int] | None = None, last_turn: LastTurn | None = None,
                tip: Tip | None = None) -> dict[str, Any]:
    """The status JSON as a dict; *windows* as described in the module docstring, *console* the players at
    the terminal (None when no console is open), *last_turn* the turn before (spec §6, None before the first
    turn ended), *tip* the tip shown (or None)."""
    board = game.board
    outlook = game.game.reset_outlook()
    return {
        "board": board_rows(game),
        "width": board.width,
        "height": board.height,
        "players": board.players,
        "capitals": {str(p): None if cell is None else list(cell) for p, cell in board.capitals.items()},
        "turn": None if game.is_terminal() else game.current_player,
        "action": game.selected.value,
        "attacks_left": game.attacks_left,
        "crosses": [list(cell) for cell in game.crosses],
        "alive": list(game.alive),
        "winner": game.winner,
        "turns": game.turns,
        "result": game.game.result,
        "rules": game.game.rules.options(),
        "max_turns": game.game.max_turns,
        "land": {str(p): n for p, n in game.game.land_counts().items()},
        "reset": None if outlook is None else outlook.to_json(),
        "resets": list(game.game.resets),
        "tip": None if tip is None else tip.to_json(),
        "message": message,
        "windows": list(windows or []),
        "console": None if console is None else list(console),
        "last_turn": None if last_turn is None else last_turn.to_json(),
    }


def write_status(path: str, data: dict[str, Any]) -> None:
    """Write *data* as JSON to *path* atomically (:func:`common.save.save_json`: keys sorted, one item a line,
    UTF-8; after a player leaves a large board the last turn lists 100 000 cells, which ``json.dumps`` took
    half a second to write). Raises OSError."""
    save_json(path, data)
