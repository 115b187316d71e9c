"""Every game through the one interface (common/game.py), as OpenSpiel's games_sim_test does it.

The combinations come from the games themselves: every installed game (``game_names()``), every declared
variant (``game.game_type.variants()``: motti's capital, reset and tie rules and its two action encodings,
Star Lanes' 1995 and 1977 rules, arena's shipped maps) and every player count the game declares. One seeded
random game per combination (uniform steps, now and then the first listed action: :data:`FIRST`), checked at
every step: the step applied to a clone made before it leaves the
clone as it was, and the same step applied to that clone gives the same state (clones independent, random
generator included); a player not to move has no legal action. At a few sampled states every listed action
applies on a clone, unlisted ones are refused with the state unchanged, and ``serialize`` round-trips. At the
end: ``TERMINAL``, no legal action, ``returns()`` rank-based and within ``game_info``'s range, the game no
longer than ``max_game_length``.

The combinations at each game's default player count run in ``make test-fast``; the rest are marked slow.
"""

from __future__ import annotations

import json
import random
import re
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from common.game import (
    SIMULTANEOUS,
    TERMINAL,
    IllegalAction,
    State,
    UnknownGame,
    game_names,
    load,
    rank_returns,
)

GAMES = ("motti", "starlanes", "arena")
SAMPLES = 3
"""States per game whose every listed action is tried."""
MOTTI_TURNS = 30
"""motti's turn cap here (random games rarely end otherwise); the interface's default is 1000."""
MOTTI_SIZES = {2: (20, 15), 3: (20, 15), 4: (20, 15), 5: (30, 22), 6: (30, 22)}
"""A generated map with room for the capitals (§4: at least 8 cells apart); 40×30 above six players."""


def _sized(name: str, options: dict[str, Any]) -> dict[str, Any]:
    """``options`` with what a random test game needs: motti's cap and a map big enough for its players."""
    if name != "motti":
        return options
    width, height = MOTTI_SIZES.get(options["players"], (40, 30))
    return {"max_turns": MOTTI_TURNS, "width": width, "height": height, **options}


def _combinations() -> list[Any]:
    out = []
    for name in game_names():
        game = load(name)
        kind = game.game_type
        default = kind.parameter("players").default
        for variant in kind.variants():
            for players in range(kind.min_num_players, kind.max_num_players + 1):
                label = "-".join(map(str, [*variant.values(), f"{players}p"]))
                marks = [] if players == default else [pytest.mark.slow]
                options = {**variant, "players": players}
                out.append(pytest.param(name, options, id=f"{name}-{label}", marks=marks))
    return out


FIRST = 0.125
"""How often a random step takes the first listed action instead of a uniform one: games list the way on
first (motti's pass, Star Lanes' end of trading), so turns end, where a uniform choice among a rich player's
thousands of trade amounts trades on for tens of thousands of steps."""


def _pick(listed: Any, rng: random.Random) -> Any:
    return listed[0] if rng.random() < FIRST else listed[rng.randrange(len(listed))]


def _joint(state: State, rng: random.Random) -> Any:
    """A random step: one action of the mover, or a list of one action per player and an arrival order."""
    if state.current_player() == SIMULTANEOUS:
        order = list(range(state.num_players()))
        rng.shuffle(order)
        return [_pick(state.legal_actions(p), rng) for p in range(state.num_players())], order
    return _pick(state.legal_actions(), rng)


def _apply(state: State, step: Any) -> None:
    if isinstance(step, tuple) and len(step) == 2 and isinstance(step[0], list):
        state.apply_actions(*step)
    else:
        state.apply_action(step)


def _unlisted(listed: Any, rng: random.Random) -> list[Any]:
    """Candidate actions near the listed ones and of other kinds; the caller drops any that are listed."""
    out: list[Any] = [None, "pass", -1, 10**9, (), (10**6, 10**6, 10**6)]
    for _ in range(6):
        a = listed[rng.randrange(len(listed))]
        if isinstance(a, int):
            out.append(a + rng.choice([-1, 1]) * rng.randint(1, 10**4))
        elif isinstance(a, tuple) and a:
            i = rng.randrange(len(a))
            if isinstance(a[i], int):
                out.append((*a[:i], a[i] + rng.choice([-1, 1]) * rng.randint(1, 10**4), *a[i + 1 :]))
            out.append((*a, 0))
            out.append(a[:-1])
    return out


def _check_actions(state: State, rng: random.Random) -> None:
    """Every listed action applies on a clone; unlisted ones are refused, the state unchanged."""
    before = state.serialize()
    sim = state.current_player() == SIMULTANEOUS
    players = range(state.num_players()) if sim else [state.current_player()]
    nobody = (state.num_players(), -1)
    assert all(len(state.legal_actions(p)) == 0 for p in nobody), "a number that is no player's acts"
    for kind in ("0", 0.0):
        with pytest.raises(TypeError):
            state.legal_actions(kind)  # type: ignore[arg-type]
    assert not sim or len(state.legal_actions()) == 0, "apply_action takes an action in a simultaneous step"
    for p in players:
        listed = state.legal_actions(p) if sim else state.legal_actions()
        assert len(listed) > 0, f"player {p} has no legal action in a running game"
        with pytest.raises(TypeError, match="integer"):
            listed["0"]  # type: ignore[index]
        base = [state.legal_actions(q)[0] for q in range(state.num_players())] if sim else []
        for i in range(min(len(listed), 400)):
            a = listed[rng.randrange(len(listed))] if len(listed) > 400 else listed[i]
            assert a in listed
            c = state.clone()
            if sim:
                c.apply_actions([*base[:p], a, *base[p + 1:]])
            else:
                c.apply_action(a)
        for bad in _unlisted(listed, rng):
            try:
                if bad in listed:
                    continue
            except TypeError:
                pass
            if sim:
                refuse = partial(state.apply_actions, [*base[:p], bad, *base[p + 1:]])
            else:
                refuse = partial(state.apply_action, bad)
            with pytest.raises(IllegalAction):
                refuse()
            assert state.serialize() == before, f"refused action {bad!r} changed the state"
    assert state.serialize() == before, "playing on clones changed the original"


def _check_returns(state: State, info: Any) -> None:
    r = state.returns()
    assert len(r) == state.num_players() == info.num_players
    assert all(isinstance(v, float) and info.min_utility <= v <= info.max_utility for v in r)
    assert sum(r) == pytest.approx(info.utility_sum)
    assert r == rank_returns(r), "returns() is not a ranking"


@pytest.mark.parametrize(("name", "options"), _combinations())
def test_random_game(name: str, options: dict[str, Any]) -> None:
    """One seeded random game of the combination, checked at every step (module docstring)."""
    game = load(name)
    options = _sized(name, options)
    info = game.game_info(**options)
    seed = sum(map(ord, repr(sorted(options.items())))) % 1000
    state = game.new_initial_state(seed=seed, **options)
    assert state.serialize() == game.new_initial_state(seed=seed, **options).serialize()
    play, rng = random.Random(seed), random.Random(-seed)
    cap = info.max_game_length if info.max_game_length is not None else 10**6
    sample_at = set(rng.sample(range(60), SAMPLES))
    before = state.serialize()
    steps = 0
    while not state.is_terminal():
        assert steps < cap, f"longer than max_game_length {info.max_game_length}"
        mover = state.current_player()
        if mover != SIMULTANEOUS:
            other = (mover + 1 + rng.randrange(state.num_players())) % state.num_players()
            assert other == mover or len(state.legal_actions(other)) == 0, "an off-turn player may act"
        if steps in sample_at:
            _check_actions(state, rng)
            copy = game.deserialize_state(before)
            assert copy.serialize() == before
            _check_returns(state, info)
        step = _joint(state, play)
        twin = state.clone()
        _apply(state, step)
        assert twin.serialize() == before, "a step changed a clone made before it"
        _apply(twin, step)
        before = state.serialize()
        assert twin.serialize() == before, "a clone given the same step went another way"
        steps += 1
    assert state.current_player() == TERMINAL
    assert len(state.legal_actions()) == 0
    assert all(len(state.legal_actions(p)) == 0 for p in range(state.num_players()))
    _check_returns(state, info)
    assert game.deserialize_state(before).serialize() == before


@pytest.mark.parametrize("name", GAMES)
def test_metadata(name: str) -> None:
    """The declared parameters start a game as declared: defaults, players, the utility range."""
    game = load(name)
    kind = game.game_type
    assert kind.short_name == game.name == name
    assert kind.dynamics in ("sequential", "simultaneous") and kind.chance_mode == "sampled"
    assert kind.variants() and all(kind.variants())
    for players in (kind.min_num_players, kind.max_num_players):
        options = _sized(name, {"players": players})
        info = game.game_info(**options)
        state = game.new_initial_state(seed=1, **options)
        assert info.num_players == state.num_players() == players
        assert (info.min_utility, info.max_utility, info.utility_sum) == (-1.0, 1.0, 0.0)
        first = state.current_player()
        assert first == SIMULTANEOUS if kind.dynamics == "simultaneous" else 0 <= first < players


@pytest.mark.parametrize("name", GAMES)
def test_bad_options_are_value_errors(name: str) -> None:
    """An unknown option, a value of the wrong type, one out of range and an undeclared variant: ValueError
    naming the option, in every game."""
    game = load(name)
    with pytest.raises(ValueError, match=f"unknown {name} option 'colour'"):
        game.new_initial_state(seed=1, colour="red")
    for p in game.game_type.parameters:
        bad: list[Any] = [object()]
        if p.low is not None:
            bad.append(p.low - 1)
        if p.high is not None:
            bad.append(p.high + 1)
        if p.variants and p.closed:
            bad.append("no-such-variant")
        for value in bad:
            with pytest.raises(ValueError, match=p.name):
                game.new_initial_state(seed=1, **{p.name: value})
            with pytest.raises(ValueError, match=p.name):
                game.game_info(**{p.name: value})


MAP_GAMES = [g for g in GAMES if any(p.name == "map" for p in load(g).game_type.parameters)]


@pytest.mark.parametrize("name", MAP_GAMES)
def test_a_map_not_found_is_a_value_error(name: str, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``map`` naming no file and no shipped map is a bad option like the others: ValueError naming it."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="no-such-map"):
        load(name).new_initial_state(seed=1, map="no-such-map")
    # not the current folder (Path("") is "."): "a directory, not a file"
    with pytest.raises(ValueError, match=r"an empty (map )?name is no map file"):
        load(name).new_initial_state(seed=1, map="")


@pytest.mark.parametrize("name", GAMES)
def test_text_that_is_no_state_is_a_value_error_naming_its_place(name: str) -> None:
    """``deserialize_state`` of text no ``serialize`` wrote: a ValueError naming the line and column (not
    JSON, cut short) or the JSON path (a field missing, unknown or of the wrong kind), in every game. A field
    left out is either refused so or has a default, which ``serialize`` writes back as it was."""
    game = load(name)
    text = game.new_initial_state(seed=3, **_sized(name, {"players": 2})).serialize()
    fields = json.loads(text)
    bad = ["", "x", "[]", "{}", text[: len(text) // 2], json.dumps({**fields, "colour": 1})]
    bad += [json.dumps({**fields, key: {"x": 1}}) for key in fields]
    left_out = [json.dumps({k: v for k, v in fields.items() if k != key}) for key in fields]
    place = r"^(motti|Star Lanes|arena) state(:[0-9]+:[0-9]+|: [$][][.a-z0-9_]*): [a-zA-Z]"
    for case in bad:
        with pytest.raises(ValueError, match=place):
            game.deserialize_state(case)
    with pytest.raises(TypeError, match=r"^[\w ]+ state: expected JSON text, not NoneType$"):
        game.deserialize_state(None)  # type: ignore[arg-type]
    for case in left_out:
        try:
            again = game.deserialize_state(case).serialize()
        except ValueError as error:
            assert re.match(place, str(error)), (case[:60], str(error))  # noqa: PT017 (a default is no fault)
        else:
            assert again == text, case[:60]


@pytest.mark.parametrize("name", GAMES)
def test_reseed_leaves_the_original(name: str) -> None:
    game = load(name)
    state = game.new_initial_state(seed=3, **_sized(name, {"players": 2}))
    before = state.serialize()
    a = state.clone().reseed(11)
    b = state.clone().reseed(11)
    r1, r2 = random.Random(5), random.Random(5)
    for _ in range(30):
        if a.is_terminal():
            break
        _apply(a, _joint(a, r1))
        _apply(b, _joint(b, r2))
    assert a.serialize() == b.serialize()
    assert state.serialize() == before


def test_load_names_every_game() -> None:
    assert set(GAMES) <= set(game_names())
    with pytest.raises(UnknownGame, match="installed: "):
        load("chess")


def test_rank_returns_share_ties() -> None:
    assert rank_returns([5, 3, 5, 1]) == [2 / 3, -1 / 3, 2 / 3, -1.0]
    assert rank_returns([7, 7]) == [0.0, 0.0]
    assert rank_returns([2, 9]) == [-1.0, 1.0]
    assert rank_returns([4]) == [0.0]
