"""Star Lanes save files: the whole game state and who plays each seat, as JSON written atomically.

Format (``"format": "starlanes-save-1"``)::

    {"format": "starlanes-save-1",
     "controllers": ["human", "hard", ...],        # one per player: "human" or a level of starlanes.ai
     "game": Game.to_dict()}                        # map rows, companies [size, price], players, phase, rng

The game is saved at every prompt, so ``starlanes --resume FILE`` continues at the prompt where it stopped.
"""

from __future__ import annotations

import os

from common.save import load_json, save_json
from starlanes.ai import LEVELS
from starlanes.rules import Game

FORMAT = "starlanes-save-1"
HUMAN = "human"
CONTROLLERS = (HUMAN, *LEVELS)


class SaveError(ValueError):
    """A save file that cannot be read or is not a Star Lanes save; the message names file and fault."""


def save_game(path: str | os.PathLike[str], game: Game, controllers: list[str]) -> None:
    """Write ``game`` and ``controllers`` to ``path`` atomically (common.save). Raises OSError."""
    save_json(path, {"format": FORMAT, "controllers": list(controllers), "game": game.to_dict()})


def load_game(path: str | os.PathLike[str]) -> tuple[Game, list[str]]:
    """Read a save file. Returns ``(game, controllers)``; raises :class:`SaveError`."""
    try:
        data = load_json(path)
    except OSError as exc:
        raise SaveError(f"{path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise SaveError(f"{path}: not JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SaveError(f"{path}: not a Star Lanes save (expected \"format\": \"{FORMAT}\")")
    if "game" not in data:
        raise SaveError(f"{path}: missing \"game\" (the game state)")
    try:
        game = Game.from_dict(data["game"])
    except (KeyError, ValueError) as exc:
        raise SaveError(f"{path}: bad game state: {exc}") from None
    controllers = data.get("controllers")
    if (not isinstance(controllers, list) or len(controllers) != len(game.players)
            or any(c not in CONTROLLERS for c in controllers)):
        raise SaveError(f"{path}: \"controllers\" must name {', '.join(CONTROLLERS)} once per player")
    return game, controllers
