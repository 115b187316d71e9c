"""What motti's players and a newcomer found, in the one turn flow without a display (motti/session.py with
windows that draw into memory, the console's commands, the announcements and the texts of motti/explain.py):
a pass key, an Attack without a cross refused, a save's computer seat taken back by a player string, threat
marks only where a capital can be taken, who goes on after a mid-turn reset, the last turn in the key, how a
turn ends, a tip put away, the winner's line whole at 480 px (spec/motti.md §2.2, §6, §7)."""

from __future__ import annotations

import random

import numpy as np
import pygame
import pytest
from motti_maps import T13, board, game

from common.displays import Seat
from common.loop import Click, Closed, Command, Key
from motti import cli, explain, view
from motti.compose import Composer
from motti.frontend import Frontend
from motti.mapfile import parse_map
from motti.rules import Action, Game
from motti.session import Session


class FakeWindow:
    """A window that keeps the last picture presented."""

    def __init__(self, size: tuple[int, int]) -> None:
        self.size = size
        self.display = ":99"
        self.picture: pygame.Surface | None = None

    def present(self, surface: pygame.Surface, rects=None) -> None:
        self.picture = surface.copy()

    def close(self) -> None:
        pass


def windows(g: Composer, size: tuple[int, int] | None = None) -> Frontend:
    """Player 1's window seat0 and player 2's seat1 over *g*."""
    size = size or view.default_size(g.board.width, g.board.height)
    front = Frontend(Session(g), {"seat0": (FakeWindow(size), Seat((1,), ":99")),
                                  "seat1": (FakeWindow(size), Seat((2,), ":99"))})
    front.draw()
    return front


def t13(seed: int = 3) -> Composer:
    return Composer(Game(parse_map(T13).board, random.Random(seed)))


def status(front: Frontend) -> dict:
    return front.session.status_data()


def test_p_passes_in_a_window_and_at_the_console_as_game_pass_turn_does():
    front = windows(t13())
    g, session = front.game, front.session
    front.session.handle(Key("seat1", "p"))                      # not player 2's turn: says why
    assert g.current_player == 1 and status(front)["windows"][1]["note"] == "not your turn: waiting for P1"
    session.handle(Key("seat0", "p"))
    assert (g.current_player, g.turns, g.attacks_left) == (2, 1, 6)
    assert session.message == "P1 passed"
    # After an attack the same key ends the turn with the attacks left unused.
    session.command("seat1", Command("seat1", "toggle", ((3, 0),)))
    session.command("seat1", Command("seat1", "perform"))
    assert g.current_player == 2 and g.attacks_left == 5
    session.command("seat1", Command("seat1", "pass"))
    assert (g.current_player, g.turns, g.attacks_left) == (1, 2, 6)
    assert session.message == "P2 ended the turn"


def test_the_windows_name_the_pass_key_only_where_the_player_in_turn_sits():
    front = windows(t13())
    g = front.game
    front.session.command("seat0", Command("seat0", "toggle", ((0, 0),)))
    front.session.command("seat0", Command("seat0", "perform"))
    assert g.current_player == 1 and g.attacked
    front.draw()
    size = front.views["seat0"].window.size
    band = view.info_rect(size)

    def line(surface: pygame.Surface) -> bytes:
        return pygame.image.tobytes(surface.subsurface(band), "RGB")

    seat0, seat1 = (front.views[s].window.picture for s in ("seat0", "seat1"))
    assert seat0 is not None and seat1 is not None
    assert line(seat0) == line(view.render(g, size, (1,))) != line(view.render(g, size, (2,))) == line(seat1)


def test_an_observer_window_says_it_is_watching_when_p_or_a_click_does_nothing():
    g = t13()
    size = view.default_size(g.board.width, g.board.height)
    front = Frontend(Session(g), {"seat0": (FakeWindow(size), Seat((1, 2), ":99")),
                                  "watch": (FakeWindow(size), Seat((), ":99"))})
    front.draw()
    front.session.handle(Key("watch", "p"))
    assert g.current_player == 1 and status(front)["windows"][1]["note"] == "you are watching"
    geometry = view.Viewport().geometry(size, g.board.width, g.board.height)
    front.session.handle(Click("watch", geometry.x0 + 1, geometry.y0 + 1, 1))
    assert g.crosses == [] and status(front)["windows"][1]["note"] == "you are watching"


def test_where_s_saved_shows_in_every_window_over_its_note(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    g = t13()
    size = view.default_size(g.board.width, g.board.height)
    front = Frontend(Session(g), {"seat0": (FakeWindow(size), Seat((1,), ":99")),
                                  "seat1": (FakeWindow(size), Seat((2,), ":99")),
                                  "watch": (FakeWindow(size), Seat((), ":99"))})
    front.draw()
    front.session.handle(Key("watch", "p"))
    front.session.handle(Key("seat1", "p"))
    assert [w["note"] for w in status(front)["windows"]] == [None, "not your turn: waiting for P1",
                                                              "you are watching"]
    front.session.handle(Key("watch", "s"))
    saved = f"saved to {tmp_path / 'motti' / 'saved.map'}"
    assert all(w["note"] is None and w["legend"].endswith(saved) for w in status(front)["windows"])


def test_an_attack_without_crosses_is_refused_naming_the_pass_key():
    front = windows(t13())
    g, session = front.game, front.session
    session.handle(Click("seat0", 3, 100, 100))                  # the right button, no cross
    assert (g.current_player, g.attacks_left, g.attacked) == (1, 6, False)
    assert session.message == explain.NO_CROSS
    assert "press p to pass" in explain.NO_CROSS
    assert status(front)["windows"][0]["legend"] == f"Your move, player 1 · {explain.NO_CROSS}"
    assert Action.DEFEND in g.possible_actions() and Action.GUERILLA in g.possible_actions()
    # The console's z: the same refusal; a Defend cross kept by Attack is a cross, so it attacks.
    session.command("seat0", Command("seat0", "perform", ("attack",)))
    assert g.attacks_left == 6
    session.command("seat0", Command("seat0", "select", ("defend",)))
    session.command("seat0", Command("seat0", "toggle", ((0, 1),)))
    session.command("seat0", Command("seat0", "perform", ("attack",)))
    assert g.attacks_left == 5 and g.attacked


def test_an_attack_without_crosses_passes_when_no_cell_can_be_crossed_and_says_so():
    # Player 1's land is all occupied and touches no free enemy cell: nothing can be crossed.
    g = game("AABB/AABb", {1: (0, 0), 2: (3, 0)})
    assert not any(g.legal_mask(action).any() for action in Action)
    front = windows(g)
    front.session.command("seat0", Command("seat0", "perform"))
    assert (g.current_player, g.turns) == (2, 1)
    assert front.session.message == "P1 passed: no cell to cross"


def test_an_attack_without_crosses_is_refused_while_a_guerilla_could_still_be_played():
    # No Attack cell for player 1, but (2,2) is a Guerilla cell (diagonal to its occupied (1,1)).
    g = game("AAB/AAB/BBb", {1: (0, 0), 2: (2, 0)})
    assert not g.legal_mask(Action.ATTACK).any() and g.legal_mask(Action.GUERILLA)[2, 2]
    front = windows(g)
    front.session.command("seat0", Command("seat0", "perform"))
    assert (g.current_player, g.attacks_left, front.session.message) == (1, 6, explain.NO_CROSS)


def test_threat_marks_only_where_an_open_capital_can_be_taken_now():
    # Player 2's free capital (3,1): player 1's occupied (2,1) attacks it squarely, occupied (2,0) by
    # Guerilla from the diagonal; free (2,2) cannot take it yet.
    b = board("aaAbbb/aaAbbb/aaabbb", {1: (0, 0), 2: (3, 1)})
    assert explain.threat_cells(b) == [((2, 0), (3, 1), 1), ((2, 1), (3, 1), 1)]
    b.occupied[1, 3] = True                                      # a safe capital has no threat
    assert explain.threat_cells(b) == []
    # The drawing: a triangle in (2,1) and (2,0), none in the free (2,2).
    g = game("aaAbbb/aaAbbb/aaabbb", {1: (0, 0), 2: (3, 1)})
    surface = view.render(g, (480, 264))
    geometry = view.Viewport().geometry((480, 264), 6, 3)

    def white(x: int, y: int) -> int:
        rect = view.mark_rect(geometry, x, y)
        pixels = pygame.surfarray.pixels3d(surface)[rect.left:rect.right, rect.top:rect.bottom]
        return int(np.all(pixels == 255, axis=2).sum())

    assert white(2, 1) > 20 and white(2, 0) > 20 and white(2, 2) == 0


def test_a_reset_in_the_middle_of_a_turn_says_who_goes_on_with_how_many_attacks():
    g = game("AABB/AaBB", {1: (0, 0), 2: (3, 0)}, draws=[0])          # spec §9 T16
    front = windows(g)
    front.session.command("seat0", Command("seat0", "toggle", ((1, 1),)))
    front.session.command("seat0", Command("seat0", "perform"))
    assert front.session.message == (
        "P1 attack 1 of 6 took 1,1 — reset: all land is free; P1 goes on with 5 attacks")
    assert g.current_player == 1 and g.attacks_left == 5


def test_the_information_line_says_how_the_turn_ends():
    g = t13()
    assert explain.turn_end_variants(g.game)[0] == "6 attacks left; Defend or Guerilla ends the turn"
    assert view.info_text(g, 2000).startswith("Turn 1 · 6 attacks left; Defend or Guerilla ends the turn · ")
    g.attack([(3, 0)], draw=5)                                   # a failed attack
    assert explain.turn_end_variants(g.game) == (
        "5 attacks left, then the turn ends (p ends it now)", "5 attacks left (p ends turn)", "5 att")
    assert explain.head_variants(g.game)[0] == (
        "Turn 1 · 5 attacks left, then the turn ends (p ends it now) · land P1 9, P2 9")
    # a terminal or window without the player in turn cannot pass: its line names no pass key
    assert explain.turn_end_variants(g.game, can_pass=False) == (
        "5 attacks left, then the turn ends", "5 attacks left", "5 att")
    assert explain.head_variants(g.game, can_pass=False)[0] == (
        "Turn 1 · 5 attacks left, then the turn ends · land P1 9, P2 9")
    assert view.info_text(g, 2000, can_pass=False).startswith("Turn 1 · 5 attacks left, then the turn ends ·")
    g.attack([], draw=5)
    g.game.attacks_left = 1
    assert explain.turn_end_variants(g.game)[0] == "1 attack left, then the turn ends (p ends it now)"


def test_a_second_t_or_another_action_puts_the_tip_away_and_brings_the_crosses_back():
    front = windows(t13())
    g, session = front.game, front.session
    session.command("seat0", Command("seat0", "toggle", ((0, 1),)))
    session.handle(Key("seat0", "t"))
    assert (g.selected, g.crosses) == (Action.GUERILLA, [(3, 1)])
    session.handle(Key("seat0", "t"))                          # the second t
    assert (g.selected, g.crosses) == (Action.ATTACK, [(0, 1)])
    assert session.message == "P1 put the tip away" and status(front)["tip"] is None
    assert status(front)["windows"][0]["note"] is None
    session.handle(Key("seat0", "t"))
    session.handle(Click("seat0", 2, 100, 100))                  # the middle button: the next action
    assert status(front)["tip"] is None
    assert (g.selected, g.crosses) == (Action.DEFEND, [(0, 1)])


def test_the_winners_line_is_whole_in_a_480_px_window():
    front = windows(t13(), (480, 264))
    front.session.command("seat0", Command("seat0", "select", ("guerilla",)))
    front.session.command("seat0", Command("seat0", "toggle", ((3, 1),)))
    front.session.command("seat0", Command("seat0", "perform"))
    g = front.game
    assert g.winner == 1
    assert front.session.message.endswith("P1 wins after 1 turn")
    legend = status(front)["windows"][0]["legend"]
    assert legend == "Player 1 wins after 1 turn"
    text, points = view.fit_words(legend, 480 - 200)
    assert text == legend and points == 18


@pytest.mark.parametrize(("width", "entries"), [(1600, view._KEY_ENTRIES), (640, view._KEY_ENTRIES[2:])])
def test_the_key_shows_the_last_turns_outlines(width, entries):
    """The legend's key ends with a swatch outlined solid (``last turn``) and one outlined dashed
    (``encircled``), each on a free cell of the player in turn, where the key's layout puts them; in a 640 px
    window (the classic map's) the key leaves out bright and dark to keep them."""
    assert view._KEY_ENTRIES[-2:] == ("last turn", "encircled")
    g = t13()
    size = (width, 300)
    surface = pygame.Surface(size)
    view.draw_legend(surface, g, (1,))
    band = view.legend_rect(size)
    x = band.right - 6 - view._players_width(g) - 12 - view._key_width(entries)
    squares = {}
    side = view._KEY_SWATCH
    for text in entries:
        squares[text] = pygame.Rect(x, band.centery - side // 2, side, side)
        x += view._KEY_SWATCH + 4 + view._width(text, view._KEY_POINTS) + view._KEY_GAP
    pixels = pygame.surfarray.pixels3d(surface)

    def top_edge(rect: pygame.Rect) -> list[tuple[int, int, int]]:
        return [tuple(int(v) for v in pixels[px, rect.top + 1])
                for px in range(rect.left + 2, rect.right - 2)]

    solid, dashed = squares["last turn"], squares["encircled"]
    assert set(top_edge(solid)) == {view.bright(1)}                          # a solid outline
    assert set(top_edge(dashed)) == {view.bright(1), view.dark(1)}           # dashes and gaps
    assert tuple(pixels[solid.centerx, solid.centery]) == view.dark(1)


def test_a_player_string_takes_a_saves_computer_seat_back_and_says_so(tmp_path):
    from motti.mapfile import load_map
    from motti.savegame import save_game

    path = tmp_path / "game.map"
    save_game(t13(), path, {2: "hard"})
    state = load_map(path)
    args = cli.build_parser().parse_intermixed_args([str(path), "2:localhost:9"])
    _game, computer = cli._new_game(args, state.board, state, random.Random(1))
    assert computer == {}
    assert args.save_rules == ["a player string names player 2: a person plays it, not this save's "
                               "computer 2 hard (--computer 2 keeps the computer)"]
    args = cli.build_parser().parse_intermixed_args([str(path), "2:localhost:9", "--computer", "2"])
    _game, computer = cli._new_game(args, state.board, state, random.Random(1))
    assert computer == {2: "hard"} and args.save_rules == []
    args = cli.build_parser().parse_intermixed_args([str(path)])
    _game, computer = cli._new_game(args, state.board, state, random.Random(1))
    assert computer == {2: "hard"} and args.save_rules == []


@pytest.mark.parametrize("save", [False, True])
@pytest.mark.parametrize("observer", [False, True])
@pytest.mark.parametrize(("gone", "said"), [((Closed("seat1"),), "P2 left, out"),
                                             ((Key("seat1", "q"), Key("seat1", "y")), "P2 quit, out")])
def test_a_window_given_up_that_ends_the_game_is_said_on_the_terminal_once(tmp_path, capsys, gone, said,
                                                                           observer, save):
    # The shell heard of the end only when the window given up was the last one open.
    g = t13()
    size = view.default_size(g.board.width, g.board.height)
    seats = {"seat0": (FakeWindow(size), Seat((1,), ":99")), "seat1": (FakeWindow(size), Seat((2,), ":98"))}
    closing = [Key("seat0", "q")]
    if observer:
        seats["watch"] = (FakeWindow(size), Seat((), ":98"))
        closing.append(Key("watch", "q"))
    session = Session(g, save=str(tmp_path / "game.map") if save else None)
    Frontend(session, seats)
    for event in (*gone, Key("seat0", "s"), *closing):
        session.inbox.put(event)
    assert session.run() == 0
    assert (g.winner, g.turns, session.seats) == (1, 0, {})
    assert capsys.readouterr().out == f"motti: {said} — P1 wins in turn 1\n"


@pytest.mark.parametrize("stop", [KeyboardInterrupt, lambda: SystemExit(143)])
def test_a_give_up_that_ended_the_game_is_said_when_ctrl_c_or_a_signal_ends_motti(capsys, stop):
    # P2 gives up, P1's window still shows the result; Ctrl-C (or SIGTERM) then ends motti.
    g = t13()
    size = view.default_size(g.board.width, g.board.height)
    session = Session(g)
    Frontend(session, {"seat0": (FakeWindow(size), Seat((1,), ":99")),
                       "seat1": (FakeWindow(size), Seat((2,), ":98"))})
    events = iter([Closed("seat1")])

    def get(timeout: float) -> object:
        event = next(events, None)
        if event is None:
            raise stop()
        return event

    session.inbox.get = get  # type: ignore[method-assign]
    with pytest.raises((KeyboardInterrupt, SystemExit)):
        session.run()
    assert g.winner == 1
    assert capsys.readouterr().out == "motti: P2 left, out — P1 wins in turn 1\n"


def test_a_game_won_before_its_first_turn_ended_says_turn_1_and_the_status_0_turns_played():
    front = windows(t13())
    g = front.game
    front.session.handle(Closed("seat1"))
    data = status(front)
    assert (data["winner"], data["turns"], data["turn"]) == (1, 0, None)
    assert data["message"] == "P2 left, out — P1 wins in turn 1"
    assert data["windows"][0]["legend"] == "Player 1 wins in turn 1"
    assert view.info_text(g, 640) == "Turn 1 · land P1 18"
    assert explain.head_variants(g.game)[0] == "Turn 1 · land P1 18"
    capped = game("aaAbbb/aaAbbb/aaAbbb", {1: (0, 0), 2: (3, 1)}, max_turns=5)
    capped.game.defeat([2])
    assert explain.info_variants(capped.game)[-1] == "T1/5 · 1:18"


@pytest.mark.parametrize("how", ["middle button", "toolbar box", "select", "cycle"])
def test_why_a_step_was_refused_goes_when_another_action_is_selected(how):
    front = windows(t13())
    g, session = front.game, front.session
    session.handle(Key("seat0", "p"))
    session.command("seat1", Command("seat1", "select", ("defend",)))
    session.command("seat1", Command("seat1", "toggle", ((1, 0),)))
    assert (g.selected, session.message) == (Action.DEFEND, "(1,0) is not your land (Defend takes only your "
                                                            "own cells)")
    session.command("seat1", Command("seat1", "toggle", ((0, 2),)))            # refused again: still Defend
    session.command("seat1", Command("seat1", "toggle", ((4, 1),)))            # a cross: still refused
    assert (g.selected, g.crosses, session.message) == (Action.DEFEND, [(4, 1)], "(0,2) is not your land "
                                                        "(Defend takes only your own cells)")
    box = view.box_rect(2, front.views["seat1"].window.size)
    if how == "middle button":
        session.handle(Click("seat1", 2, 100, 100))
    elif how == "toolbar box":
        session.handle(Click("seat1", 1, box.centerx, box.centery))
    else:                                                                       # the console's g, Tab
        session.command("seat1", Command("seat1", how, ("guerilla",) if how == "select" else ()))
    assert (g.selected, session.message) == (Action.GUERILLA, "P1 passed")
    assert [w["legend"] for w in status(front)["windows"]] == ["waiting for P2 · P1 passed",
                                                               "Your move, player 2 · P1 passed"]
    # The refusal of an Attack without crosses goes too; selecting the action it was about keeps it.
    session.command("seat1", Command("seat1", "select", ("attack",)))
    session.command("seat1", Command("seat1", "toggle", ((4, 1),)))
    session.command("seat1", Command("seat1", "perform"))
    assert (g.crosses, g.attacks_left, session.message) == ([], 6, explain.NO_CROSS)
    session.command("seat1", Command("seat1", "select", ("attack",)))
    assert session.message == explain.NO_CROSS
    session.command("seat1", Command("seat1", "select", ("defend",)))
    assert session.message == "P1 passed"
