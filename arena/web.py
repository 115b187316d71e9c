"""The spectator in a web browser (spec/arena.md §4): a replay as one self-contained page, and the same
page live, fed over a WebSocket every round.

The page (``arena/viewer.html``) holds its script, its style, the spectator's colours and words
(:func:`arena.look.as_json`) and, for a replay, the replay's lines themselves: it loads nothing else, so it
opens from a ``file://`` URL with the network off. It draws with arena/view.py's layout; once a round is
drawn, ``<body>`` has ``data-round`` (the round number) and ``data-bots`` (JSON: per player, in index
order, ``{"id": wire id, "team": "BLUE" | "RED", "cell": [x, y]}``), and the first frame sets the
performance mark ``arena-first-frame``.

Live (``arena serve|play --web PORT``): the game server hands every replay line, as the replay writer
makes it, to a relay process through a pipe (one write a round, never waiting: the server's rounds never
wait for a viewer); the relay (``python -m arena.web``) serves the page over HTTP and the lines over a
WebSocket (library: ``websockets``) to every viewer: one that connects mid-game first gets the game so far.
A viewer that falls :data:`SLOW_BYTES` behind (stalled, or too slow a link) is dropped; its page reconnects
and starts again from the game so far. ``arena tournament --web PORT`` serves, in the tournament's own
process, the standings so far, each finished game as a replay page and each game under way live, read from
its replay file as it is written (:class:`TournamentSite`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import fcntl
import html
import http
import json
import logging
import os
import re
import socket
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena import look
from arena.rules import VECTORS, format_points
from common.save import write_atomic

if TYPE_CHECKING:
    from websockets.asyncio.server import Server, ServerConnection
    from websockets.http11 import Request, Response

    from arena.replay import Replay
    from arena.tournament import Tournament

log = logging.getLogger("arena.web")

SLOW_BYTES = 256 * 1024
"""A viewer with more than this much unsent (beyond what the kernel holds for it, :data:`SEND_BUFFER`) is
dropped: about a hundred rounds of a 16-player game."""
SEND_BUFFER = 64 * 1024
"""The kernel's send buffer of a viewer's socket (bytes): fixed, so that a stalled viewer is seen behind."""
MAX_MESSAGE = 4096
"""The largest message a viewer may send (it has nothing to say): a bigger one closes its connection."""
PIPE_BYTES = 1 << 20
"""The pipe to the relay holds this much (``F_SETPIPE_SZ``) before the server keeps lines itself."""
STEP_MS = 250
"""Time per round of a page that plays, by default (the replay window's ``--step-ms``)."""
TAIL_S = 0.2
"""How often a tournament's page looks for new lines in a game's replay file, seconds."""


# --- the page -----------------------------------------------------------------------------------------------

def _template() -> str:
    return resources.files("arena").joinpath("viewer.html").read_text(encoding="utf-8")


def _script_data(text: str) -> str:
    """*text* (JSON or JSON lines) safe inside a ``<script>`` element: every ``<`` (inside JSON strings, the
    only place it can be) as ``\\u003c``, so that no ``</script>`` or ``<!--`` ends it."""
    return text.replace("<", "\\u003c")


def page(lines: Iterable[bytes], *, title: str, step_ms: int = STEP_MS, live: bool = False) -> str:
    """The viewer page (HTML text) showing the replay *lines* (each one JSON object, spec §4; header first);
    *live*: the page also connects to its server's WebSocket (``PATH/ws``) for the lines to come; *step_ms*:
    the time per round it plays at first."""
    config = {"look": look.as_json(), "vectors": VECTORS, "title": title, "step_ms": step_ms, "live": live}
    data = b"\n".join(line.rstrip(b"\n") for line in lines).decode("utf-8")
    return (_template().replace("@TITLE@", html.escape(f"arena {title}"))
            .replace("@CONFIG@", _script_data(json.dumps(config, separators=(",", ":"))))
            .replace("@REPLAY@", _script_data(data)))


def replay_lines(rep: Replay) -> list[bytes]:
    """The lines of a loaded replay (header, rounds, final line if any), compact JSON."""
    records = [rep.header, *rep.rounds, *([rep.final] if rep.final is not None else [])]
    return [json.dumps(r, separators=(",", ":")).encode("ascii") for r in records]


def replay_page(rep: Replay, step_ms: int = STEP_MS) -> str:
    """The self-contained page of a loaded replay, titled ``MAP (replay)`` as the replay window is."""
    return page(replay_lines(rep), title=f"{rep.header['map']} (replay)", step_ms=step_ms)


def write_page(rep: Replay, out: str | os.PathLike[str], step_ms: int = STEP_MS) -> None:
    """Write :func:`replay_page` to *out* (replaced whole). Raises OSError."""
    write_atomic(Path(out), replay_page(rep, step_ms))


# --- HTTP answers -------------------------------------------------------------------------------------------

def _response(status: int, body: bytes | str, content_type: str = "text/plain; charset=utf-8") -> Response:
    import email.utils

    from websockets.datastructures import Headers
    from websockets.http11 import Response

    data = body.encode("utf-8") if isinstance(body, str) else body
    headers = Headers([("Date", email.utils.formatdate(usegmt=True)), ("Connection", "close"),
                       ("Content-Length", str(len(data))), ("Content-Type", content_type),
                       ("Cache-Control", "no-store")])
    return Response(status, http.HTTPStatus(status).phrase, headers, data)


def _html(body: str) -> Response:
    return _response(200, body, "text/html; charset=utf-8")


def _not_found(path: str) -> Response:
    return _response(404, f"not found: {path}\n")


# --- the viewers of one game --------------------------------------------------------------------------------

@dataclass
class Feed:
    """One game's replay lines as they come, and the viewers (WebSocket connections) watching it.

    A viewer that joins gets the lines so far in one message, then one message per :meth:`push` (one or
    more whole lines, ``\\n``-separated). *slow_bytes*: how far behind a viewer may fall before it is
    dropped (:data:`SLOW_BYTES`)."""

    title: str
    slow_bytes: int = SLOW_BYTES
    lines: list[bytes] = field(default_factory=list)
    viewers: set[ServerConnection] = field(default_factory=set)
    done: bool = False
    """True once the final line has come (or the game's feed ended)."""
    dropped: int = 0
    """Viewers dropped for being too slow, so far."""
    _allowance: dict[ServerConnection, int] = field(default_factory=dict)

    def push(self, data: bytes) -> None:
        """Hand whole lines (*data* ends with ``\\n``) to every viewer; drop the ones too far behind."""
        from websockets.asyncio.server import broadcast

        self.lines.append(data)
        if not self.viewers:
            return
        for viewer in list(self.viewers):
            behind = viewer.transport.get_write_buffer_size()
            allowance = self._allowance.get(viewer, 0)
            if behind > self.slow_bytes + allowance:
                self._drop(viewer, behind)
            elif allowance and behind <= self.slow_bytes:
                del self._allowance[viewer]  # it has caught up with the game so far
        broadcast(self.viewers, data, text=True)

    def _drop(self, viewer: ServerConnection, behind: int) -> None:
        self.viewers.discard(viewer)
        self._allowance.pop(viewer, None)
        self.dropped += 1
        log.info("viewer %s dropped: %d bytes behind", _peer(viewer), behind)
        viewer.transport.abort()

    def finish(self) -> None:
        self.done = True

    async def watch(self, viewer: ServerConnection) -> None:
        """Serve one viewer to the end of its connection: the game so far, then every push; whatever it
        sends is read and ignored (a message over :data:`MAX_MESSAGE` bytes closes it)."""
        from websockets.asyncio.server import broadcast
        from websockets.exceptions import ConnectionClosed

        with contextlib.suppress(OSError):
            viewer.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF,
                                                                 SEND_BUFFER)
        so_far = b"".join(self.lines)
        if so_far:
            broadcast([viewer], so_far, text=True)
            self._allowance[viewer] = len(so_far)
        self.viewers.add(viewer)
        try:
            async for _ in viewer:
                pass
        except ConnectionClosed:
            pass
        finally:
            self.viewers.discard(viewer)
            self._allowance.pop(viewer, None)


def _peer(viewer: ServerConnection) -> str:
    peer = viewer.transport.get_extra_info("peername")
    return f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else "?"


Route = Callable[["ServerConnection", str], "Response | Feed | None"]
"""A site's answer to a GET of a path: a Response, the Feed a WebSocket at that path watches, or None
(404)."""


async def serve_site(route: Route, sock: socket.socket) -> Server:
    """A websockets server on the listening *sock*: a WebSocket handshake at a path whose route is a Feed
    watches it; any other GET is answered by the route (404 when it has none). Malformed HTTP is answered
    400 by the library, a WebSocket handshake elsewhere 404."""
    from websockets.asyncio.server import serve

    async def handler(viewer: ServerConnection) -> None:
        feed = route(viewer, viewer.request.path if viewer.request else "")
        if isinstance(feed, Feed):
            await feed.watch(viewer)
        else:
            await viewer.close(1008, "no game here")

    def process_request(viewer: ServerConnection, request: Request) -> Response | None:
        path = request.path.split("?", 1)[0]
        answer = route(viewer, path)
        if isinstance(answer, Feed):
            if "upgrade" in request.headers.get("Connection", "").lower():
                return None
            return _response(426, "this address is a WebSocket: open the page instead\n")
        return answer if answer is not None else _not_found(path)

    http_log = logging.getLogger("arena.web.http")
    http_log.setLevel(logging.WARNING)  # not a line per page served
    return await serve(handler, sock=sock, process_request=process_request, max_size=MAX_MESSAGE,
                       compression=None, ping_interval=20, ping_timeout=20, close_timeout=2, logger=http_log)


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on *host*:*port* (0: any free port), made before anything starts so that a
    port in use is a one-line error. Raises OSError (the reason in ``strerror``)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.setblocking(False)
    return sock


def address(sock: socket.socket) -> str:
    """``http://HOST:PORT/`` of a listening socket."""
    host, port = sock.getsockname()[:2]
    return f"http://{f'[{host}]' if ':' in host else host}:{port}/"


# --- live: one game -----------------------------------------------------------------------------------------

def game_route(feed: Feed, step_ms: int) -> Route:
    """The site of one live game: ``/`` the viewer page, ``/ws`` its feed, ``/replay.jsonl`` the replay so
    far."""

    def route(viewer: ServerConnection, path: str) -> Response | Feed | None:
        if path in ("/", "/index.html"):
            return _html(page([], title=feed.title, step_ms=step_ms, live=True))
        if path == "/ws":
            return feed
        if path == "/replay.jsonl":
            return _response(200, b"".join(feed.lines), "application/x-ndjson")
        return None

    return route


async def relay(listen_fd: int, feed_fd: int, title: str, step_ms: int, slow_bytes: int) -> None:
    """The relay process's work: serve the game site on the inherited listening socket *listen_fd* while
    the lines come through the pipe *feed_fd*; at its end (the server closed it), hand the last lines to
    every viewer and close their connections."""
    sock = socket.socket(fileno=listen_fd)
    sock.setblocking(False)
    feed = Feed(title, slow_bytes)
    site = await serve_site(game_route(feed, step_ms), sock)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 24)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(feed_fd, "rb"))
    rest = b""
    while chunk := await reader.read(1 << 20):
        whole, _, rest = (rest + chunk).rpartition(b"\n")
        if whole:
            feed.push(whole + b"\n")
    feed.finish()
    site.close()  # each viewer's last lines go before its closing handshake
    await site.wait_closed()


def relay_main(argv: list[str] | None = None) -> int:
    """``python -m arena.web --listen-fd N --feed-fd M --title T [--step-ms T] [--slow-bytes B]``: the
    relay process of :class:`WebRelay`."""
    parser = argparse.ArgumentParser(prog="python -m arena.web")
    parser.add_argument("--listen-fd", type=int, required=True)
    parser.add_argument("--feed-fd", type=int, required=True)
    parser.add_argument("--title", required=True)
    parser.add_argument("--step-ms", type=int, default=STEP_MS)
    parser.add_argument("--slow-bytes", type=int, default=SLOW_BYTES)
    parser.add_argument("--quiet", action="store_true", help="log warnings only")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING if args.quiet else logging.INFO,
                        format="arena web: %(message)s", stream=sys.stderr)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(relay(args.listen_fd, args.feed_fd, args.title, args.step_ms, args.slow_bytes))
    return 0


class WebRelay:
    """The game server's side of ``--web``: starts the relay process on a listening socket (:func:`listen`)
    and hands it every replay line (:meth:`push`, given to :class:`arena.replay.ReplayWriter` as its tee).

    A push writes to a non-blocking pipe and never waits: when the pipe is full (the relay is stalled) the
    lines wait in this process and go with the next push; a relay that has died is one warning, and the
    game goes on."""

    def __init__(self, sock: socket.socket, title: str, step_ms: int = STEP_MS,
                 slow_bytes: int = SLOW_BYTES, *, quiet: bool = False) -> None:
        self.url = address(sock)
        read_fd, self._fd = os.pipe()
        with contextlib.suppress(OSError):  # Linux: a roomier pipe; elsewhere the default
            fcntl.fcntl(self._fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), PIPE_BYTES)
        os.set_blocking(self._fd, False)
        argv = [sys.executable, "-m", "arena.web", "--listen-fd", str(sock.fileno()),
                "--feed-fd", str(read_fd), "--title", title, "--step-ms", str(step_ms),
                "--slow-bytes", str(slow_bytes), *(["--quiet"] if quiet else [])]
        try:
            self.process = subprocess.Popen(argv, pass_fds=(sock.fileno(), read_fd), stdin=subprocess.DEVNULL)
        finally:
            os.close(read_fd)
            sock.close()
        self._pending = bytearray()
        self.failed: str | None = None

    def push(self, data: bytes) -> None:
        """Hand *data* (whole lines) to the relay without waiting."""
        if self._fd < 0:
            return
        self._pending += data
        try:
            sent = os.write(self._fd, self._pending)
        except BlockingIOError:
            return
        except OSError as exc:
            self.failed = exc.strerror or str(exc)
            log.warning("the web viewers' relay is gone (%s); the game goes on without it", self.failed)
            self._close_pipe()
            return
        del self._pending[:sent]

    def _close_pipe(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def close(self, timeout: float = 5.0) -> None:
        """Hand the relay what is left, end its feed and wait for it (at most *timeout* seconds, then it is
        terminated)."""
        if self._fd >= 0 and self._pending:
            os.set_blocking(self._fd, True)
            with contextlib.suppress(OSError):
                os.write(self._fd, self._pending)
            self._pending.clear()
        self._close_pipe()
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.terminate()
            self.process.wait()


# --- a tournament -------------------------------------------------------------------------------------------

GAME_PATH = re.compile(r"^/(game|live)/([0-9]{1,6})(/ws)?$")


class TournamentSite:
    """``arena tournament --web PORT``: in the tournament's process, on its event loop (:meth:`serve`, the
    hook :func:`arena.tournament.run` calls): ``/`` the standings so far and the games (finished ones link to
    ``/game/N``, their replay page; games under way to ``/live/N``, followed as their replay file grows),
    ``/tournament.json`` what that page shows."""

    def __init__(self, sock: socket.socket, *, step_ms: int = STEP_MS, slow_bytes: int = SLOW_BYTES) -> None:
        self.sock = sock
        self.url = address(sock)
        self.step_ms = step_ms
        self.slow_bytes = slow_bytes
        self.tournament: Tournament | None = None
        self.feeds: dict[int, Feed] = {}
        self._tails: dict[int, asyncio.Task[None]] = {}

    async def serve(self, tournament: Tournament) -> None:
        """Serve the site until cancelled (the tournament's end)."""
        self.tournament = tournament
        site = await serve_site(self.route, self.sock)
        try:
            await asyncio.Event().wait()
        finally:
            for task in self._tails.values():
                task.cancel()
            site.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(site.wait_closed(), 2)

    def state(self) -> dict[str, Any]:
        """What ``/`` shows: the standings (:meth:`arena.tournament.Standing.as_json`, and ``shown``: the
        rating's cells as the text table words them, :meth:`arena.tournament.Standing.rating_cells`), the
        finished games and the games under way."""
        from arena.tournament import game_folder

        t = self.tournament
        if t is None:
            return {"standings": [], "games": [], "under_way": [], "played": 0, "scheduled": 0}
        by_number = {g.number: g for g in t.schedule}
        games = [{"game": r.game.number, "map": r.game.map, "seed": r.game.seed, "rounds": r.rounds,
                  "counts": r.counts, "why": r.error or r.stopped,
                  "replay": (game_folder(t.config.out, r.game) / "replay.jsonl").is_file(),
                  "seats": [{"bot": t.config.bots[s.bot].name, "points": format_points(s.points),
                             "rank": s.rank, "status": s.status}
                            for s in sorted(r.seats, key=lambda s: s.rank)]}
                 for r in sorted(t.records, key=lambda r: r.game.number)]
        under_way = [{"game": n, "map": by_number[n].map, "seed": by_number[n].seed,
                      "bots": [t.config.bots[b].name for b in by_number[n].seats]}
                     for n in sorted(t.under_way) if n in by_number]
        return {"standings": [{**row.as_json(), "shown": row.rating_cells()} for row in t.standings()],
                "maps": list(t.config.maps), "games": games, "under_way": under_way,
                "played": sum(1 for r in t.records if r.counts), "scheduled": t.total, "stopped": t.stopped}

    def route(self, viewer: ServerConnection, path: str) -> Response | Feed | None:
        if path in ("/", "/index.html"):
            return _html(_tournament_template())
        if path == "/tournament.json":
            return _response(200, json.dumps(self.state()), "application/json")
        match = GAME_PATH.match(path)
        if match is None or self.tournament is None:
            return None
        kind, number, ws = match.group(1), int(match.group(2)), match.group(3)
        scheduled = {g.number: g for g in self.tournament.schedule}.get(number)
        if scheduled is None:
            return None
        from arena.tournament import game_folder

        replay_file = game_folder(self.tournament.config.out, scheduled) / "replay.jsonl"
        title = f"{scheduled.map} (game {number})"
        if kind == "game" and not ws:
            return self._replay_page(replay_file, number)
        if kind == "live":
            if not ws:
                return _html(page([], title=title, step_ms=self.step_ms, live=True))
            return self._feed(number, replay_file, title)
        return None

    def _replay_page(self, replay_file: Path, number: int) -> Response:
        from arena import replay

        if self.tournament is None or all(r.game.number != number for r in self.tournament.records):
            return _response(404, f"game {number} has not finished: follow it at /live/{number}\n")
        try:
            return _html(replay_page(replay.load(replay_file), self.step_ms))
        except replay.ReplayError as exc:
            return _response(404, f"{exc}\n")

    def _feed(self, number: int, replay_file: Path, title: str) -> Feed | None:
        if number not in self.feeds:
            self.feeds[number] = Feed(title, self.slow_bytes)
            self._tails[number] = asyncio.ensure_future(self._tail(number, replay_file))
        return self.feeds[number]

    def _over(self, number: int) -> bool:
        t = self.tournament
        return t is None or any(r.game.number == number for r in t.records) or (
            number not in t.under_way and t.stopped is not None)

    async def _tail(self, number: int, replay_file: Path) -> None:
        """Push the lines of a game's replay file as they are written, to its end."""
        feed = self.feeds[number]
        offset, rest = 0, b""
        while not feed.done:
            over = self._over(number)
            try:
                with replay_file.open("rb") as handle:
                    handle.seek(offset)
                    chunk = handle.read()
            except OSError as exc:
                if exc.errno != errno.ENOENT:
                    log.warning("cannot read %s: %s", replay_file, exc.strerror or exc)
                chunk = b""
            offset += len(chunk)
            whole, _, rest = (rest + chunk).rpartition(b"\n")
            if whole:
                feed.push(whole + b"\n")
                if b'"type":"final"' in whole.rsplit(b"\n", 1)[-1]:
                    feed.finish()
            if over and not chunk:
                feed.finish()
            await asyncio.sleep(TAIL_S)


def _tournament_template() -> str:
    return resources.files("arena").joinpath("tournament.html").read_text(encoding="utf-8")


Hook = Callable[["Tournament"], Awaitable[None]]


if __name__ == "__main__":
    sys.exit(relay_main())
