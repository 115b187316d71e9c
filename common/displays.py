"""Player strings: which players sit at which X display (spec/motti.md §5).

``LIST:DISPLAY`` puts the comma-separated players of LIST on X display DISPLAY; the string is split at the
*first* colon, since a display name has colons of its own (``1,2:host:0.0``). Player ``0`` alone is an
observer connection with no players. Every player no string names sits at the default display, or at the
terminal with curses.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

__all__ = ["PlayerStringError", "Seat", "parse_seats", "player_string"]


class PlayerStringError(ValueError):
    """A bad player string; ``str()`` is one line naming the string and what is wrong with it."""


@dataclass(frozen=True)
class Seat:
    """The players (numbers 1..N, ascending; empty for an observer) sharing one connection.

    ``display`` is the X display string, or None for the terminal (curses).
    """

    players: tuple[int, ...]
    display: str | None


def _parse_one(arg: str, n_players: int) -> Seat:
    def fail(why: str) -> PlayerStringError:
        return PlayerStringError(f'bad player string "{arg}": {why}')

    if ":" not in arg:
        raise fail("expected LIST:DISPLAY, e.g. 1,2:host:0")
    numbers, display = arg.split(":", 1)
    if not display:
        raise fail("no display after the colon")
    if not numbers.strip():
        raise fail("empty player list")
    players: list[int] = []
    for item in numbers.split(","):
        item = item.strip()
        if not (item.isascii() and item.isdigit()):
            raise fail(f'"{item}" is not a player number' if item else "empty player number")
        number = int(item)
        if number > n_players:
            raise fail(f"there is no player {number} (this game has {n_players})")
        if number in players:
            raise fail(f"player {number} is named twice")
        players.append(number)
    if 0 in players:
        if len(players) > 1:
            raise fail("player 0 (observer) cannot share a display string with players")
        return Seat((), display)
    return Seat(tuple(sorted(players)), display)


def parse_seats(args: list[str], n_players: int, *, default_display: str | None,
                curses: bool = False, seated: Collection[int] | None = None) -> list[Seat]:
    """The seats of a game of ``n_players`` players from its player strings ``args`` (spec/motti.md §5, T21).

    One Seat per string, in the order given, then (if any player is left unnamed) one Seat of the unnamed
    players at ``default_display`` (normally ``$DISPLAY``), or at the terminal (``display`` None) when
    ``curses`` is true. Observers (``0:DISPLAY``) are Seats with no players. *seated* (default: all) holds the
    players that need a seat when unnamed; the others (e.g. players already out of the game) get none.

    Raises PlayerStringError for: no colon, an empty list, something not a number, a number greater than
    ``n_players``, a player named twice (in one string or across strings), and unnamed players with neither a
    default display nor curses.
    """
    seats: list[Seat] = []
    named: dict[int, str] = {}
    for arg in args:
        seat = _parse_one(arg, n_players)
        for player in seat.players:
            if player in named:
                raise PlayerStringError(f'bad player string "{arg}": player {player} is already named in '
                                        f'"{named[player]}"')
            named[player] = arg
        seats.append(seat)
    unnamed = tuple(player for player in range(1, n_players + 1)
                    if player not in named and (seated is None or player in seated))
    if unnamed:
        if curses:
            seats.append(Seat(unnamed, None))
        elif default_display:
            seats.append(Seat(unnamed, default_display))
        else:
            listed = ",".join(map(str, unnamed))
            who = f"player {listed} has" if len(unnamed) == 1 else f"players {listed} have"
            raise PlayerStringError(f"{who} no display: DISPLAY is not set (name one with {listed}:DISPLAY, "
                                    "or play on the terminal)")
    return seats


def player_string(seat: Seat) -> str:
    """The player string that gives *seat* again (a named seat: its display is set): ``1,2:host:0``, or
    ``0:host:0`` for an observer."""
    listed = ",".join(map(str, seat.players)) if seat.players else "0"
    return f"{listed}:{seat.display}"
