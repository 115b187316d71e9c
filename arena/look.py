"""The spectator's look, one place for the X window (:mod:`arena.view`) and the web page (:mod:`arena.web`):
the bands' and panel's sizes in pixels, the colours (RGB 0..255) and the words (spec/arena.md §4).

The web page gets all of it as one JSON object (:func:`as_json`), so both show the same colours and words.
Pure data: imports neither pygame nor a browser's anything.
"""

from __future__ import annotations

from typing import Any

TOP_H = 48
"""Height of the title band (map, round, team counts), pixels."""
BOTTOM_H = 24
"""Height of the legend band, pixels."""
PANEL_W = 240
"""Width of the score panel at the right, pixels."""
PLAYER_MIN_RADIUS = 4
"""Smallest disc radius in pixels: on big maps (cells of a few pixels) players stay visible."""

BLUE_RGB = (50, 100, 220)
RED_RGB = (220, 50, 47)
TEAM_RGB = {"BLUE": BLUE_RGB, "RED": RED_RGB}
WALL_RGB = (40, 40, 40)
FREE_LOW_RGB = (235, 235, 225)
"""A free cell of toxicity 0.01."""
FREE_HIGH_RGB = (150, 200, 110)
"""A free cell of toxicity 0.20."""
BACKGROUND_RGB = (20, 20, 24)
TEXT_RGB = (230, 230, 230)
RIM_RGB = (255, 255, 255)
"""The rim of a disc larger than its cell, and the facing pointer."""
DISCONNECTED_RGB = (160, 160, 160)
"""The ring of a player whose bot has left."""
ENERGY_BACK_RGB = (30, 30, 30)
ENERGY_RGB = (250, 200, 40)
ID_RGB = (0, 0, 0)
CONE_SHADE = 0.6
"""A view cone's outline is its team colour times this."""
CONE_HALF_DEGREES = 89.5
"""Half the 179° view cone."""
CONE_CELLS = 2
"""The drawn cone's radius, in cells."""

HEAD = "{title}  round {round}/{max_rounds}   blue {blues}  red {reds}"
"""The title band during a game (``str.format`` fields)."""
GAME_OVER = "game over"
STOPPED = ("game stopped before round 1 ({why})", "game stopped after 1 round ({why})",
           "game stopped after {rounds} rounds ({why})")
"""The end of a game a signal stopped, for 0 rounds played, 1 and more (:func:`counted`; ``str.format``
fields: the rounds played, the final line's ``"stopped"``), in the title band, in the print of
``arena play``, ``arena serve`` and ``arena replay`` and in the server's log."""
OVER_AFTER = ("game over before round 1", "game over after 1 round", "game over after {rounds} rounds")
"""The end of a game played out, in print and in the server's log (:func:`counted`; a game is over after a
round at the earliest, so the first never shows)."""
ROUNDS = ("0 rounds", "1 round", "{rounds} rounds")
"""A count of rounds in a line of print (:func:`counted`)."""
ALL_ROUNDS = ("no round", "the 1 round", "all {rounds} rounds")
"""The rounds of a replay that ``arena replay --verify`` reproduced (:func:`counted`)."""
PAUSED = "paused"
CUT_OFF = "cut off: no final table"
"""A replay's last round when the file ends before its final line (a game stopped, a file cut short)."""
WAITING_PLAYERS = "{title}  waiting for the players"
WAITING_BOTS = "{title}  waiting for {missing} bot{plural}"
LEGEND = "shading: toxicity 0.01 (light) .. 0.20 (green)   bar: energy   arc: view cone"
PANEL_COLUMNS = (("#", 2), ("id", 2), ("points", 7), ("energy", 6), ("sw", 3), ("catch", 5))
"""The score panel's columns (heading, width in characters): rank (once the game is over), wire id,
points, energy, switch round (the round the player turned red) and catches."""


def counted(templates: tuple[str, str, str], rounds: int, **fields: object) -> str:
    """The one of *templates* (for 0 rounds, 1 round, more) that fits *rounds*, filled with *rounds* and
    *fields*. The web page picks and fills them by the same rule (``counted`` in arena/viewer.html)."""
    return templates[min(rounds, 2)].format(rounds=rounds, **fields)


def ending(rounds: int, stopped: str | None = None) -> str:
    """The end of a game of *rounds* rounds, stopped for the reason *stopped* (None: played out):
    :data:`STOPPED` or :data:`OVER_AFTER`."""
    return counted(STOPPED, rounds, why=stopped) if stopped else counted(OVER_AFTER, rounds)


def free_colour(toxicity: int) -> tuple[int, int, int]:
    """Shade of a free cell of *toxicity* hundredths (1..20): linear from FREE_LOW_RGB to FREE_HIGH_RGB."""
    t = (min(max(toxicity, 1), 20) - 1) / 19
    (r0, g0, b0), (r1, g1, b1) = FREE_LOW_RGB, FREE_HIGH_RGB
    return round(r0 + (r1 - r0) * t), round(g0 + (g1 - g0) * t), round(b0 + (b1 - b0) * t)


def panel_row(*cells: object) -> str:
    """One line of the score panel: *cells* right-aligned in :data:`PANEL_COLUMNS`' widths."""
    return " ".join(f"{cell!s:>{width}}" for cell, (_, width) in zip(cells, PANEL_COLUMNS, strict=True))


PANEL_HEADING = panel_row(*(heading for heading, _ in PANEL_COLUMNS))


def head_text(title: str, state: dict[str, Any], *, over: bool = False, stopped: str | None = None,
              note: str = "") -> str:
    """The title band for *state* (:meth:`arena.rules.Game.snapshot`; before the game, no players and
    ``"waiting"``: the number of bots still missing); *over* adds "game over" (:data:`STOPPED` for a game
    *stopped* for that reason), *note* a word ("paused")."""
    players = state["players"]
    if not players:
        missing = state.get("waiting")
        if missing:
            return WAITING_BOTS.format(title=title, missing=missing, plural="s" if missing != 1 else "")
        return WAITING_PLAYERS.format(title=title)
    blues = sum(1 for p in players if p["team"] == "BLUE")
    head = HEAD.format(title=title, round=state["round"], max_rounds=state["max_rounds"], blues=blues,
                       reds=len(players) - blues)
    if over:
        head += "   " + (ending(state["round"], stopped) if stopped else GAME_OVER)
    if note:
        head += f"   {note}"
    return head


def as_json() -> dict[str, Any]:
    """Everything above as one JSON-ready object (colours as ``[r, g, b]``; ``free``: the 20 shades of
    toxicity 1..20), for the web page."""
    return {
        "top_h": TOP_H, "bottom_h": BOTTOM_H, "panel_w": PANEL_W, "player_min_radius": PLAYER_MIN_RADIUS,
        "team": TEAM_RGB, "wall": WALL_RGB, "free": [free_colour(v) for v in range(1, 21)],
        "background": BACKGROUND_RGB, "text": TEXT_RGB, "rim": RIM_RGB, "disconnected": DISCONNECTED_RGB,
        "energy_back": ENERGY_BACK_RGB, "energy": ENERGY_RGB, "id": ID_RGB, "cone_shade": CONE_SHADE,
        "cone_half_degrees": CONE_HALF_DEGREES, "cone_cells": CONE_CELLS,
        "head": HEAD, "game_over": GAME_OVER, "stopped": STOPPED, "paused": PAUSED, "cut_off": CUT_OFF,
        "waiting_players": WAITING_PLAYERS,
        "legend": LEGEND, "panel_columns": PANEL_COLUMNS,
    }
