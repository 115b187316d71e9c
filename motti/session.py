"""motti's one turn flow (spec/motti.md §2, §5–§7), under the X windows, the curses console, headless matches
and script mode.

A :class:`Session` owns everything between the rules and a screen: whose turn it is and who may act (the
*seats*: each front end's sources and the people at them), a computer player's thinking (in a worker thread,
motti/thinking.py) and its pacing (``--delay``), the announcements and the last turn's record
(:class:`motti.announce.Chronicle`), saving and the ``--status`` file (through :class:`common.save.Sink`: a
failure is said once, tried again at the next action, the last good file stays), the policy of a quit, a
give-up and a lost window (§2.7; a give-up that leaves nobody playing suspends the game), and the game's end.
It imports no pygame, Xlib or curses and never draws.

A front end (:class:`FrontEnd`) is a renderer plus an input source: the X windows (motti/frontend.py), the
console (motti/console.py); headless matches and script mode have none. It turns its own events into calls of
:meth:`Session.act`, :meth:`Session.command`, :meth:`Session.leave` and :meth:`Session.save_now`, and draws
from the session's state whenever :meth:`FrontEnd.draw` is called. One :class:`common.loop.Inbox` receives
every window's events, the console's commands, the computer's timer and its answers; :meth:`Session.run` is
its only consumer.
"""

from __future__ import annotations

import contextlib
import random
import shlex
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from common.cli import exit_on_signals, typed_command
from common.displays import Seat, player_string
from common.loop import Command, Inbox, Timer
from common.save import Sink, write_atomic
from motti import explain, savegame
from motti import status as status_json
from motti.announce import Chronicle, end_text, plural, who
from motti.commands import apply_command
from motti.compose import Composer
from motti.rules import Action, Event, IllegalAction, Move
from motti.thinking import SOURCE as THINKER
from motti.thinking import Thinker

if TYPE_CHECKING:
    from motti.mapfile import SavedTurn

#: How long each action of a computer player stays on screen before its next one (seconds; ``--delay``).
COMPUTER_DELAY_S = 0.4
#: How long one wait on the inbox lasts before the loop looks again (seconds; keeps Ctrl-C responsive).
POLL_S = 0.5
COMPUTER_TIMER = "computer"


class FrontEnd(Protocol):
    """What the session asks of a front end (the X windows, the console)."""

    #: The front end's screen is the terminal, whose stderr a failure line must not scribble over.
    uses_terminal: bool

    def handle(self, event: object) -> bool:
        """React to *event* when it is one of this front end's (its windows' or its commands); True then."""

    def draw(self) -> None:
        """Bring the screen up to date with the session's state."""

    def refuse(self, source: str, text: str) -> None:
        """Input from *source* was refused, for the reason *text* (beep, say it)."""

    def close(self) -> None:
        """Close every window (restore the terminal); idempotent."""

    def status_fields(self) -> dict[str, Any]:
        """This front end's fields of the ``--status`` JSON (``windows``, ``console``)."""


class Session:
    """One game's turn flow (see the module docstring) over *game*, a :class:`motti.compose.Composer`.

    *computer* holds the computer players (a mapping player -> level of :mod:`motti.levels`, or a collection
    of players at ``medium``), thinking with *rng*, each of their actions staying *computer_delay* seconds
    (``--delay``) before the next; *status* is the ``--status`` file, *save* the ``--save`` file (None: none);
    *last_turn* the last turn a resumed game's save holds (its marks are shown at once, spec §6),
    *turn_so_far* what its Attack turn under way had changed when it was saved (marked with the rest of that
    turn when it ends).
    Front ends join with :meth:`attach`. Saving (motti/savegame.py): with *save*, the game is written after
    every action that changed it (with *every_action* false, as in headless matches: after every turn, and
    the status file too) and when :meth:`run` ends (quit, last window closed, Ctrl-C, SIGTERM,
    SIGHUP); a give-up that leaves no person playing suspends the game, unless it plays on watched (an
    observer's window): the file keeps the state before that defeat, so that ``motti FILE`` resumes it.
    The last person closing the last window with ``--save`` suspends the game instead of giving it up.

    A tip (``t``, :meth:`give_tip`) is the ``medium`` player's choice for the player in turn, shown as the
    crosses and, on the seat that asked, as its note (:meth:`note_for`); the others are told
    ``P1 asked for a tip``. A second ``t``, or choosing another action, puts it away: the selection before
    it comes back.

    A person's Attack without a cross (which would waste an attack and rule out Defend and Guerilla for the
    turn) is refused (motti.explain.NO_CROSS, naming the pass key), unless the player has no cell to cross
    for any action still possible: then the turn passes, saying so (spec §2.2 passing). Why a step was
    refused is the message until something else is said or another action is selected.
    """

    def __init__(self, game: Composer, inbox: Inbox | None = None, *, computer: Collection[int] = (),
                 rng: random.Random | None = None, status: str | None = None, save: str | None = None,
                 computer_delay: float = COMPUTER_DELAY_S, every_action: bool = True,
                 last_turn: SavedTurn | None = None, turn_so_far: SavedTurn | None = None,
                 resumed: str | None = None, resume_args: str = "",
                 resume_seats: Sequence[Seat] = ()) -> None:
        self.game = game
        #: What the command that resumes the game needs besides the file (:meth:`resume_command`).
        self.resume_args = resume_args
        #: The seats the game's player strings gave: the resume command names them again
        #: (:meth:`resume_command`).
        self.resume_seats = tuple(resume_seats)
        self.inbox = inbox if inbox is not None else Inbox()
        self.computer = frozenset(computer)
        # Saves name the computer players with their levels (``computer K LEVEL``, §3.2).
        self.levels = savegame.computer_levels(computer)
        self.rng = rng if rng is not None else random.Random()
        self.thinker = Thinker(self.inbox, self.levels, self.rng)
        self.status = status
        self.save = save
        # Where ``s`` saves without --save, and what it wrote there (motti.savegame.claim_default_path): a
        # game resumed from the default save folder starts with its file, as it was loaded.
        self._saved_to: Path | None = None
        self._saved_text: str | None = None
        self._trying: Path | None = None   # the file the last s tried to write
        if resumed is not None and savegame.in_default_folder(resumed):
            self._saved_to = Path(resumed).resolve()
            self._saved_text = _text_of(self._saved_to)
        self.computer_delay = computer_delay
        self.every_action = every_action
        self._recorded_turns = game.turns   # the turns played when the files were last written
        self.chronicle = Chronicle(game.current_player, game.attacks_left,
                                   last_turn=explain.restored_turn(last_turn, game.board),
                                   turn_so_far=explain.restored_turn(turn_so_far, game.board))
        #: The tip shown (``t``) until the game changes, and the seat that asked for it.
        self.tip: explain.Tip | None = None
        self.tip_source: str | None = None
        self._before_tip: tuple[Action, list[tuple[int, int]]] | None = None   # the selection it replaced
        # The message of a refused step, the action selected then and the message it took the place of.
        self._refused: tuple[str, Action, str | None] | None = None
        #: The last announcement (or a failure, a save's place) every front end shows; None before any.
        self.message: str | None = None if game.end is None else end_text(game.end)
        if self.message is not None:
            # A game decided before its first move (§2.9: nobody can reach anybody) says so at once.
            self.chronicle.note(self.message)
        #: How many announcements were made (a front end clears its own notes when this changes).
        self.said = 0
        self.computer_pending = False
        # One failure policy for both files (common.save.Sink): said once where the players look (and on
        # stderr unless a front end's screen is that terminal), tried again at the next chance.
        self.saves = Sink(save, "the save", "motti", show=self._show_failure)
        self.status_file = Sink(status, "--status", "motti", show=self._show_failure)
        #: The game loop has begun (:meth:`run`): from then on it saves the game on its way out.
        self.running = False
        self.save_suspended = False   # the save holds the state before a quit that ended the session
        self.saved_alive: tuple[int, ...] = ()   # the players alive in that save
        self.told_unfinished = False  # a line on stdout has said that the game stops unfinished
        #: The announcement of a window's give-up that ended the game: stdout says it when the session ends.
        self.ended_by_leaving: str | None = None
        self.told_ending = False      # stdout has said how a window's give-up ended the game
        #: Every source a person or observer is at (a window, the terminal) -> the people's players there.
        self.seats: dict[str, tuple[int, ...]] = {}
        self.front_ends: list[FrontEnd] = []

    # ---- front ends ----------------------------------------------------------------------------------------
    def attach(self, front: FrontEnd, seats: Mapping[str, Sequence[int]]) -> None:
        """Let *front* show the game and take input from its *seats* (source -> players that people play
        there; empty for an observer)."""
        self.front_ends.append(front)
        self.seats.update({source: tuple(p for p in players if p not in self.computer)
                           for source, players in seats.items()})
        if front.uses_terminal:
            self.saves.echo = self.status_file.echo = False

    def detach(self, front: FrontEnd, sources: Collection[str]) -> None:
        """*front* is gone (closed by its own input): it shows nothing more, and its *sources* leave."""
        if front in self.front_ends:
            self.front_ends.remove(front)
        for source in sources:
            self.seats.pop(source, None)

    def close(self) -> None:
        """Close every front end (windows, the console); nobody is seated afterwards."""
        fronts, self.front_ends = self.front_ends, []
        for front in fronts:
            front.close()
        self.seats.clear()

    # ---- the loop ------------------------------------------------------------------------------------------
    def run(self, *, until_end: bool = False) -> int:
        """Play until nobody is seated (or, *until_end*, until the game is over: headless matches); return the
        exit status 0. Ctrl-C propagates (KeyboardInterrupt) after every front end is closed; SIGTERM and
        SIGHUP (in the main thread) end the loop the same way with SystemExit(143) and SystemExit(129); a
        console whose thread failed raises RuntimeError. With ``--save`` the game is saved on the way out, and
        a game that Ctrl-C or a signal stopped says where."""
        interrupted = False
        with exit_on_signals():
            try:
                self.running = True
                self.changed()
                self.schedule_computer()
                while self.seats or (until_end and not self.game.is_terminal()):
                    event = self.inbox.get(POLL_S)
                    if event is not None:
                        self.handle(event)
                self._end_unfinished()
            except (KeyboardInterrupt, SystemExit):
                interrupted = True
                raise
            finally:
                self.close()
                self.write_save()
                if self.game.is_terminal():
                    self._tell_ending()   # also when Ctrl-C or a signal ended the loop
                elif interrupted and (where := self.saved_where()) is not None:
                    with contextlib.suppress(OSError):   # the terminal may be gone (SIGHUP)
                        print(f"motti: stopped; {where}", flush=True)
        return 0

    def handle(self, event: object) -> None:
        """React to one inbox event: the computer's timer and answers here, the rest by the front ends."""
        if isinstance(event, Timer) and event.name == COMPUTER_TIMER:
            self.computer_pending = False
            self.computer_move()
        elif isinstance(event, Command) and event.source == THINKER:
            self.computer_answer(event)
        else:
            for front in list(self.front_ends):
                if front.handle(event):
                    return

    def changed(self) -> None:
        """Tell every front end to draw again and rewrite the status file."""
        for front in list(self.front_ends):
            front.draw()
        self.write_status()

    def _end_unfinished(self) -> None:
        """Nobody is seated any more. While the game goes on (computer players are left) the session ends
        here, and the status file's message says so after the last announcement, as does a line on stdout
        (unless a quit at the terminal has said it there). A game that a window's give-up ended
        (:meth:`leave`) is said on stdout, its defeat and its end, unless the save keeps the game from before
        it."""
        if self.game.is_terminal():
            self._tell_ending()
            if self.save_suspended:
                # A last quit ended the game: the status says, as the console does, that the game before it
                # can be resumed.
                said = self.saved_before_quit()
                if not (self.message or "").endswith(said):
                    self.message = f"{self.message}; {said}" if self.message else said
                    self.write_status()
            return
        self.write_save()
        said = self.unfinished()
        self.message = f"{self.message} — {said}" if self.message else said
        self.write_status()
        if not self.told_unfinished:
            print(f"motti: {self.message}", flush=True)

    def _tell_ending(self) -> None:
        """Say on stdout, once, a game that a window's give-up ended (:meth:`leave`): its defeat and its end,
        and where the game from before it is saved when the save keeps that (as a quit at the terminal
        says)."""
        if self.ended_by_leaving is not None and not self.told_ending:
            self.told_ending = True
            said = self.ended_by_leaving
            if self.save_suspended:
                said = f"{said}; {self.saved_before_quit()}"
            print(f"motti: {said}", flush=True)

    def unfinished(self) -> str:
        """``nobody is left at a window or the terminal: the game stops unfinished`` and where it is saved."""
        said = "nobody is left at a window or the terminal: the game stops unfinished"
        where = self.saved_where()
        return said if where is None else f"{said}; {where}"

    def saved_where(self) -> str | None:
        """Where ``--save`` keeps the game and how to resume it (the game before the quit, when a last quit
        suspended it), or None without ``--save``."""
        if self.save_suspended:
            return self.saved_before_quit()
        if self.save is not None:
            return f"it is saved in {self.save} ({self.resume_command()} resumes it)"
        return None

    def saved_before_quit(self) -> str:
        return f"the game before the quit is saved in {self.save} ({self.resume_command()} resumes it)"

    def resume_command(self) -> str:
        """The command that resumes the ``--save`` file, as the user can type it (common.cli.typed_command),
        saving on into it, with :attr:`resume_args` (``-c`` for a game played at the terminal) and the player
        strings of :attr:`resume_seats`, each naming only its people still in the saved game: one that named
        computer players alone watches (``0:DISPLAY``), one whose people are all out is left out. A file named
        like ``generate`` or an option is written ``./FILE``."""
        path = str(self.save)
        if path == "generate" or path.startswith("-"):
            path = f"./{path}"
        save = shlex.quote(path)
        alive = self.saved_alive if self.save_suspended else self.game.alive
        strings = []
        for seat in self.resume_seats:
            people = [p for p in seat.players if p not in self.computer]
            kept = tuple(p for p in people if p in alive)
            if kept or not people:
                strings.append(player_string(Seat(kept, seat.display)))
        seats = "".join(f" {shlex.quote(string)}" for string in strings)
        return f"{typed_command('motti')} {save}{self.resume_args} --save {save}{seats}"

    # ---- people --------------------------------------------------------------------------------------------
    def in_turn(self, humans: Collection[int]) -> bool:
        """A person of *humans* is the player in turn (the game runs)."""
        return not self.game.is_terminal() and self.game.current_player in humans

    def why_not(self, humans: Collection[int]) -> str:
        """Why input at a seat of *humans* (none: an observer) does nothing now."""
        game = self.game
        if game.is_terminal():
            return "the game is over"
        if not humans:
            return "you are watching"
        if not any(p in game.alive for p in humans):
            return "you are out of the game: watching"
        player = game.current_player
        if player in self.computer:
            return f"not your turn: {who(player)} (computer) is thinking"
        return f"not your turn: waiting for {who(player)}"

    def act(self, change: Callable[[], Any], action: str | None = None, source: str | None = None, *,
            why: str | None = None) -> None:
        """Apply one change to the game from *source* (a callable returning the rules' events or None;
        *action* names what is performed, for the announcement, and *why* a pass); announce, redraw, save. A
        change the rules refuse becomes the message, and *source*'s front end is told."""
        try:
            events = change() or []
        except (IllegalAction, ValueError) as error:
            self._refuse_step(source, str(error))
            return
        self.after(events, action, why)

    def _refuse_step(self, source: str | None, text: str) -> None:
        """A step from *source* was refused because of *text*: that is the message every front end shows
        until something else is said or another action is selected (:meth:`_forget_refusal`)."""
        refused = self._refused
        replaced = refused[2] if refused is not None and self.message == refused[0] else self.message
        self._refused = (text, self.game.selected, replaced)
        self.message = text
        self.refuse(source, text)
        self.changed()

    def _forget_refusal(self) -> None:
        """Once another action is selected (a key, a toolbar box, the middle button, at any seat), a refused
        step's message goes and the message it took the place of comes back."""
        refused = self._refused
        if refused is None:
            return
        text, selected, replaced = refused
        if self.message != text:
            self._refused = None
        elif self.game.selected != selected:
            self.message, self._refused = replaced, None

    def refuse(self, source: str | None, text: str) -> None:
        """Tell the front end of *source* that its input was refused because of *text*."""
        if source is not None:
            for front in self.front_ends:
                front.refuse(source, text)

    def command(self, source: str, command: Command) -> None:
        """A front-end-neutral command (motti/commands.py) from seat *source*: ``save``, ``tip``, or a step of
        composing an action or ``pass``, which only the player in turn's seat may take (others are refused,
        saying why). An Attack without a cross is refused, or passes when there is no cell to cross (see
        the class docstring); ``select`` and ``cycle`` put a standing tip away first."""
        if command.verb == "save":
            self.save_now()
            return
        if command.verb == "tip":
            why = self.give_tip(source)
            if why is not None:
                self.refuse(source, why)
            return
        humans = self.seats.get(source, ())
        if not self.in_turn(humans):
            self.refuse(source, self.why_not(humans))
            return
        game = self.game
        if command.verb in ("select", "cycle") and self.tip is not None:
            self._put_tip_away()
        action, why = None, None
        if command.verb == "pass":
            action = "pass"
        elif command.verb == "perform":
            action = command.args[0] if command.args else game.selected.value
            if action == Action.ATTACK.value and self._attack_without_crosses():
                if any(game.legal_mask(possible).any() for possible in game.possible_actions()):
                    self._refuse_step(source, explain.NO_CROSS)
                    return
                command, action, why = Command(source, "pass"), "pass", explain.NO_CELL
        self.act(lambda: apply_command(game, command), action, source, why=why)

    def _attack_without_crosses(self) -> bool:
        """Performing Attack now would use no cross: none of the crosses is legal for Attack (the selected
        action's crosses that Attack keeps, Composer.select), while Attack is possible."""
        game = self.game
        if game.why_impossible(Action.ATTACK) is not None:
            return False
        return not any(game.is_legal_cross(x, y, Action.ATTACK) for x, y in game.crosses)

    def give_tip(self, source: str) -> str | None:
        """The ``t`` key at seat *source*: the ``medium`` player's choice for the player in turn
        (:func:`motti.explain.tip_for`) becomes the selected action and crosses, not performed; the seat shows
        it as its note (:meth:`note_for`), the others ``P1 asked for a tip``. The game does not change.
        Returns None, or why no tip is given (only a person of the player in turn may ask)."""
        humans = self.seats.get(source, ())
        if not self.in_turn(humans):
            return self.why_not(humans)
        if self.tip is not None and self.tip_source == source:
            self._put_tip_away()
            self.changed()
            return None
        if self.tip is not None:
            self._put_tip_away()
        tip = explain.tip_for(self.game.game)
        before = (self.game.selected, list(self.game.crosses))
        self.game.propose(Action.ATTACK if tip.action == "pass" else Action(tip.action), tip.cells)
        self.tip, self.tip_source, self._before_tip = tip, source, before
        self.message = explain.tip_asked(tip.player)
        self.chronicle.note(self.message)
        self.changed()
        return None

    def _put_tip_away(self) -> None:
        """Take the standing tip's crosses away: the selected action and crosses from before it come back,
        and every seat is told ``P1 put the tip away``."""
        assert self.tip is not None
        if self._before_tip is not None:
            self.game.selected, self.game.crosses = self._before_tip
        self.message = explain.tip_withdrawn(self.tip.player)
        self.chronicle.note(self.message)
        self.tip = self.tip_source = self._before_tip = None

    def note_for(self, source: str) -> str | None:
        """The line seat *source* shows of its own: the standing tip it asked for, else None."""
        return self.tip.text() if self.tip is not None and self.tip_source == source else None

    def play(self, action: Move) -> list[Event]:
        """Play one whole action (``Game.apply`` form, e.g. ``("attack", [(3, 1)])``) and announce, save and
        redraw as after any action; return the rules' events. Raises IllegalAction (nothing changes)."""
        events = self.game.apply(action)
        self.after(events, str(action[0]))
        return events

    def after(self, events: Sequence[object], action: str | None = None,
              why: str | None = None) -> str | None:
        """Announce *events* (the result of *action*; *why* a pass was made), save, redraw, write the status,
        schedule the computer. Returns the announcement."""
        if events and self.thinker.busy:
            # The game changed while a computer player was thinking (a quit, a closed window): think again.
            self.thinker.cancel()
            self.computer_pending = False
        said = self.chronicle.record(events, action, why)
        if events:
            self.tip = self.tip_source = self._before_tip = None
        if said is not None:
            self.message = said
            self.said += 1
        self._forget_refusal()
        due = self.every_action or self.game.turns != self._recorded_turns or self.game.is_terminal()
        if events and due:
            self.write_save()
        for front in list(self.front_ends):
            front.draw()
        if due:
            self.write_status()
            self._recorded_turns = self.game.turns
        self.schedule_computer()
        if self.game.is_terminal() and not self.game.alive:
            # Every player has left: nobody can play on, so the session ends and the observers' windows close
            # (the status file keeps the final message).
            self.close()
            self.write_status()
        return said

    def leave(self, source: str, cause: str = "closed", *, tell: bool = False) -> str | None:
        """Seat *source* is gone (its window closed or lost, its players quit): defeat its people's players
        still alive (§2.7, *cause* ``closed`` or ``quit``); an observer defeats nobody. With *tell* (the
        terminal is no longer the console's), stdout says what happened and where the game goes on; without,
        a defeat that ends the game is said there when the session ends, whichever window is the last to go.
        Returns the announcement. The last seat to go, when it defeats nobody while the game goes on (the
        computer players left, watched), ends the watching: the message says after how many turns."""
        humans = self.seats.pop(source, ())
        players = [p for p in humans if p in self.game.alive]
        if not players or self.game.is_terminal():
            if not self.seats and not self.game.is_terminal():
                self.message = f"watching stopped after {plural(self.game.turns, 'turn')}"
            self.changed()
            return None
        if cause == "closed" and self.save is not None and not self.seats:
            # The last person closed the last window: the game is suspended, not given up; the save holds
            # it as it is, and the session's end says so (one message, on the terminal too).
            self.message = explain.left_text(players)
            self.chronicle.note(self.message)
            self.write_save()
            self.write_status()
            return self.message
        self._suspend_if_last(players)
        said = self.after(self.game.defeat(players, cause=cause))
        if self.game.is_terminal() and not tell:
            self.ended_by_leaving = said
        if tell:
            if self.seats and not self.game.is_terminal():
                said = f"{said}; the game goes on in the windows"
            elif not self.game.is_terminal():
                said = f"{said} — {self.unfinished()}"
                self.told_unfinished = True
            elif self.save_suspended:
                said = f"{said}; {self.saved_before_quit()}"
            print(f"motti: {said}", flush=True)
        return said

    # ---- saving --------------------------------------------------------------------------------------------
    def _suspend_if_last(self, leaving: Collection[int]) -> None:
        """Before a quit/close defeat of *leaving* (their seat already gone): if no person is left playing
        afterwards and the game does not play on watched (computer players watched by an observer), save the
        game as it is now and keep that save (the session ends; ``motti FILE`` resumes it). A game that plays
        on is saved as usual, the defeat included."""
        people = any(self.seats.values())
        if bool(self.seats) and len([p for p in self.game.alive if p not in leaving]) >= 2:
            return
        if not people and self.save is not None and not self.save_suspended:
            self.write_save()
            self.save_suspended = True
            self.saved_alive = tuple(self.game.alive)

    def save_text(self, commented: bool = True) -> str:
        """The game as a save holds it (motti.savegame.save_text): the board and the state lines, the computer
        players, the last turn and the turn under way included, under the comment that names the command
        resuming it (:func:`motti.savegame.comment` with :attr:`resume_args`), or none unless *commented*
        (``--final`` writes it so)."""
        comment = savegame.comment(self.resume_args) if commented else None
        return savegame.save_text(self.game, self.levels, comment, last_turn=self.chronicle.last_turn,
                                  turn_so_far=self.chronicle.turn)

    def write_save(self) -> None:
        """Write the game to the ``--save`` file atomically (no-op without one, or once suspended)."""
        if not self.save_suspended:
            self.saves.write(lambda path: write_atomic(path, self.save_text()))

    def _show_failure(self, line: str) -> None:
        """A save or status file that could not be written: on every window and the console."""
        self.message = line if self.message is None else f"{self.message}; {line}"

    def save_now(self) -> None:
        """The ``s`` key: save to the ``--save`` file, else to the game's own file in the default save folder
        (:meth:`save_to_own_file`), and say where (or why not)."""
        if self.save_suspended:
            # The last person's quit ended the game; an observer's s keeps the game before it to resume.
            self.message = self.saved_before_quit()
        else:
            try:
                if self.save is not None:
                    write_atomic(self.save, self.save_text())
                    path, left = Path(self.save).absolute(), None
                else:
                    path, left = self.save_to_own_file()
            except OSError as error:
                target = self.save or self._trying or savegame.default_path()
                self.message = f"cannot save to {target}: {error.strerror or error}"
            else:
                self.message = f"saved to {path}"
                if left is not None:
                    self.message += f" ({left.name} no longer holds this game)"
        self.chronicle.note(self.message)
        self.said += 1   # where it is saved is news for every window, an observer's too
        self.changed()

    def save_to_own_file(self) -> tuple[Path, Path | None]:
        """Write the game to its own file in the default save folder and return that file, with the file it
        left for it (None when it kept its file): the one it wrote last (or was resumed from) while that still
        holds what it wrote (or what was loaded), else a new one (motti.savegame.claim_default_path), so that
        ``s`` never replaces another game's save, not even one saved since under a name this game used before.
        Raises OSError when it cannot be written (:attr:`_trying` is then the file it tried)."""
        text = self.save_text()
        self._trying = None
        with savegame.save_folder_lock():
            target = left = self._saved_to
            claimed = target is None or self._saved_text is None or _text_of(target) != self._saved_text
            if claimed:
                target = savegame.claim_default_path()
            else:
                left = None
            assert target is not None
            self._trying = target
            try:
                write_atomic(target, text)
            except OSError:
                if claimed:
                    target.unlink(missing_ok=True)   # the empty file that held the name
                raise
        self._saved_to, self._saved_text = target, text
        return target.absolute(), left

    # ---- computer players ----------------------------------------------------------------------------------
    def schedule_computer(self) -> None:
        """Set the computer's timer when a computer player is in turn (its action comes after the delay)."""
        game = self.game
        if not game.is_terminal() and game.current_player in self.computer and not self.computer_pending:
            self.computer_pending = True
            self.inbox.call_later(self.computer_delay, COMPUTER_TIMER)

    def computer_move(self) -> None:
        """The computer's timer: start thinking in a worker thread (motti/thinking.py); the loop goes on."""
        game = self.game
        if game.is_terminal() or game.current_player not in self.computer:
            return
        self.computer_pending = True
        self.thinker.start(game.game)

    def computer_answer(self, answer: Command) -> None:
        """The thinker's answer: play it (a stale one, made before the game changed, is dropped)."""
        action = self.thinker.take(answer)
        if action is None:
            return
        self.computer_pending = False
        self.play(action)

    # ---- status --------------------------------------------------------------------------------------------
    def status_data(self) -> dict[str, Any]:
        """The ``--status`` JSON of spec §6 as a dict (motti/status.py), with the front ends' fields."""
        fields: dict[str, Any] = {}
        for front in self.front_ends:
            fields.update(front.status_fields())
        return status_json.status_data(self.game, message=self.message, windows=fields.get("windows"),
                                       console=fields.get("console"), last_turn=self.chronicle.last_turn,
                                       tip=self.tip)

    def write_status(self) -> None:
        """Rewrite the ``--status`` file atomically (no-op without one)."""
        self.status_file.write(lambda path: status_json.write_status(path, self.status_data()))


def _text_of(path: Path) -> str | None:
    """The text *path* holds now, or None when it cannot be read as text (gone, no file, not UTF-8)."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
