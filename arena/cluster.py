"""Tournaments on a Dask cluster: ``arena tournament ... --cluster tcp://HOST:PORT`` (docs/arena.md).

Dask's distributed scheduler is the engine: the tournament is its client and submits each game as a task
(:func:`play_on_worker`); the scheduler places it on a worker thread, and when a worker is lost the game it
was playing is handed to another worker and played again from its start (the lost attempt leaves nothing in
the results: a game's files come back only with its end). A game lost again and again (Dask's
``distributed.scheduler.allowed-failures``, 3 by default) is recorded as lost and the tournament goes on.

On the worker, a game is played as on the tournament's own machine: by a game process
(:class:`arena.tournament.GameRunner`, one per worker thread, started on the worker's first game of the
tournament) with its server and bots on the worker's loopback, in a folder under the worker's local
directory; its record (seats, diagnostics) and the files of its folder (replay, ``server.log``, the bots'
output) come back to the tournament, which writes them where a game process of its own would have.

This module is imported only for ``--cluster`` (the command line checks first that Dask's ``distributed``
is installed): without it, a tournament never imports Dask.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import multiprocessing
import os
import shutil
import threading
import uuid
import warnings
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.sharedctypes import RawArray
from pathlib import Path
from typing import TYPE_CHECKING, Any

import distributed

from arena import tournament as tour

if TYPE_CHECKING:
    from arena.tournament import Config, GameRecord, Scheduled, Tournament

CONNECT_S = 20.0
"""How long the tournament tries to reach the scheduler."""
WORKERS_S = 60.0
"""How long the tournament waits for a first worker to join the scheduler."""
LOST = "lost: every worker that played it died"
"""A game's error when Dask gave it up (``KilledWorker``)."""
WATCH_S = 2.0
"""How often the tournament asks the scheduler whether a worker is left, and, once stopped, whether a game
it waits for is being played."""
NO_WORKER = "tournament: no worker is left; waiting for one to join the scheduler (Ctrl-C stops)"

Played = tuple["GameRecord", dict[str, bytes], str]
"""What a worker sends back for a game: its record, the files of its folder (path relative to the folder ->
bytes) and the worker's address."""


class ClusterError(tour.TournamentError):
    """The cluster cannot be used (scheduler out of reach, no worker): one line."""


def scheduler_lost(error: BaseException) -> bool:
    """Whether a game's task failed with *error* because the connection to the scheduler was lost."""
    return (isinstance(error, distributed.client.FutureCancelledError)
            and error.reason == "scheduler-connection-lost")


def failure(error: BaseException) -> str:
    """Why a game's task failed, in one line: ``the connection to the scheduler was lost``, else the
    exception's name and message with its lines joined (Dask's run over several, and went into the progress
    lines and the standings' JSON as they were)."""
    if scheduler_lost(error):
        return "the connection to the scheduler was lost"
    return f"{type(error).__name__}: {' '.join(str(error).split())}"


async def play(t: Tournament, queue: list[Scheduled]) -> None:
    """Play *queue* of the tournament *t* on the cluster of ``t.config.cluster``: as many games at once as
    its workers have threads, each record kept as it comes (:meth:`Tournament.hand_out`). Raises
    ClusterError when the scheduler cannot be reached or no worker joins within :data:`WORKERS_S`."""
    address = t.config.cluster
    # What goes wrong is said in the tournament's words (one line a game, the reason it stopped): Dask's
    # client would log it again, in its own words, and its reconnection to a lost scheduler, cut short by the
    # client's close, as a traceback (under the logger of the module it was cut short in).
    for name in ("distributed", "distributed.client"):  # Dask's configuration sets the client's own level
        logging.getLogger(name).setLevel(logging.CRITICAL)
    for handler in logging.getLogger().handlers:
        handler.addFilter(_not_cancelled)
    client = await _connect(t, address)
    if client is None:  # stopped (Ctrl-C) before the scheduler answered: nothing was handed out
        return
    token = uuid.uuid4().hex
    games_plugin, stop_plugin = f"arena-{token}-games", f"arena-{token}-stop"
    try:
        if not await client.nthreads():
            t.notice(f"tournament: waiting up to {WORKERS_S:g} s for a worker to join the scheduler")
        waiting = asyncio.ensure_future(client.wait_for_workers(1, timeout=WORKERS_S))
        if not await _finished(t, waiting):  # Ctrl-C ends the wait for a first worker
            return
        try:
            waiting.result()
        except TimeoutError:
            raise ClusterError(f"--cluster {address}: no worker joined the scheduler within "
                               f"{WORKERS_S:g} s") from None
        except OSError:  # Dask's client tried to reach it again for CONNECT_S
            raise ClusterError(f"--cluster {address}: the connection to the scheduler was lost while "
                               f"waiting for a worker") from None
        threads = sum((await client.nthreads()).values())
        t.slots = max(1, min(threads, len(queue)))
        with contextlib.suppress(Exception):  # without the scheduler the games fail and say so
            await client.register_plugin(Games(token), name=games_plugin)
        watching = True
        lost = False  # the scheduler: nothing more can be asked of it

        async def watch() -> None:
            loop = asyncio.get_running_loop()
            asked, alone = loop.time(), False
            while watching and not t.stopped:
                await asyncio.sleep(tour.STOP_POLL_S)
                if loop.time() - asked >= WATCH_S and not lost:
                    asked = loop.time()
                    with contextlib.suppress(Exception):
                        if (not await client.nthreads()) != alone:
                            alone = not alone
                            if alone:
                                t.notice(NO_WORKER)
            if t.stopped and not lost:  # every worker is told at once, and any that joins later (a plugin)
                with contextlib.suppress(Exception):
                    await client.register_plugin(StopGames(token, t.stopped), name=stop_plugin)

        watcher = asyncio.ensure_future(watch())

        async def one(game: Scheduled) -> GameRecord:
            # The settings go with every game, not once as data scattered to the workers: Dask keeps one
            # copy of such data (its memory manager drops the others), and when the worker holding it died
            # every game still to play was cancelled. With the shipped maps that is 140 kB a game; Dask's
            # warning about a task over 10 MB (maps of millions of cells) is not for the organiser.
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message="Sending large graph")
                future = client.submit(play_on_worker, token, t.config, game,
                                       key=f"arena-{token}-game-{game.number}", pure=False)
            nonlocal lost
            try:
                played = await _result(t, client, future)
                if played is None:  # stopped while no worker played it
                    return tour.GameRecord(game, tour.game_folder(t.config.out, game), stopped=t.stopped)
                record, files, worker = played
            except distributed.KilledWorker:
                return tour.GameRecord(game, tour.game_folder(t.config.out, game), error=LOST)
            except Exception as exc:  # the scheduler is gone, or the task failed on the worker
                lost = lost or scheduler_lost(exc)
                record = tour.GameRecord(game, tour.game_folder(t.config.out, game),
                                         error=f"lost: {failure(exc)}")
                t.stop(f"the cluster failed: {failure(exc)}")
                return record
            keep(t.config.out, record, files)
            record.worker = worker
            return record

        try:
            await t.hand_out(queue, t.slots, one)
        finally:
            watching = False
            await watcher
            for plugin in (stop_plugin, games_plugin) if t.stopped else (games_plugin,):
                if not lost:  # the workers end their games themselves (Games)
                    with contextlib.suppress(Exception):
                        await client.unregister_worker_plugin(plugin)
    finally:
        # Closed at once, a client that lost its scheduler stops trying to reconnect (for CONNECT_S, then an
        # error logged in Dask's words)
        await client.close()


async def _result(t: Tournament, client: Any, future: Any) -> Played | None:
    """The outcome of a game's task *future*; None when the tournament *t* has stopped and no worker plays
    the game (every worker is dead): the task is cancelled, where the tournament waited for a worker to join
    (Ctrl-C and SIGTERM did nothing meanwhile). A game a worker plays comes back cut short
    (:func:`stop_games`). Raises what the task raised."""
    async def outcome() -> Played:
        played: Played = await future
        return played

    task = asyncio.ensure_future(outcome())
    while not task.done():
        await asyncio.wait({task}, timeout=WATCH_S)
        if t.stopped and not task.done():
            with contextlib.suppress(Exception):
                if not any(future.key in keys for keys in (await client.processing()).values()):
                    task.cancel()
                    await client.cancel([future])
                    with contextlib.suppress(BaseException):
                        await task
                    return None
    return task.result()


def _not_cancelled(record: logging.LogRecord) -> bool:
    """A logging filter: no record of a task that was cancelled (:func:`play`)."""
    kind = record.exc_info[0] if record.exc_info else None
    return not (kind and issubclass(kind, asyncio.CancelledError))


async def _finished(t: Tournament, task: asyncio.Future[Any], seconds: float | None = None) -> bool:
    """Wait for *task* until it is done, the tournament *t* stops (polled every
    :data:`arena.tournament.STOP_POLL_S`: Ctrl-C) or *seconds* pass; a task not done by then is cancelled.
    Whether it is done."""
    loop = asyncio.get_running_loop()
    end = None if seconds is None else loop.time() + seconds
    while not task.done() and not t.stopped and (end is None or loop.time() < end):
        await asyncio.wait({task}, timeout=tour.STOP_POLL_S)
    if task.done():
        return True
    task.cancel()
    with contextlib.suppress(BaseException):
        await task
    return False


async def _connect(t: Tournament, address: str | None) -> Any:
    """A client of the scheduler at *address*, or None if the tournament *t* stopped first. Raises
    ClusterError when it cannot be reached, or does not answer as a Dask scheduler within
    :data:`CONNECT_S` (Dask's own time limit leaves out the handshake: a listener that never answers, such
    as the scheduler's dashboard port, held the tournament for ever, deaf to Ctrl-C)."""
    client: Any = distributed.Client(  # type: ignore[no-untyped-call]
        address, asynchronous=True, timeout=CONNECT_S, set_as_default=False)
    connecting = asyncio.ensure_future(client)
    failed: str | None
    if not await _finished(t, connecting, CONNECT_S):
        failed = None if t.stopped else f"the scheduler did not answer within {CONNECT_S:g} s"
    elif (error := connecting.exception()) is None:
        return client
    elif isinstance(error, distributed.comm.core.CommClosedError):  # Dask's wording names its objects
        failed = "cannot reach the scheduler (the connection was closed)"
    elif isinstance(error, (OSError, TimeoutError)):
        failed = f"cannot reach the scheduler ({error})"
    else:  # bytes that are not Dask's fail anywhere in its decoding
        failed = "what answered there is not a Dask scheduler"
    with contextlib.suppress(BaseException):  # else it closes as it is collected, with Python's warnings
        await asyncio.wait_for(client.close(), CONNECT_S)
    if failed is None:
        return None
    raise ClusterError(f"--cluster {address}: {failed}")


def keep(out: Path, record: GameRecord, files: dict[str, bytes]) -> None:
    """Write a game's *files* from a worker into its folder under the results folder *out*, where a game
    process of the tournament's machine writes them, and point *record* there; a file that cannot be written
    is the game's error (:func:`arena.tournament.game_error`: a full disk stops the tournament)."""
    record.folder = tour.game_folder(out, record.game)
    try:
        for name, data in files.items():
            target = record.folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    except OSError as exc:
        tour.game_error(record, exc, out)


# --- on a worker --------------------------------------------------------------------------------------------

_pools: dict[str, tuple[ProcessPoolExecutor, ctypes.Array[ctypes.c_char], Path]] = {}
"""This worker's game processes, stop flag and folder, by tournament token."""
_stopped: dict[str, str] = {}
"""Why each tournament that has stopped stopped (:func:`stop_games`), by token."""
_pools_lock = threading.Lock()


def _folder(worker: Any, token: str) -> Path:
    """The folder of the tournament *token*'s games in the local directory of the Dask *worker*."""
    return Path(worker.local_directory) / f"arena-{token}"


def _pool(token: str, config: Config, command_env: dict[str, str]
          ) -> tuple[ProcessPoolExecutor, ctypes.Array[ctypes.c_char], Path]:
    """The game processes of the tournament *token* on this worker (one per worker thread), started on its
    first game here, each playing in a folder of the worker's local directory; the bots given as commands
    start with the environment *command_env*. Called holding ``_pools_lock`` (:func:`_submit`)."""
    if token not in _pools:
        worker = distributed.get_worker()
        folder = _folder(worker, token)
        folder.mkdir(parents=True, exist_ok=True)
        local = tour.Config(**{**vars(config), "out": folder})
        flag = RawArray(ctypes.c_char, tour.STOP_REASON_BYTES)
        flag.value = _stopped.get(token, "").encode()[:tour.STOP_REASON_BYTES - 1]
        # A nanny starts its worker as a daemonic process, and multiprocessing refuses children to those;
        # what daemonic would do (end the children with the worker) the game processes do themselves:
        # each watches its parent and stops its game, bots and all, when the worker is gone.
        multiprocessing.current_process().daemon = False
        pool = ProcessPoolExecutor(worker.state.nthreads, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=tour.start_game_process,
                                   initargs=(local, flag, os.getpid(), command_env))
        _pools[token] = (pool, flag, folder)
    return _pools[token]


def _submit(token: str, config: Config, game: Scheduled) -> Future[GameRecord]:
    """Hand *game* of the tournament *token* to one of this worker's game processes (:func:`_pool`). Every
    Python this starts (multiprocessing's resource tracker, which a new pool's queues start when it is not
    running, and a game process, which ``submit`` starts when none is free) runs with a safe path, as on
    the tournament's machine (:func:`arena.tournament.python_safe_path`): with a worker started in a folder
    holding a ``socket.py`` (``signal.py``, ``threading.py``, ...), every game process died as it started.
    The bots given as commands start with the worker's environment as it was. The variable is set in the
    worker process's environment, which its threads share: the lock keeps the other threads' games from
    starting their game processes meanwhile, or setting it back before this one has started its own; so
    does the worker's main module (the ``dask`` command's), hidden from the game processes
    (:func:`arena.tournament.main_module_hidden`). Raises BrokenProcessPool when a game process of the pool
    has died."""
    with _pools_lock, tour.python_safe_path() as command_env, tour.main_module_hidden():
        pool, _, _ = _pool(token, config, command_env)
        return pool.submit(tour.play_in_game_process, game)


def play_on_worker(token: str, config: Config, game: Scheduled) -> Played:
    """The task of one game (run by a Dask worker thread): play *game* of the tournament *token* in one of
    this worker's game processes (cut short when the tournament stops: :func:`stop_games`), and return its
    record, the files of its folder (the folder is then removed) and the worker's address."""
    worker = distributed.get_worker()
    folder = _folder(worker, token)
    try:
        record: GameRecord = _submit(token, config, game).result()
    except BrokenProcessPool:  # a game process killed on this worker: the game cannot be played
        with _pools_lock:
            _pools.pop(token, None)
        record = tour.GameRecord(game, tour.game_folder(folder, game), error=tour.GAME_PROCESS_DIED)
        tour.clean_up_killed_game(record.folder)
    files: dict[str, bytes] = {}
    if record.folder.is_dir():
        for path in sorted(record.folder.rglob("*")):
            if path.is_file():
                with contextlib.suppress(OSError):
                    files[str(path.relative_to(record.folder))] = path.read_bytes()
        shutil.rmtree(record.folder, ignore_errors=True)
    return record, files, str(worker.address)


def stop_games(token: str, reason: str) -> None:
    """On every worker, when the tournament *token* stops for *reason*: its games under way here are cut
    short (the game processes poll the flag), and any game handed out after it stops at once."""
    with _pools_lock:
        _stopped[token] = reason
        entry = _pools.get(token)
    if entry is not None:
        entry[1].value = reason.encode()[:tour.STOP_REASON_BYTES - 1]


class Games(distributed.WorkerPlugin):
    """Registered with the scheduler for the whole of the tournament *token*: when a worker closes (its
    scheduler lost, say), or at the tournament's end, its games under way stop and its game processes go
    (:func:`stop_games`, :func:`forget`). The game processes are not daemonic, and a worker whose scheduler
    was lost waited for their games to end before its process could."""

    def __init__(self, token: str) -> None:
        self.token = token

    def teardown(self, worker: Any) -> None:
        stop_games(self.token, "the worker closed")
        forget(self.token)


class StopGames(distributed.WorkerPlugin):
    """Registered with the scheduler when the tournament *token* stops for *reason*: Dask sets it up on every
    worker, those that join later included, before they take a task (:func:`stop_games`). A worker that
    joined after the stop while the others were dead played the games left to their end, and they
    counted."""

    def __init__(self, token: str, reason: str) -> None:
        self.token = token
        self.reason = reason

    def setup(self, worker: Any) -> None:
        stop_games(self.token, self.reason)


def forget(token: str) -> None:
    """At the tournament's end or the worker's (:class:`Games`): let the game processes of tournament *token*
    go and remove its folder."""
    with _pools_lock:
        entry = _pools.pop(token, None)
        _stopped.pop(token, None)
    if entry is not None:
        pool, _, folder = entry
        pool.shutdown(wait=False, cancel_futures=True)
        shutil.rmtree(folder, ignore_errors=True)
