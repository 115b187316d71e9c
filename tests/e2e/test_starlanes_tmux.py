"""Star Lanes played whole in an 80x24 terminal: a real tmux pane of 80 columns and 24 rows, keys sent with
``send-keys``, the screen read with ``capture-pane``. One person (Ann) against three computers, in both rule
sets: she always takes the first candidate and never trades, and the test counts her keys (spec/starlanes.md
§8, spec/starlanes-1977.md §16; at most 2 per move). Ann's prompts are recognised by the save file (written at
every prompt) equalling a replay of the same seeded game with the rules."""

from __future__ import annotations

import json
import random
import re
import sys
import time
from pathlib import Path

import pytest
from deadline import deadline, wait_until
from tmux_pane import Pane

from starlanes import ai, messages
from starlanes.console import computer_name
from starlanes.rules import RULE_SETS, Game, Move

DEADLINE_S = deadline(20)
NAMES = ["Ann", *(computer_name(n) for n in (2, 3, 4))]


def saved(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text())["game"]
    except (OSError, ValueError, KeyError):
        return None


def wait_saved(pane: Pane, path: Path, game: Game, what: str) -> None:
    """Wait until the save file holds ``game`` (the program is at the prompt of that state)."""
    expected = game.to_dict()
    end = time.monotonic() + DEADLINE_S
    while saved(path) != expected:
        if time.monotonic() > end:
            raise AssertionError(f"{what}: the save never reached the replay; screen:\n{pane.text()}")
        time.sleep(0.03)


def whole_screen(lines: list[str]) -> bool:
    """The map, the company window and the general window are all in the 24 rows, borders closed."""
    return (len(lines) >= 24 and "needs a terminal" not in "\n".join(lines)
            and " Map " in lines[1] and " Companies " in lines[1]
            and lines[12].startswith(" └") and lines[12].rstrip().endswith("┘")
            and lines[13].startswith(" ┌") and "(Cash: $" in lines[13] and lines[13].rstrip().endswith("┐")
            and lines[23].startswith(" └") and lines[23].rstrip().endswith("┘"))


def wait_whole_screen(pane: Pane, pattern: str) -> None:
    """Wait until the screen matches *pattern* and is :func:`whole_screen` (curses may be part way through
    drawing when the pattern first shows); AssertionError with the last screen otherwise."""
    end = time.monotonic() + DEADLINE_S
    while True:
        text = pane.wait_for(pattern, DEADLINE_S)
        if whole_screen(text.split("\n")):
            return
        if time.monotonic() > end:
            raise AssertionError(f"the screen at {pattern!r} is not whole:\n{text}")
        time.sleep(0.03)


@pytest.mark.parametrize("rules", ["1995", "1977"])
def test_a_whole_game_at_80x24_takes_at_most_two_keys_per_move(tmp_path, rules):
    seed = 21
    save = tmp_path / "game.json"
    pane = Pane([sys.executable, "-m", "starlanes", "--rules", rules, "--seed", str(seed), "--computer", "3",
                 "--level", "easy", "--delay", "0", "--save", str(save)], tmp_path)
    replay = Game.new(NAMES, random.Random(seed), RULE_SETS[rules])
    per_move: list[int] = []
    try:
        setup = 0
        pane.wait_for(r"How many players \(3-4\)\?")
        pane.send("4")
        setup += 1
        pane.wait_for(r"Player 1, enter your name:")
        pane.send("Ann", "Enter")
        setup += 4
        for number in (2, 3, 4):
            pane.wait_for(rf"Player {number}, enter your name:")
            pane.wait_for(rf"Computer {number}_")
            pane.send("Enter")  # the name offered
            setup += 1
        while not replay.is_terminal():
            if replay.current != 0:
                for action in ai.choose(replay, "easy"):
                    replay.apply(action)
                continue
            wait_saved(pane, save, replay, "Ann's move prompt")
            wait_whole_screen(pane, r"Ann, enter your move")
            pane.send("1")
            keys = 1
            events = replay.apply(Move(0))
            announced = bool(messages.event_pages(events, NAMES, replay.rules.company_names))
            if replay.phase == "trade":
                if announced:
                    pane.wait_for(r"Esc ends your turn at once, keeping every holding\.")
                else:
                    wait_saved(pane, save, replay, "Ann's trading")
                    wait_whole_screen(pane, r"Trade: up/down|Type the shares to buy")
                pane.send("Escape")  # no trades: every holding kept
                keys += 1
                while replay.phase == "trade" and replay.current == 0:
                    replay.apply(replay.rules.trading.passes(replay)[0])
            elif announced:
                pane.wait_for(r"Press any key to continue")
                pane.send("Space")
                keys += 1
            per_move.append(keys)
        pane.wait_for(r"GAME OVER - Final Standings")
        rows = [re.escape(NAMES[player]) + r"\s+\$(\d+)\s+\$(\d+)\s+\$(\d+)" for player in replay.standings()]
        closing = [messages.remaining_text(replay), str(messages.end_reason(replay))]

        def whole_standings() -> str | None:
            # The box's title is drawn before its rows: wait until every row and the closing lines are there.
            text = pane.text()
            drawn = all(re.search(row, text) for row in rows) and all(line in text for line in closing)
            return text if drawn else None

        text = wait_until(whole_standings, "the final standings with every player's row", 20)
        for player, pattern in zip(replay.standings(), rows, strict=True):
            row = re.search(pattern, text)
            assert row and [int(v) for v in row.groups()] == [
                replay.stock_value(player), replay.players[player].cash, replay.net_worth(player)], text
        pane.send("Space")
        pane.wait_for(r"Net worth per turn")
        axis = re.compile(rf"turn 0 .* turn {len(replay.history) - 1}\s*$")

        def whole_chart() -> list[str] | None:
            # The chart replaces the standings box line by line: wait until its axis and legend are drawn.
            lines = pane.lines()
            legend = "\n".join(lines[22:24])
            return lines if axis.search(lines[21]) and all(name in legend for name in NAMES) else None

        wait_until(whole_chart, "the net worth chart with its axis on row 21 and every name below it", 20)
        pane.send("Space")
        status = wait_until(lambda: pane.rc.exists() and pane.rc.read_text().strip(), "the exit status", 20)
        assert status == "0"
        pane.wait_for(r"Thank you for playing Star Lanes!")  # tmux may show the last output after the status
    finally:
        pane.close()
    assert len(per_move) == 12 if rules == "1977" else len(per_move) > 10
    assert max(per_move) <= 2, per_move
    assert sum(per_move) <= 2 * len(per_move) and setup == 8
