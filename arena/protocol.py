"""The arena wire protocol as a pure codec (spec/arena.md §3): no sockets, no clock.

Every message is ASCII text terminated by ``|`` (no ``\\r``/``\\n`` anywhere). :class:`Splitter` buffers
the bytes of one TCP stream and returns the complete messages (without the ``|``); :func:`parse_server` and
:func:`parse_client` turn one message into a dataclass, :func:`encode` turns dataclasses back into wire bytes.
Server and bots use the same module.

Energy and toxicity travel as decimals with two places (``LIFE 99.70 3``); in memory they are integer
hundredths (:func:`parse_hundredths` accepts any decimal and rounds half up to the nearest hundredth).
"""

from __future__ import annotations

import re

DIRECTIONS: tuple[str, ...] = ("NORTH", "NORTH_EAST", "EAST", "SOUTH_EAST", "SOUTH", "SOUTH_WEST", "WEST",
                               "NORTH_WEST")
"""The eight facings, in the spec's order (§2.1); a movement may also be ``NONE``."""
MOVES: tuple[str, ...] = (*DIRECTIONS, "NONE")
TEAMS: tuple[str, ...] = ("BLUE", "RED")
TERMINATOR = b"|"
MAX_MESSAGE_BYTES = 256
"""A message (without its ``|``) longer than this is a protocol violation (§3)."""
MAX_MESSAGES_PER_ROUND = 64
"""A client sending more messages than this in one round is a protocol violation (§3)."""


class ProtocolError(ValueError):
    """A message that does not follow §3; ``str()`` is one line naming the message and what was expected."""


class MessageTooLong(ProtocolError):
    """More than :data:`MAX_MESSAGE_BYTES` bytes without a ``|`` (§3: the client is disconnected)."""


# --- messages ---------------------------------------------------------------------------------------------

class _Message:
    """What every message is: immutable, equal to a message of the same type with equal fields, hashable and
    shown as ``Set(x=4, y=3, view='NORTH')``; its fields in ``__match_args__`` (``case Set(x, y, view)``).

    Plain classes with slots rather than dataclasses: a bot's process imports this module at every start, and
    the dataclass machinery cost it more than its whole protocol handling."""

    __slots__ = ()
    __match_args__: tuple[str, ...] = ()

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__match_args__)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, _Message)
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._values()))

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={value!r}" for name, value in zip(self.__match_args__, self._values(),
                                                                       strict=True))
        return f"{type(self).__name__}({fields})"

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: cannot delete {name!r}")


def _set(message: _Message, *values: object) -> None:
    """Give a new *message* its field *values* (in ``__match_args__`` order)."""
    for name, value in zip(message.__match_args__, values, strict=True):
        object.__setattr__(message, name, value)


class Id(_Message):
    """``ID <n>``: the first message to a new client."""
    __slots__ = __match_args__ = ("id",)
    id: int

    def __init__(self, id: int) -> None:
        _set(self, id)


class IdOkay(_Message):
    """``ID_OKAY``: the client accepts its id."""
    __slots__ = ()


class IdNotOkay(_Message):
    """``ID_NOT_OKAY``: the client refuses its id and is dropped."""
    __slots__ = ()


class Ping(_Message):
    """``PING`` (both directions; never needs an answer)."""
    __slots__ = ()


class Connected(_Message):
    """``CONNECTED <n>``: another client joined."""
    __slots__ = __match_args__ = ("id",)
    id: int

    def __init__(self, id: int) -> None:
        _set(self, id)


class Disconnected(_Message):
    """``DISCONNECTED <n>``: another client left."""
    __slots__ = __match_args__ = ("id",)
    id: int

    def __init__(self, id: int) -> None:
        _set(self, id)


class Disconnect(_Message):
    """``DISCONNECT``: the game is over (or the server is full); the client should close."""
    __slots__ = ()


class Map(_Message):
    """``MAP <path>``: absolute path of the normalised ``.map`` file."""
    __slots__ = __match_args__ = ("path",)
    path: str

    def __init__(self, path: str) -> None:
        _set(self, path)


class Set(_Message):
    """``SET <x,y> <VIEW>``: the receiver's own position and facing."""
    __slots__ = __match_args__ = ("x", "y", "view")
    x: int
    y: int
    view: str

    def __init__(self, x: int, y: int, view: str) -> None:
        _set(self, x, y, view)


class SeePlayer(_Message):
    """``SEE_PLAYER <x,y> <VIEW> <n>``: a team-mate or a visible opponent."""
    __slots__ = __match_args__ = ("x", "y", "view", "id")
    x: int
    y: int
    view: str
    id: int

    def __init__(self, x: int, y: int, view: str, id: int) -> None:
        _set(self, x, y, view, id)


class Toxic(_Message):
    """``TOXIC <x,y> <value>``: toxicity of the receiver's cell, ``value`` in hundredths (1..20)."""
    __slots__ = __match_args__ = ("x", "y", "value")
    x: int
    y: int
    value: int

    def __init__(self, x: int, y: int, value: int) -> None:
        _set(self, x, y, value)


class Life(_Message):
    """``LIFE <value> <n>``: energy of player ``id`` in hundredths (floor 0)."""
    __slots__ = __match_args__ = ("value", "id")
    value: int
    id: int

    def __init__(self, value: int, id: int) -> None:
        _set(self, value, id)


class TeamChange(_Message):
    """``TEAMCHANGE <BLUE|RED> <n>``: player ``id`` is now on ``team``."""
    __slots__ = __match_args__ = ("team", "id")
    team: str
    id: int

    def __init__(self, team: str, id: int) -> None:
        _set(self, team, id)


class Start(_Message):
    """``START <r>``: round ``r``'s data is complete; the client now has ``move_ms`` to answer."""
    __slots__ = __match_args__ = ("round",)
    round: int

    def __init__(self, round: int) -> None:
        _set(self, round)


class Move(_Message):
    """``MOVE <DIR|NONE> <VIEW>``: the client's movement (or NONE) and new facing."""
    __slots__ = __match_args__ = ("direction", "view")
    direction: str
    view: str

    def __init__(self, direction: str, view: str) -> None:
        _set(self, direction, view)

Message = (Id | IdOkay | IdNotOkay | Ping | Connected | Disconnected | Disconnect | Map | Set | SeePlayer
           | Toxic | Life | TeamChange | Start | Move)


# --- numbers ------------------------------------------------------------------------------------------------

def format_hundredths(value: int) -> str:
    """Integer hundredths as the wire's decimal with two places: 9873 -> "98.73", 5 -> "0.05"."""
    sign = "-" if value < 0 else ""
    whole, frac = divmod(abs(value), 100)
    return f"{sign}{whole}.{frac:02d}"


_DECIMAL = re.compile(r"(-?)(?:(\d+)(?:\.(\d*))?|\.(\d+))")
"""A decimal as the wire may carry it: sign, whole part, fraction (``99.7``, ``-0.05``, ``100``, ``.5``)."""


def parse_hundredths(text: str) -> int:
    """Any decimal ("99.7", "0.05", "100") as integer hundredths, rounded half up (away from zero, as
    ``decimal.ROUND_HALF_UP``: "0.125" -> 13, "-0.125" -> -13). Raises ProtocolError."""
    match = _DECIMAL.fullmatch(text)
    if not match:
        raise ProtocolError(f"not a decimal number: {text!r}")
    sign, whole, fraction, bare_fraction = match.groups()
    digits = fraction or bare_fraction or ""
    value = int(whole or 0) * 100 + int(digits[:2].ljust(2, "0"))
    if digits[2:3] >= "5":  # the rest of the fraction is at least half a hundredth
        value += 1
    return -value if sign else value


def _int(text: str, what: str) -> int:
    if not re.fullmatch(r"-?\d{1,9}", text):
        raise ProtocolError(f"{what}: expected an integer, got {text!r}")
    return int(text)


def _nonneg(text: str, what: str) -> int:
    if not re.fullmatch(r"\d{1,9}", text):
        raise ProtocolError(f"{what}: expected a number >= 0, got {text!r}")
    return int(text)


def _coords(text: str) -> tuple[int, int]:
    match = re.fullmatch(r"(-?\d{1,9}),(-?\d{1,9})", text)
    if not match:
        raise ProtocolError(f"expected coordinates X,Y, got {text!r}")
    return int(match.group(1)), int(match.group(2))


def _view(text: str) -> str:
    if text not in DIRECTIONS:
        raise ProtocolError(f"expected a facing ({', '.join(DIRECTIONS)}), got {text!r}")
    return text


# --- encoding -----------------------------------------------------------------------------------------------

def format_message(message: Message) -> str:
    """The text of one message without its terminator, e.g. ``Set(4, 3, "NORTH")`` -> ``"SET 4,3 NORTH"``."""
    match message:
        case Id(n):
            return f"ID {n}"
        case IdOkay():
            return "ID_OKAY"
        case IdNotOkay():
            return "ID_NOT_OKAY"
        case Ping():
            return "PING"
        case Connected(n):
            return f"CONNECTED {n}"
        case Disconnected(n):
            return f"DISCONNECTED {n}"
        case Disconnect():
            return "DISCONNECT"
        case Map(path):
            return f"MAP {path}"
        case Set(x, y, view):
            return f"SET {x},{y} {view}"
        case SeePlayer(x, y, view, n):
            return f"SEE_PLAYER {x},{y} {view} {n}"
        case Toxic(x, y, value):
            return f"TOXIC {x},{y} {format_hundredths(value)}"
        case Life(value, n):
            return f"LIFE {format_hundredths(value)} {n}"
        case TeamChange(team, n):
            return f"TEAMCHANGE {team} {n}"
        case Start(r):
            return f"START {r}"
        case Move(direction, view):
            return f"MOVE {direction} {view}"
    raise TypeError(f"not a protocol message: {message!r}")


def encode(*messages: Message) -> bytes:
    """Wire bytes of *messages*, each followed by ``|``: ``encode(Move("EAST", "SOUTH_WEST"))`` ->
    ``b"MOVE EAST SOUTH_WEST|"``."""
    return b"".join(format_message(m).encode("ascii") + TERMINATOR for m in messages)


# --- decoding -----------------------------------------------------------------------------------------------

def _words(text: str) -> list[str]:
    if not text:
        raise ProtocolError("empty message")
    if "\r" in text or "\n" in text:
        raise ProtocolError(f"line breaks are not allowed in a message: {text!r}")
    words = text.split(" ")
    if any(not w for w in words):
        raise ProtocolError(f"words must be separated by exactly one space: {text!r}")
    return words


def _arity(words: list[str], n: int, form: str) -> None:
    if len(words) != n:
        raise ProtocolError(f"expected {form!r}, got {' '.join(words)!r}")


def parse_client(text: str) -> IdOkay | IdNotOkay | Move | Ping:
    """Parse one client-to-server message (without ``|``).

    Raises ProtocolError when it is malformed or not a client message."""
    words = _words(text)
    verb = words[0]
    if verb == "ID_OKAY":
        _arity(words, 1, "ID_OKAY")
        return IdOkay()
    if verb == "ID_NOT_OKAY":
        _arity(words, 1, "ID_NOT_OKAY")
        return IdNotOkay()
    if verb == "PING":
        _arity(words, 1, "PING")
        return Ping()
    if verb == "MOVE":
        _arity(words, 3, "MOVE <DIR|NONE> <VIEW>")
        if words[1] not in MOVES:
            raise ProtocolError(f"MOVE: expected a direction or NONE, got {words[1]!r}")
        return Move(words[1], _view(words[2]))
    raise ProtocolError(f"unknown command {verb[:40]!r}")


def parse_server(text: str) -> Message:
    """Parse one server-to-client message (without ``|``).

    Raises ProtocolError when it is malformed or not a server message."""
    if text.startswith("MAP "):
        path = text[4:]
        if not path or "\r" in path or "\n" in path:
            raise ProtocolError(f"MAP: expected a path, got {text!r}")
        return Map(path)
    words = _words(text)
    verb = words[0]
    if verb == "ID":
        _arity(words, 2, "ID <n>")
        return Id(_nonneg(words[1], "ID"))
    if verb in ("PING", "DISCONNECT"):
        _arity(words, 1, verb)
        return Ping() if verb == "PING" else Disconnect()
    if verb in ("CONNECTED", "DISCONNECTED"):
        _arity(words, 2, f"{verb} <n>")
        n = _nonneg(words[1], verb)
        return Connected(n) if verb == "CONNECTED" else Disconnected(n)
    if verb == "SET":
        _arity(words, 3, "SET <x,y> <VIEW>")
        x, y = _coords(words[1])
        return Set(x, y, _view(words[2]))
    if verb == "SEE_PLAYER":
        _arity(words, 4, "SEE_PLAYER <x,y> <VIEW> <n>")
        x, y = _coords(words[1])
        return SeePlayer(x, y, _view(words[2]), _nonneg(words[3], "SEE_PLAYER"))
    if verb == "TOXIC":
        _arity(words, 3, "TOXIC <x,y> <value>")
        x, y = _coords(words[1])
        return Toxic(x, y, parse_hundredths(words[2]))
    if verb == "LIFE":
        _arity(words, 3, "LIFE <value> <n>")
        return Life(parse_hundredths(words[1]), _nonneg(words[2], "LIFE"))
    if verb == "TEAMCHANGE":
        _arity(words, 3, "TEAMCHANGE <BLUE|RED> <n>")
        if words[1] not in TEAMS:
            raise ProtocolError(f"TEAMCHANGE: expected BLUE or RED, got {words[1]!r}")
        return TeamChange(words[1], _nonneg(words[2], "TEAMCHANGE"))
    if verb == "START":
        _arity(words, 2, "START <r>")
        return Start(_nonneg(words[1], "START"))
    raise ProtocolError(f"unknown command {verb[:40]!r}")


class Splitter:
    """Incremental ``|`` splitter for one byte stream (§3: messages split across and packed into reads).

    ``feed(data)`` returns the complete messages as text (ASCII; other bytes decode as Latin-1 so that the
    parser, not the splitter, rejects them). Raises :class:`MessageTooLong` as soon as a message exceeds
    *limit* bytes, even before its ``|`` arrives; the connection must then be dropped.
    """

    def __init__(self, limit: int = MAX_MESSAGE_BYTES) -> None:
        self.limit = limit
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[str]:
        self._buffer += data
        *complete, rest = bytes(self._buffer).split(TERMINATOR)
        for part in complete:
            if len(part) > self.limit:
                raise MessageTooLong(f"message of {len(part)} bytes (limit {self.limit})")
        if len(rest) > self.limit:
            raise MessageTooLong(f"more than {self.limit} bytes without '|'")
        self._buffer = bytearray(rest)
        return [part.decode("latin-1") for part in complete]

    @property
    def pending(self) -> int:
        """Bytes buffered of an incomplete message."""
        return len(self._buffer)
