"""``arena``: the command line (spec/arena.md §4).

```
arena serve MAP [--players N] [--host H] [--port P] [--seed S] [--move-ms T] [--prep-ms T] [--quiet-rounds F]
                [--replay FILE] [--round-ms T] [--linger-ms T] [0:DISPLAY ...]
arena bot [--strategy random|flee|hunt|smart] [--seed S] [HOST] [PORT]
arena play MAP [--bots N] [--seed S] [--round-ms T] ... [0:DISPLAY ...]
arena replay FILE [0:DISPLAY] [--step-ms T] [--verify]
arena tournament BOT... --maps M1,M2 --games N --players K [--jobs J] [--seed S] [--out DIR]
```
A user's mistake (bad map or toxic file, port in use, bad display string, unreadable replay) prints one line
``arena: ...`` on stderr and exits 2. SIGINT (Ctrl-C), SIGTERM or SIGHUP during a game sends every bot
``DISCONNECT``, prints and records the table so far and exits 128 + the signal's number (130, 143, 129).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import signal
import stat
import sys
import time
from collections.abc import Awaitable, Callable, Sequence

from arena import STOP_SIGNALS, STRATEGIES
from common.cli import Parser, UsageError, not_ignored, program_version, run_main, same_file

# The commands import what they need when they run: --help and --version stay fast, and so does the start of
# ``arena bot``, which a tournament runs for every seat of every game (not even logging or typing).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import logging
    import socket
    from pathlib import Path
    from typing import Any

    import pygame

    from arena import replay, web
    from arena.ratings import Rating
    from arena.rules import Arena, RoundResult
    from arena.server import ArenaServer, Settings, TableRow

STRATEGY_MIX = ("hunt", "flee", "random")


# --- spectator windows --------------------------------------------------------------------------------------

class Spectators:
    """Server observer showing the game live in X windows (one per display string; spec §4).

    Windows are opened up front (:class:`common.x11.DisplayError` for a display that cannot be used); a window
    closed or a display lost later is simply dropped: the game never waits for a display.
    """

    def __init__(self, arena: Arena, displays: Sequence[str], *, title: str) -> None:
        from arena.view import Renderer, default_size
        from common.loop import Inbox
        from common.x11 import open_windows

        self.inbox = Inbox()
        self.renderer = Renderer(arena, title=title)
        self.state: dict[str, Any] | None = None
        self.table: list[dict[str, Any]] | None = None
        self.note = ""
        """A word shown in the title band of every window (:meth:`arena.view.Renderer.render`)."""
        self.stopped: str | None = None
        """Why a signal stopped the game shown, once it is over (its title band says so)."""
        specs = [(f"spectator{index}", display, f"arena {title}") for index, display in enumerate(displays)]
        size = default_size(arena.width, arena.height)
        self.windows = list(open_windows(specs, size=size, inbox=self.inbox).values())
        self.show({"round": 0, "max_rounds": 0, "players": []})

    def poll(self, timeout: float | None = 0) -> object | None:
        """Handle window events (resize, close, lost display); return the first other event (keys), if any."""
        from common.loop import Closed, DisplayLost, Resize

        event = self.inbox.get(timeout)
        while event is not None:
            if isinstance(event, Closed | DisplayLost):
                for window in [w for w in self.windows if w.source == event.source]:
                    _log().warning("spectator window on %s gone: %s", window.display,
                                getattr(event, "reason", "closed"))
                    window.close()
                    self.windows.remove(window)
            elif isinstance(event, Resize):
                self.show()
            else:
                return event
            event = self.inbox.get(0)
        return None

    def show(self, state: dict[str, Any] | None = None, table: list[dict[str, Any]] | None = None) -> None:
        """Render *state* (or the last one) once per distinct window size and present it everywhere."""
        if state is not None:
            self.state, self.table = state, table
        if self.state is None:
            return
        frames: dict[tuple[int, int], pygame.Surface] = {}
        for window in self.windows:
            if not window.alive:  # its DisplayLost is on its way: poll() drops it and says so
                continue
            size = window.size
            if size not in frames:
                frames[size] = self.renderer.render(self.state, size, table=self.table, note=self.note,
                                                    stopped=self.stopped)
            window.present(frames[size])

    async def watch(self, server: ArenaServer, period_s: float = 0.05) -> None:
        """Run on the server's event loop for the whole game (cancel it to stop): handles resize, close and a
        lost display between rounds, and shows how many bots the server still waits for."""
        import asyncio

        shown = None
        while True:
            self.poll()
            if server.game is None and server.waiting_for != shown:
                shown = server.waiting_for
                self.show({"round": 0, "max_rounds": 0, "players": [], "waiting": shown})
            await asyncio.sleep(period_s)

    def on_start(self, server: ArenaServer) -> None:
        from arena.server import spectator_state

        self.renderer.ids = server.wire_ids
        self.show(spectator_state(server.playing.snapshot(), server.connected))

    def on_round(self, server: ArenaServer, result: RoundResult, moves: list[tuple[int, str, str]]) -> None:
        from arena.server import spectator_state

        self.poll()
        self.show(spectator_state(server.playing.snapshot(), server.connected))

    def on_end(self, server: ArenaServer, table: list[TableRow]) -> None:
        from arena.server import spectator_state

        self.poll()
        state = spectator_state(server.playing.snapshot(), server.connected)
        self.stopped = server.stopped
        self.show(state, [row.as_json() for row in table])

    def close(self) -> None:
        for window in self.windows:
            window.close()
        self.windows = []


def _observer_displays(strings: Sequence[str]) -> list[str]:
    """Display names of ``0:DISPLAY`` strings (motti's observer syntax). Raises UsageError."""
    from common.displays import PlayerStringError, parse_seats

    try:
        seats = parse_seats(list(strings), 0, default_display=None)
    except PlayerStringError as exc:
        raise UsageError(f"{exc} (arena takes spectators only: 0:DISPLAY)") from None
    return [seat.display for seat in seats if seat.display]


def _open_spectators(arena: Arena, displays: Sequence[str], title: str) -> Spectators:
    from common.x11 import DisplayError

    try:
        return Spectators(arena, displays, title=title)
    except DisplayError as exc:
        raise UsageError(str(exc)) from None


# --- shared helpers -----------------------------------------------------------------------------------------

def _log() -> logging.Logger:
    import logging

    return logging.getLogger("arena")


def _load(map_name: str, toxic: str | None, players: int) -> Arena:
    from arena.mapfile import MapError, find_map, load_arena

    try:
        arena = load_arena(find_map(map_name), toxic, players)
    except MapError as exc:
        raise UsageError(str(exc)) from None
    return arena


def _refuse_overwriting(option: str, output: str, what: str, inputs: Sequence[tuple[str, str, str]]) -> None:
    """Raise UsageError (one line) when *option*'s file *output* is one of *inputs*, ``(file, what it is,
    what writing there would do)`` triples of the files the command reads: ``--replay m.map is the map being
    played: the replay would overwrite it`` (*what*: ``the replay``), naming the input too when it is spelled
    otherwise (a link)."""
    for name, kind, harm in inputs:
        if same_file(output, name):
            spelled = "" if os.path.abspath(output) == os.path.abspath(name) else f" ({name})"
            raise UsageError(f"{option} {output} is {kind}{spelled}: {what} {harm}")


def _game_inputs(arena: Arena, toxic: str | None) -> list[tuple[str, str, str]]:
    """The files a game of *arena* reads, as :func:`_refuse_overwriting` takes them: the map, and its
    toxicity file (``--toxic`` *toxic*, else the ``.toxic`` beside the map, as
    :func:`arena.mapfile.load_arena` looks for it: while there is none, a file written there would be read
    as the map's toxicity from then on)."""
    from pathlib import Path

    if not arena.path:
        return []
    overwrite = "would overwrite it"
    inputs = [(arena.path, "the map being played", overwrite)]
    beside = Path(arena.path).with_suffix(".toxic")
    if toxic is not None:
        inputs.append((toxic, "the toxicity file of the map being played", overwrite))
    elif beside.exists():
        inputs.append((str(beside), "the toxicity file of the map being played", overwrite))
    else:
        inputs.append((str(beside), "where the map's toxicity file is looked for",
                       "would be read as its toxicity in every later game"))
    return inputs


def _replay_writer(path: str | None, arena: Arena, seed: int, toxic: str | None) -> replay.ReplayWriter:
    """The writer of the game's replay, to ``--replay`` *path* or the default path, checked before the
    server starts. Raises UsageError (one line) for a file that cannot be written or one the game reads
    (the map, its toxicity file *toxic*: :func:`_game_inputs`)."""
    from pathlib import Path

    from arena import replay

    if path:
        _refuse_overwriting("--replay", path, "the replay", _game_inputs(arena, toxic))
    target = Path(path) if path else replay.default_path(arena.name, seed)
    writer = replay.ReplayWriter(target, last=path is None)
    try:
        writer.prepare()
    except OSError as exc:
        raise UsageError(f"cannot write the replay {target}: {exc.strerror or exc}") from None
    return writer


def _scheduler(text: str) -> str:
    """An argparse type: a Dask scheduler's address, ``tcp://HOST:PORT``."""
    host, _, port = text.removeprefix("tcp://").rpartition(":")
    if not text.startswith("tcp://") or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise argparse.ArgumentTypeError(f"expected a scheduler's address tcp://HOST:PORT, got {text!r}")
    return text


def _reach_scheduler(address: str) -> None:
    """Raise UsageError (one line) when nothing listens at the scheduler's *address*, or Dask's distributed
    package is not installed: a tournament on a cluster starts only when one can be reached."""
    import importlib.util
    import socket

    if importlib.util.find_spec("distributed") is None:
        raise UsageError("--cluster needs Dask's distributed package: pip install 'motti-games[cluster]'")
    host, _, port = address.removeprefix("tcp://").rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=10).close()
    except OSError as exc:
        raise UsageError(f"--cluster {address}: cannot reach the scheduler "
                         f"({exc.strerror or exc})") from None


def _whole(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number in ``low..high`` (no upper bound when *high* is None)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < low or (high is not None and value > high):
            bounds = f"{low}..{high}" if high is not None else f">= {low}"
            raise argparse.ArgumentTypeError(f"expected a number {bounds}, got {text!r}")
        return value

    return parse


_positive = _whole(0)
_players = _whole(2, 16)
_port = _whole(0, 65535)
_ms = _whole(0, 86_400_000)
"""Milliseconds: 0 up to a day."""
VERIFY_DETAILS = 20
"""Differences ``arena replay --verify`` prints one by one (the rest are counted)."""
MIN_STEP_MS = 20
"""Shortest time per round in the replay window (a smaller ``--step-ms`` is refused)."""


def _settings(args: argparse.Namespace, players: int) -> Settings:
    from arena.server import Settings

    return Settings(players=players, host=args.host, port=args.port, seed=args.seed, move_ms=args.move_ms,
                    prep_ms=args.prep_ms, quiet_rounds=args.quiet_rounds, id_timeout_ms=args.id_timeout_ms,
                    round_pause_ms=getattr(args, "round_ms", 0))


def _add_game_options(parser: argparse.ArgumentParser, *, move_ms: int, prep_ms: int, port: int) -> None:
    parser.add_argument("map", metavar="MAP", help="a .map file or a shipped map name (office, field, ...)")
    parser.add_argument("--toxic", metavar="FILE", help="toxicity file (default: MAP's .toxic beside it)")
    parser.add_argument("--host", type=_address, default="127.0.0.1",
                        help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=_port, default=port,
                        help=f"TCP port, 0 = any free port (default {port})")
    parser.add_argument("--seed", type=_positive, default=None, help="seed of the start positions")
    parser.add_argument("--move-ms", type=_ms, default=move_ms,
                        help=f"time a bot has to answer START (default {move_ms})")
    parser.add_argument("--prep-ms", type=_ms, default=prep_ms,
                        help=f"time between MAP and round 1 (default {prep_ms})")
    parser.add_argument("--quiet-rounds", type=_whole(1), default=30, metavar="F",
                        help="rounds without a team change before a forced switch (default 30)")
    parser.add_argument("--id-timeout-ms", type=_whole(1, 86_400_000), default=10000, metavar="T",
                        help="time a new client has to answer ID with ID_OKAY (default 10000)")
    parser.add_argument("--replay", metavar="FILE",
                        help="replay file (default in $XDG_STATE_HOME/arena/replays)")
    parser.add_argument("-q", "--quiet", action="store_true", help="log warnings only")
    parser.add_argument("spectators", nargs="*", default=[], metavar="0:DISPLAY",
                        help="spectator window on DISPLAY")
    _add_web_options(parser, "the game live in a browser")


def _address(text: str) -> str:
    """``--host``, ``--web-host``: an address to listen on, not empty (an empty one listens on every
    interface, which ``0.0.0.0`` says plainly)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty address (0.0.0.0 listens on every interface)")
    return text


#: The address ``--web`` serves its page on unless ``--web-host`` says another.
WEB_HOST = "127.0.0.1"


def _add_web_options(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--web", type=_port, default=None, metavar="PORT",
                        help=f"serve {what} at http://HOST:PORT/ (0 = any free port)")
    parser.add_argument("--web-host", type=_address, default=None, metavar="H",
                        help=f"address the web page is served on, with --web (default {WEB_HOST})")


def _may_share(host: str, other: str) -> bool:
    """Whether listening on *host* and on *other* could want the same address: unless both are two different
    IP addresses, neither a wildcard (``0.0.0.0``, ``::``), a port on one is taken on the other."""
    import ipaddress

    def plain(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
        address = ipaddress.ip_address(text)
        mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
        return mapped or address  # ::ffff:127.0.0.1 is 127.0.0.1

    try:
        one, two = plain(host), plain(other)
    except ValueError:
        return True
    return one == two or one.is_unspecified or two.is_unspecified


def _web_socket(args: argparse.Namespace) -> socket.socket | None:
    """The listening socket of ``--web`` (None without it). Raises UsageError (port in use, bad host, the
    game's own ``--port``)."""
    from arena import web

    if args.web is None:
        if args.web_host is not None:
            raise UsageError("--web-host is the address of --web's page: give --web PORT too")
        return None
    host = args.web_host or WEB_HOST
    if args.web and args.web == getattr(args, "port", None) and _may_share(args.host, host):
        raise UsageError(f"--web {args.web} is the game's --port {args.port}: give the web page a port of "
                         f"its own (0: any free port)")
    try:
        return web.listen(host, args.web)
    except (OSError, UnicodeError) as exc:
        errno = getattr(exc, "errno", None) or 0
        reason = os.strerror(errno) if errno > 0 else getattr(exc, "strerror", None) or str(exc)
        raise UsageError(f"--web: cannot listen on {host}:{args.web}: {reason}") from None


def _add_limit_options(parser: argparse.ArgumentParser) -> None:
    """``--bot-memory MB --bot-cpu S --bot-files N --bot-fsize MB --bot-procs N``: the bounds of every bot
    the command starts (:class:`arena.limits.BotLimits`; its defaults, kept here too so that ``--help``
    need not import it)."""
    limits = parser.add_argument_group("bounds of each bot")
    limits.add_argument("--bot-memory", type=_whole(16, 1 << 20), default=1024, metavar="MB",
                        help="data segment (RLIMIT_DATA) in MiB (default 1024)")
    limits.add_argument("--bot-cpu", type=_whole(1, 86_400), default=600, metavar="S",
                        help="CPU seconds per game (default 600)")
    limits.add_argument("--bot-files", type=_whole(16, 1 << 20), default=256, metavar="N",
                        help="open files (default 256)")
    limits.add_argument("--bot-fsize", type=_whole(1, 1 << 20), default=64, metavar="MB",
                        help="size of any file it writes, in MiB (default 64)")
    limits.add_argument("--bot-procs", type=_whole(2, 1 << 16), default=256, metavar="N",
                        help="processes and threads together (default 256)")


def _limits(args: argparse.Namespace) -> Any:
    from arena.limits import BotLimits

    return BotLimits(args.bot_memory, args.bot_cpu, args.bot_files, args.bot_fsize, args.bot_procs)


def _add_watch_options(parser: argparse.ArgumentParser, *, round_ms: int, linger_ms: int) -> None:
    parser.add_argument("--round-ms", type=_ms, default=round_ms,
                        help=f"pause after each round's moves, to watch (default {round_ms})")
    parser.add_argument("--linger-ms", type=_ms, default=linger_ms,
                        help=f"keep the spectator windows after the game (until q or closed; "
                             f"default {linger_ms})")


class _Version(argparse.Action):
    """``--version``: reads the package metadata only when asked (it is slow to import)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help=str(kwargs.get("help", "")))

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        print(f"arena {program_version()}")
        parser.exit()


def _cores() -> int:
    """The cores this process may run on (``taskset``, a container's CPU set), not all the machine's."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def _parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The top-level parser and one parser per command (parsed with intermixed positionals)."""
    parser = Parser(prog="arena",
                                     description="The Right2Live bot arena: server, bots, replays.")
    parser.add_argument("--version", action=_Version, help="show the version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = sub.add_parser("serve", help="run one game for N bots",
                           description="Wait for N bots, play one game.")
    _add_game_options(serve, move_ms=5000, prep_ms=5000, port=15000)
    serve.add_argument("--players", type=_players, default=4, help="bots to wait for, 2..16 (default 4)")
    _add_watch_options(serve, round_ms=0, linger_ms=0)

    play = sub.add_parser("play", help="server + example bots + a spectator window",
                          description="A server, N example bots and a spectator window on $DISPLAY.")
    _add_game_options(play, move_ms=1000, prep_ms=300, port=0)
    play.add_argument("--bots", type=_players, default=6, help="number of example bots, 2..16 (default 6)")
    _add_watch_options(play, round_ms=120, linger_ms=10000)
    play.add_argument("--no-window", action="store_true", help="no spectator window on $DISPLAY")
    _add_limit_options(play)

    bot = sub.add_parser("bot", help="an example bot",
                         description="An example bot speaking the wire protocol.")
    bot.add_argument("--strategy", choices=STRATEGIES, default="hunt", help="default hunt")
    bot.add_argument("--seed", type=_positive, default=None, help="seed of the bot's random choices")
    bot.add_argument("host", nargs="?", default="127.0.0.1", metavar="HOST")
    bot.add_argument("port", nargs="?", type=_whole(1, 65535), default=15000, metavar="PORT")

    rep = sub.add_parser("replay", help="show or check a replay", description="Show a replay file.")
    rep.add_argument("file", metavar="FILE")
    rep.add_argument("spectators", nargs="*", default=[], metavar="0:DISPLAY",
                     help="window on DISPLAY (else print)")
    rep.add_argument("--step-ms", type=_whole(MIN_STEP_MS, 86_400_000), default=250,
                     help=f"time per round in the window, at least {MIN_STEP_MS} (default 250)")
    rep.add_argument("--verify", action="store_true", help="re-simulate and compare every recorded state")
    rep.add_argument("--html", metavar="OUT", help="write the replay as one web page OUT.html, then exit")

    tour = sub.add_parser("tournament", help="many games between bots, with standings",
                          description="Games on each map between bots run as processes; standings by mean "
                                      "points per map, summed over maps.")
    tour.add_argument("bots", nargs="+", metavar="BOT",
                      help=f"an example bot ({', '.join(STRATEGIES)}) or a shell command in which "
                           f"{{port}} and {{host}} are replaced")
    tour.add_argument("--maps", default="office", metavar="M1,M2",
                      help="comma-separated maps: .map files or shipped names (default office)")
    tour.add_argument("--games", type=_whole(1), default=10, metavar="N", help="games per map (default 10)")
    tour.add_argument("--players", type=_players, default=None, metavar="K",
                      help="bots per game, 2..16 (default: every bot, at most 16)")
    tour.add_argument("--jobs", type=_whole(1, 256), default=None, metavar="J",
                      help="games at once (default: the number of cores; not with --cluster)")
    tour.add_argument("--seed", type=_positive, default=None, help="seed of pairings, seats and game seeds")
    tour.add_argument("--out", metavar="DIR",
                      help="results folder (default $XDG_STATE_HOME/arena/tournaments/YYYYmmdd-HHMMSS)")
    tour.add_argument("--prep-ms", type=_ms, default=2000,
                      help="time between MAP and round 1 (default 2000)")
    tour.add_argument("--move-ms", type=_ms, default=1000,
                      help="time a bot has to answer START (default 1000)")
    tour.add_argument("--quiet-rounds", type=_whole(1), default=30, metavar="F",
                      help="rounds without a team change before a forced switch (default 30)")
    tour.add_argument("--connect-ms", type=_whole(1, 86_400_000), default=10000, metavar="T",
                      help="time a bot has to start, connect and answer ID (default 10000)")
    tour.add_argument("--ratings", metavar="FILE",
                      help="start from the bots' ratings in FILE (if it exists) and write them back updated")
    tour.add_argument("--cluster", type=_scheduler, metavar="tcp://HOST:PORT",
                      help="play the games on the Dask cluster of this scheduler (instead of --jobs here)")
    tour.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    _add_web_options(tour, "the standings and the games")
    _add_limit_options(tour)
    return parser, {"serve": serve, "play": play, "bot": bot, "replay": rep, "tournament": tour}


# --- commands -----------------------------------------------------------------------------------------------

def _print_table(table: list[TableRow], rounds: int, stopped: str | None = None) -> None:
    from arena import look
    from arena.server import format_table

    print(look.ending(rounds, stopped))
    print(format_table(table))


async def _run_server(server: ArenaServer, extra: Sequence[Callable[[], Awaitable[object]]] = (),
                      spectators: Spectators | None = None,
                      relay: web.WebRelay | None = None) -> tuple[list[TableRow], int | None]:
    """Start *server*, then the coroutines made by *extra* (so that none is made when the port is busy), and
    play the game; return the table and the number of the signal that stopped it (None: played out). The
    address of *relay*'s page is said once the game's port is bound, never for a game that cannot start."""
    import asyncio

    from arena.server import ServerError

    try:
        await server.start()
    except ServerError as exc:
        raise UsageError(str(exc)) from None
    if relay is not None:
        _log().info("watch the game at %s", relay.url)
    loop = asyncio.get_running_loop()
    caught: list[int] = []

    def stop(signum: signal.Signals) -> None:
        caught.append(signum)
        server.stop(STOP_SIGNALS[signum])

    handled = not_ignored(STOP_SIGNALS)  # under nohup a closed terminal does not stop the game
    for signum in handled:
        loop.add_signal_handler(signum, stop, signum)
    tasks = [asyncio.ensure_future(make()) for make in extra]
    watch = asyncio.ensure_future(spectators.watch(server)) if spectators else None
    try:
        return await server.run(), (caught[0] if caught else None)
    except ServerError as exc:
        raise UsageError(str(exc)) from None
    finally:
        for signum in handled:
            loop.remove_signal_handler(signum)
        if watch:
            watch.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=5)
            for task in tasks:
                task.cancel()


def _report(server: ArenaServer, table: list[TableRow], writer: replay.ReplayWriter) -> None:
    """Print the final table (or why there is none) and where the replay went."""
    if server.game is None:
        print(f"arena: {server.stopped} before the game began", file=sys.stderr)
        return
    _print_table(table, server.game.round, server.stopped)
    if writer.failed is None:
        print(f"replay: {writer.path}")
    else:
        kept = f"; the rounds before are in {writer.partial}" if writer.partial else ""
        print(f"replay: not written ({writer.failed}){kept}")


def cmd_serve(args: argparse.Namespace) -> int:
    from arena.server import ArenaServer

    arena = _load(args.map, args.toxic, args.players)
    displays = _observer_displays(args.spectators)
    writer = _replay_writer(args.replay, arena, args.seed, args.toxic)
    sock = _web_socket(args)
    spectators = _open_spectators(arena, displays, arena.name) if displays else None
    observers = [writer] + ([spectators] if spectators else [])
    server = ArenaServer(arena, _settings(args, args.players), observers)
    return _serve_and_report(server, [], spectators, writer, args.linger_ms,
                             relay=_web_relay(sock, writer, arena, args.quiet))


def cmd_play(args: argparse.Namespace) -> int:
    import tempfile
    from pathlib import Path

    from arena import tournament
    from arena.server import ArenaServer

    arena = _load(args.map, args.toxic, args.bots)
    displays = _observer_displays(args.spectators)
    local = os.environ.get("DISPLAY")
    if not displays and local and not args.no_window:
        displays = [local]
    writer = _replay_writer(args.replay, arena, args.seed, args.toxic)
    sock = _web_socket(args)
    spectators = None
    if displays:
        try:
            spectators = _open_spectators(arena, displays, arena.name)
        except UsageError as exc:
            if args.spectators:
                raise
            _log().warning("no spectator window: %s", exc)
    observers = [writer] + ([spectators] if spectators else [])
    server = ArenaServer(arena, _settings(args, args.bots), observers)
    rng = random.Random(args.seed)

    strategies: dict[int, str] = {}
    host = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    limits = _limits(args)

    async def bot(folder: Path, seat: int, strategy: str, seed: int) -> None:
        argv = [sys.executable, "-m", "arena", "bot", "--strategy", strategy, "--seed", str(seed), host,
                str(server.port)]
        where = folder / f"{seat}-{strategy}"
        limit = await tournament.run_bot_process(argv, where, limits)
        said = (where / "stdout.txt").read_text(encoding="utf-8", errors="replace").split()
        if len(said) > 1 and said[0] == "bot" and said[1].isdigit():  # "bot 3 (hunt): game over ..."
            strategies[int(said[1])] = strategy
        if limit is not None:
            _log().warning("bot %d (%s) stopped: over its limit of %s", seat, strategy, limit)

    def starter(folder: Path, seat: int, strategy: str, seed: int) -> Callable[[], Awaitable[None]]:
        return lambda: bot(folder, seat, strategy, seed)

    mix = [STRATEGY_MIX[i % len(STRATEGY_MIX)] for i in range(args.bots)]
    with tempfile.TemporaryDirectory(prefix="arena-play-") as folder:
        starters = [starter(Path(folder), k, s, rng.randrange(1 << 31)) for k, s in enumerate(mix)]
        return _serve_and_report(server, starters, spectators, writer, args.linger_ms, strategies,
                                 relay=_web_relay(sock, writer, arena, args.quiet))


def _web_relay(sock: socket.socket | None, writer: replay.ReplayWriter, arena: Arena,
               quiet: bool) -> web.WebRelay | None:
    """With ``--web``, the relay serving the game to browsers, fed every replay line *writer* makes."""
    from arena import web

    if sock is None:
        return None
    relay = web.WebRelay(sock, arena.name, quiet=quiet)
    writer.tee = relay.push
    return relay


def _serve_and_report(server: ArenaServer, bots: list[Callable[[], Awaitable[None]]],
                      spectators: Spectators | None, writer: replay.ReplayWriter, linger_ms: int,
                      strategies: dict[int, str] | None = None, *, relay: web.WebRelay | None = None) -> int:
    """Run *server* (with in-process *bots*) to the end, print the table (and each seat's strategy when the
    bots are ours), keep the spectator windows up for *linger_ms*, and close the replay and the windows.

    Returns the exit status: 0, or 128 + the signal that stopped the game.
    """
    import asyncio

    try:
        table, signum = asyncio.run(_run_server(server, bots, spectators, relay))
        _report(server, table, writer)
        if strategies is not None and server.game is not None:
            print("strategies: " + ", ".join(f"{i}={strategies[i]}" for i in sorted(strategies)))
        if spectators and spectators.windows and signum is None:
            _linger(spectators, linger_ms / 1000)
    finally:
        writer.close()
        if relay:
            relay.close()
        if spectators:
            spectators.close()
    return 0 if signum is None else 128 + signum


def _linger(spectators: Spectators, seconds: float) -> None:
    from common.loop import Key

    end = time.monotonic() + seconds
    while spectators.windows and time.monotonic() < end:
        event = spectators.poll(min(0.2, max(0.0, end - time.monotonic())))
        if isinstance(event, Key) and event.name in ("q", "Q", "Escape"):
            return


def cmd_bot(args: argparse.Namespace) -> int:
    from arena import bots

    print(bots.play_example(args.host, args.port, args.strategy, args.seed))
    return 0


def _print_replay(rep: replay.Replay) -> None:
    from fractions import Fraction

    from arena.server import TableRow

    head = rep.header
    ids = head["ids"]
    print(f"map {head['map']}, {head['players']} players, seed {head['seed']}, F {head['quiet_rounds']}, "
          f"started {head['started']}")
    for line in rep.rounds:
        notes = [f"{ids[pid]} {team} ({cause})" for pid, team, cause in line["changes"]]
        catches = [f"{ids[blue]} by {','.join(str(ids[r]) for r in reds)}" for blue, reds in line["catches"]]
        text = f"round {line['round']:>4}: {len(line['moves'])} moves"
        if notes:
            text += "; team changes: " + ", ".join(notes)
        if catches:
            text += "; caught: " + ", ".join(catches)
        print(text)
    if rep.final is None:
        print("(no final table: the game was cut off)")
        return
    rows = [TableRow(r["id"], Fraction(r["points"]), r["switch_round"], r["catches"], r["rank"])
            for r in rep.final["table"]]
    _print_table(rows, rep.final["rounds"], rep.final.get("stopped"))


def _say_cut_short(rep: replay.Replay) -> None:
    """One line on stderr when the replay's file ends inside its last line (``FILE.partial``), which the
    loader left out."""
    if rep.cut_short:
        print(f"arena: {rep.cut_short}", file=sys.stderr)


def _show_replay(rep: replay.Replay, display: str, step_s: float) -> None:
    """The replay window: one round per *step_s*; space pauses, arrows step, q quits. The last round of a
    replay with no final line (cut off) says so in the title band.

    The step timer runs only while playing and not at the end: paused or finished, the loop blocks on the
    window's events."""
    from arena import look
    from common.loop import Key, Timer

    spectators = _open_spectators(rep.arena, [display], f"{rep.header['map']} (replay)")
    _say_cut_short(rep)
    spectators.renderer.ids = rep.header["ids"]
    states = list(rep.states())
    table = rep.final["table"] if rep.final else None
    spectators.stopped = rep.final.get("stopped") if rep.final else None
    index, paused = 0, False

    def show() -> None:
        end = index == len(states) - 1
        notes = [look.CUT_OFF] if end and table is None else []
        spectators.note = "   ".join([*notes, look.PAUSED] if paused else notes)
        spectators.show(states[index][1], table if end else None)

    def schedule() -> None:
        spectators.inbox.cancel("step")
        if not paused and index < len(states) - 1:
            spectators.inbox.call_later(step_s, "step")

    try:
        show()
        schedule()
        while spectators.windows:
            event = spectators.poll(None)
            if isinstance(event, Timer):
                if not paused and index < len(states) - 1:
                    index += 1
                    show()
                schedule()
            elif isinstance(event, Key):
                if event.name in ("q", "Q", "Escape"):
                    return
                if event.name == "space":
                    paused = not paused
                    show()
                    schedule()
                elif event.name in ("Right", "Up"):
                    paused, index = True, min(index + 1, len(states) - 1)
                    show()
                    schedule()
                elif event.name in ("Left", "Down"):
                    paused, index = True, max(index - 1, 0)
                    show()
                    schedule()
    finally:
        spectators.close()


def cmd_replay(args: argparse.Namespace) -> int:
    from arena import look, replay

    try:
        rep = replay.load(args.file)
    except replay.ReplayError as exc:
        raise UsageError(str(exc)) from None
    if args.html is not None:
        return _write_html(rep, args)
    if args.verify:
        _say_cut_short(rep)
        verdict = replay.verify(rep)
        if verdict.rounds:
            played = [r for r in verdict.rounds if r > 0]
            differ = "1 round differs" if len(played) == 1 else f"{len(played)} rounds differ"
            if len(played) < len(verdict.rounds):  # round 0: the state before round 1
                differ = f"the start and {differ}" if played else "the start differs"
            shown = ", ".join(map(str, verdict.rounds[:10])) + (", ..." if len(verdict.rounds) > 10 else "")
            print(f"{args.file}: {differ} from the re-simulation: [{shown}]")
            for detail in verdict.details[:VERIFY_DETAILS]:
                print(f"{args.file}: {detail}")
            if len(verdict.details) > VERIFY_DETAILS:
                print(f"{args.file}: ... and {len(verdict.details) - VERIFY_DETAILS} more differences")
            return 1
        for problem in verdict.ending:
            print(f"{args.file}: {problem}")
        if verdict.ending:
            return 1
        stopped = rep.final.get("stopped") if rep.final is not None else None
        if stopped and not rep.rounds:  # stopped in the preparation: there is no round to speak of
            print(f"{args.file}: the start and the table so far reproduced exactly "
                  f"(the game was stopped before round 1: {stopped})")
        elif stopped:  # a signal ended the game early: checked as far as it went
            print(f"{args.file}: {look.counted(look.ALL_ROUNDS, len(rep.rounds))} and the table so far "
                  f"reproduced exactly (the game was stopped after round {len(rep.rounds)}: {stopped})")
        else:
            print(f"{args.file}: {look.counted(look.ALL_ROUNDS, len(rep.rounds))} and the final table "
                  "reproduced exactly")
        return 0
    displays = _observer_displays(args.spectators)
    if len(displays) > 1:
        raise UsageError("replay shows one window: give at most one 0:DISPLAY")
    if displays:
        _show_replay(rep, displays[0], args.step_ms / 1000)
    else:
        _say_cut_short(rep)
        _print_replay(rep)
    return 0


def _write_html(rep: replay.Replay, args: argparse.Namespace) -> int:
    """``arena replay FILE --html OUT``: the replay as one self-contained web page, and a line saying how
    many rounds it holds (a game stopped by a signal worded as its print words it,
    :func:`arena.look.ending`)."""
    from arena import look, web

    if args.verify or args.spectators:
        raise UsageError("--html writes a page: give no --verify and no 0:DISPLAY with it")
    if not args.html:
        raise UsageError("--html: expected a file name")
    _refuse_overwriting("--html", args.html, "the page",
                        [(args.file, "the replay being read", "would overwrite it")])
    _say_cut_short(rep)
    try:
        web.write_page(rep, args.html, args.step_ms)
    except OSError as exc:
        raise UsageError(f"cannot write {args.html}: {exc.strerror or exc}") from None
    if rep.final is None:
        what = f"{look.counted(look.ROUNDS, len(rep.rounds))}, {look.CUT_OFF}"
    elif stopped := rep.final.get("stopped"):  # as the print, the page and the window word it
        what = look.ending(rep.final["rounds"], stopped)
    else:
        what = look.counted(look.ROUNDS, len(rep.rounds))
    print(f"page: {args.html} ({what})")
    return 0


def _claim_results_folder(out: Path) -> list[Path]:
    """Make *out* a tournament's results folder, claimed by creating its ``games`` folder (one that already
    exists, another tournament's even while it is starting, refuses it); the folders made for it, *out* and
    those above it that did not exist, deepest first (:func:`_release_results_folder`). Raises UsageError
    (one line)."""
    try:
        if out.exists() and not out.is_dir():
            raise UsageError(f"--out {out}: not a folder (the results go in a folder of their own)")
        made = [folder for folder in (out, *out.parents) if not folder.exists()]
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # also a name too long to stat
        raise UsageError(f"cannot create the results folder {out}: {exc.strerror or exc}") from None
    earlier = [name for name in ("standings.json", "standings.csv", "games") if (out / name).exists()]
    try:
        if not earlier:
            (out / "games").mkdir()
    except FileExistsError:
        earlier = ["games"]
    except OSError as exc:
        raise UsageError(f"cannot create the results folder {out / 'games'}: {exc.strerror or exc}") from None
    if earlier:
        raise UsageError(f"the results folder {out} already holds a tournament ({', '.join(earlier)}); "
                         f"give another --out")
    return made


def _release_results_folder(out: Path, made: list[Path]) -> None:
    """Undo :func:`_claim_results_folder` for a tournament that ended before its first game (no worker
    joined the cluster): its empty ``games`` folder and the empty folders *made* for it are removed, so that
    the same ``--out`` can be given again."""
    with contextlib.suppress(OSError):
        for folder in (out / "games", *made):
            folder.rmdir()


def _results_folder(name: str | None) -> tuple[Path, list[Path]]:
    """The results folder of a tournament, claimed (:func:`_claim_results_folder`), and the folders made for
    it: ``--out`` *name*, or without it (None) ``tournaments/YYYYmmdd-HHMMSS`` beside the replays' folder,
    ``-2``, ``-3``, ... after it when another tournament started in the same second has it. Raises
    UsageError (one line)."""
    from pathlib import Path

    from arena import replay

    if name:
        return Path(name), _claim_results_folder(Path(name))
    # two tournaments started in the same second get folders of their own
    stamp = replay.replay_dir().parent / "tournaments" / time.strftime("%Y%m%d-%H%M%S")
    out, n = stamp, 1
    while True:
        try:
            return out, _claim_results_folder(out)
        except UsageError:
            if not (out / "games").is_dir():
                raise
        n += 1
        out = stamp.with_name(f"{stamp.name}-{n}")


def _ratings(name: str | None) -> tuple[dict[str, Rating], Path | None]:
    """The ratings ``--ratings FILE`` starts from (none when FILE does not exist yet) and the file's path.
    Raises UsageError (one line naming the option and the file) for an empty name, a folder that does not
    exist or is a file (the one a link leads to, when FILE is a link: its folder is written in), a file that
    is no ratings file (an empty one says so) or cannot be read, and any other OSError while it is checked
    (``--ratings xxx….json: File name too long``, ``--ratings ll: Too many levels of symbolic links``)."""
    from pathlib import Path

    from arena import ratings
    from common.save import FileFormatError

    if name is None:
        return {}, None
    if name == "":  # Path("") is the current folder
        raise UsageError("--ratings: empty file name")
    path = Path(name)
    try:
        _ratings_folder(name)
        return ratings.load(path), path
    except FileNotFoundError:  # not there yet (a dangling link too: the file is made where it leads)
        return {}, path
    except FileFormatError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"--ratings {name}: {exc.strerror or exc}") from None


def _ratings_folder(name: str) -> None:
    """Raise UsageError (one line) when the folder of ``--ratings`` *name* (the one its link leads to, when
    it is a link) does not exist (``--ratings 'gone/x.json': no such folder 'gone'``) or is a file
    (``--ratings 'b.py/x.json': 'b.py' is a file, not a folder``). Raises OSError when it cannot be told
    (a name too long, a loop of links)."""
    from pathlib import Path

    folder = Path(os.path.realpath(name)).parent
    try:
        if stat.S_ISDIR(os.stat(folder).st_mode):
            return
        problem = "{} is a file, not a folder"
    except FileNotFoundError:
        problem = "no such folder {}"
    spelled = Path(name).parent
    shown = spelled if os.path.realpath(spelled) == str(folder) else folder
    raise UsageError(f"--ratings {name!r}: {problem.format(repr(str(shown)))}")


def _check_ratings_lock(name: str | None) -> None:
    """Raise UsageError (one line naming the option, the lock file and what is wrong) when the lock of
    ``--ratings`` *name* cannot be taken (:func:`arena.ratings.check_lock`: ``--ratings league.json:
    league.json.lock: is a directory, not a regular file``); nothing to check without ``--ratings``."""
    from arena import ratings

    if not name:
        return
    try:
        ratings.check_lock(name)
    except OSError as exc:
        raise UsageError(f"--ratings {name}: {exc.strerror or exc}") from None


def _refuse_ratings_in_results(ratings: str | None, out: str | None) -> None:
    """Raise UsageError (one line) when ``--ratings`` *ratings* names what the tournament writes in ``--out``
    *out*: its standings files, by any path or link to them (:func:`_refuse_overwriting`: ``--ratings
    e14/standings.json is a file the tournament writes in --out e14: the ratings and the standings would
    overwrite each other``), the folder itself or anything in its ``games`` folder (the paths with every
    link resolved)."""
    from pathlib import Path

    if not ratings or not out:
        return
    _refuse_overwriting("--ratings", ratings, "the ratings",
                        [(os.path.join(out, name), f"a file the tournament writes in --out {out}",
                          "and the standings would overwrite each other")
                         for name in ("standings.json", "standings.csv")])
    real = Path(os.path.realpath(ratings))
    games = Path(os.path.realpath(os.path.join(out, "games")))
    if real == Path(os.path.realpath(out)):
        raise UsageError(f"--ratings {ratings} is the results folder --out {out}: the ratings need a file "
                         f"of their own")
    if real.is_relative_to(games):
        raise UsageError(f"--ratings {ratings} is in {os.path.join(out, 'games')}, where the tournament "
                         f"writes its games (--out {out}): the ratings need a file outside it")


def cmd_tournament(args: argparse.Namespace) -> int:
    from pathlib import Path

    from arena import tournament

    _refuse_ratings_in_results(args.ratings, args.out)
    prior, ratings_file = _ratings(args.ratings)
    try:
        entrants = tournament.parse_bots(args.bots, recorded={
            r.bot: name for name, r in prior.items() if r.bot is not None and r.bot not in STRATEGIES})
    except tournament.TournamentError as exc:
        raise UsageError(str(exc)) from None
    if len(entrants) < 2:
        raise UsageError("a tournament needs at least 2 bots")
    for bot in entrants:
        earned = prior[bot.name].bot if bot.name in prior else None
        if earned is not None and tournament.bot_identity(earned) != bot.identity:
            raise UsageError(f"--ratings {args.ratings}: the rating of {bot.name!r} was earned by the bot "
                             f"{earned!r}, not {bot.spec!r}; give this tournament a ratings file of its own "
                             f"(or, for the same bot moved elsewhere, remove its entry)")
    if args.cluster:
        if args.jobs is not None:
            raise UsageError(f"--jobs {args.jobs} does not apply with --cluster: the workers' threads "
                             f"(dask worker --nthreads) are how many games are played at once")
        _reach_scheduler(args.cluster)
    jobs = _cores() if args.jobs is None else args.jobs
    players = args.players or min(len(entrants), 16)
    if players > len(entrants):
        raise UsageError(f"--players {players}: only {len(entrants)} bots given")
    # a map file whose name holds a comma (my office,v2.map) is one map, not two
    names = [args.maps] if "," in args.maps and Path(args.maps).is_file() else args.maps.split(",")
    if "" in names or len(set(names)) != len(names):
        raise UsageError(f"--maps {args.maps!r}: expected distinct comma-separated maps, none empty")
    maps = {}
    for name in names:
        arena = _load(name, None, players)
        if arena.name in maps:
            raise UsageError(f"--maps: two maps are named {arena.name}")
        maps[arena.name] = arena
    # The port before the results folder: a port in use left DIR/games behind, and the same --out was then
    # refused as holding a tournament. Like every refusal at the start, it leaves nothing behind. The ratings
    # file's lock is taken once just before: doing so makes the lock file, as the first write would.
    sock = _web_socket(args)
    try:
        _check_ratings_lock(args.ratings)
        out, made = _results_folder(args.out)
    except BaseException:
        if sock is not None:
            sock.close()
        raise
    config = tournament.Config(entrants, maps, args.games, players, out, jobs=jobs, seed=args.seed,
                               prep_ms=args.prep_ms, move_ms=args.move_ms, quiet_rounds=args.quiet_rounds,
                               connect_ms=args.connect_ms, cluster=args.cluster, ratings=prior,
                               ratings_file=ratings_file, limits=_limits(args))

    def show(line: str) -> None:
        if not args.quiet:
            print(line, file=sys.stderr, flush=True)

    games = len(maps) * args.games
    at_once = f"on the cluster {args.cluster}" if args.cluster else f"{min(jobs, games)} at once"
    show(f"tournament: {len(entrants)} bots, {games} game{'s' if games != 1 else ''} of {players} on "
         f"{', '.join(maps)}, {at_once}, seed {args.seed}; results in {out}")
    site = None
    if sock is not None:
        from arena import web

        site = web.TournamentSite(sock)
        print(f"tournament: watch at {site.url}", file=sys.stderr, flush=True)
    serve = site.serve if site else None
    try:
        if args.cluster:
            from arena import cluster

            t, rows = tournament.run(config, show=show, elsewhere=cluster.play, serve=serve)
        else:
            t, rows = tournament.run(config, show=show, serve=serve)
    except tournament.TournamentError as exc:  # the cluster cannot be used after all: nothing was played
        _release_results_folder(out, made)
        raise UsageError(str(exc)) from None
    played = sum(1 for r in t.records if r.counts)
    heading = f"standings after {played} of {t.total} games"
    print(heading + (f" ({t.stopped})" if t.stopped else ""))
    print(tournament.format_standings(rows, list(maps)))
    print(f"results: {out}")
    lost = sorted((r for r in t.records if r.replay_error), key=lambda r: r.game.number)
    if lost:
        games = ", ".join(f"{r.folder.name} ({r.replay_error})" for r in lost)
        replays = "1 replay" if len(lost) == 1 else f"{len(lost)} replays"
        print(f"arena: {replays} not written: {games}", file=sys.stderr)
    for ours, there in t.ratings_names.items():
        if there != ours:
            print(f"arena: --ratings {args.ratings}: {ours} is rated there as {there}: another tournament "
                  f"wrote a bot of its own as {ours} meanwhile", file=sys.stderr)
    if t.write_error:
        print(f"arena: standings.csv and standings.json in {out} are out of date ({t.write_error}): only the "
              f"table above is complete", file=sys.stderr)
    if t.ratings_error:
        print(f"arena: --ratings {args.ratings} was not updated ({t.ratings_error}): only the table above "
              f"has the ratings after this tournament's games", file=sys.stderr)
    if t.stopped:
        return next((128 + sig for sig, why in STOP_SIGNALS.items() if why == t.stopped), 1)
    return 1 if t.write_error or t.ratings_error else 0


PARSERS = _parser()
"""The parser and each command's, built as the module loads (every command needs them)."""

COMMANDS = {"serve": cmd_serve, "play": cmd_play, "bot": cmd_bot, "replay": cmd_replay,
            "tournament": cmd_tournament}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``arena`` console script; returns the exit status (common/cli.py)."""
    return run_main("arena", lambda: _run(argv))


def _run(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser, commands = PARSERS
    if argv and argv[0] in commands:
        args = commands[argv[0]].parse_intermixed_args(argv[1:])
        args.command = argv[0]
    else:
        args = parser.parse_args(argv)
    if args.command != "bot":  # the bot logs nothing: its start spares logging's import
        import logging

        logging.basicConfig(level=logging.WARNING if getattr(args, "quiet", False) else logging.INFO,
                            format="arena: %(message)s", stream=sys.stderr)
    for option in ("replay", "out"):
        if getattr(args, option, None) == "":
            raise UsageError(f"--{option}: empty file name")
    if getattr(args, "seed", 0) is None:
        args.seed = random.SystemRandom().randrange(1 << 31)
    try:
        return COMMANDS[args.command](args)
    except KeyboardInterrupt:
        print("arena: interrupted", file=sys.stderr)
        raise


if __name__ == "__main__":
    sys.exit(main())

