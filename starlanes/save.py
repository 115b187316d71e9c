"""Star Lanes save files: the whole game state and who plays each seat, as JSON written atomically.

Format (``"format": "starlanes-save-1"``)::

    {"format": "starlanes-save-1",
     "controllers": ["human", "hard", ...],        # one per player: "human" or a level of starlanes.ai
     "game": Game.to_dict()}                        # map rows, companies [size, price], players, phase, rng

The game is saved at every prompt, so ``starlanes --resume FILE`` continues at the prompt where it stopped.
Loading refuses a state the rules cannot reach (:meth:`starlanes.rules.Game.check`), numbers included: prices
above $3000, more than 69 company sectors, more cash or shares than ``moves`` finished turns can yield.
"""

from __future__ import annotations

import os

import msgspec

from common.save import FileFormatError, decode_json, save_json
from starlanes.ai import LEVELS
from starlanes.rules import Game

FORMAT = "starlanes-save-1"
HUMAN = "human"
CONTROLLERS = (HUMAN, *LEVELS)


class SaveError(ValueError):
    """A save file that cannot be read or is not a Star Lanes save; the message names file and fault."""


class PlayerData(msgspec.Struct, forbid_unknown_fields=True):
    """``$.game.players[i]``: a player's name, cash and holdings (shares of companies A–E)."""

    name: str
    cash: int
    holdings: list[int]


class GameData(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """``$.game``: the shapes and types of :meth:`starlanes.rules.Game.to_dict`; the rules check the rest."""

    map: list[str]
    companies: list[tuple[int, int]]
    players: list[PlayerData]
    current: int
    phase: str
    candidates: list[int]
    history: list[list[int]]
    rng: tuple[int, list[int], float | None]
    rules: str = "1995"
    moves: int | None = None
    asking: int | None = None


class _Format(msgspec.Struct):
    """Just the ``format`` field, to tell another file from a damaged save."""

    format: object = None


class SaveFile(msgspec.Struct, forbid_unknown_fields=True):
    """The whole file."""

    format: str
    controllers: list[str]
    game: GameData


def game_of(data: GameData) -> Game:
    """The game *data* holds (:meth:`starlanes.rules.Game.from_dict`). Raises ValueError naming the first bad
    field, or the first invariant of the rules' checks broken."""
    # Shallow, so that the history rows stay the lists msgspec made; a field left out stays out (the rules
    # know its default).
    state = {key: value for key, value in msgspec.structs.asdict(data).items() if value is not None}
    state["players"] = msgspec.to_builtins(data.players)
    return Game.from_dict(state)


def save_game(path: str | os.PathLike[str], game: Game, controllers: list[str]) -> None:
    """Write ``game`` and ``controllers`` to ``path`` atomically (common.save). Raises OSError."""
    save_json(path, {"format": FORMAT, "controllers": list(controllers), "game": game.to_dict()})


def load_game(path: str | os.PathLike[str]) -> tuple[Game, list[str]]:
    """Read a save file. Returns ``(game, controllers)``; raises :class:`SaveError` with one line naming the
    file and the JSON path or line and column (``game.json: $.game.companies[0]: expected array of length
    2``)."""
    not_a_save = SaveError(f"{path}: $.format: not a Star Lanes save (expected \"{FORMAT}\")")
    try:
        data = decode_json(path, SaveFile)
    except OSError as exc:
        raise SaveError(f"{path}: {exc.strerror or exc}") from None
    except FileFormatError as exc:
        try:
            if decode_json(path, _Format).format != FORMAT:
                raise not_a_save from None
        except FileFormatError:
            pass
        raise SaveError(str(exc)) from None
    if data.format != FORMAT:
        raise not_a_save
    try:
        game = game_of(data.game)
    except (KeyError, ValueError) as exc:
        raise SaveError(f"{path}: $.game: bad game state: {exc}") from None
    if len(data.controllers) != len(game.players) or any(c not in CONTROLLERS for c in data.controllers):
        raise SaveError(f"{path}: $.controllers: must name {', '.join(CONTROLLERS)} once per player")
    return game, data.controllers
