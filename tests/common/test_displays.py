"""Player strings (spec/motti.md §5 and worked scenario T21)."""

from __future__ import annotations

import pytest

from common.displays import PlayerStringError, Seat, parse_seats, player_string


def test_t21_two_players_on_a_remote_display_split_at_the_first_colon():
    seats = parse_seats(["1,2:remote:0.0"], 2, default_display=":0")
    assert seats == [Seat((1, 2), "remote:0.0")]


def test_t21_player_zero_is_an_observer():
    seats = parse_seats(["0:obs:0"], 2, default_display=":0")
    assert seats == [Seat((), "obs:0"), Seat((1, 2), ":0")]


@pytest.mark.parametrize(("args", "message"), [
    (["x:foo"], 'bad player string "x:foo": "x" is not a player number'),
    (["1:a", "1:b"], 'bad player string "1:b": player 1 is already named in "1:a"'),
    (["9:foo"], 'bad player string "9:foo": there is no player 9 (this game has 2)'),
])
def test_t21_errors(args, message):
    with pytest.raises(PlayerStringError) as caught:
        parse_seats(args, 2, default_display=":0")
    assert str(caught.value) == message


def test_t21_with_curses_unnamed_players_go_to_the_terminal():
    seats = parse_seats(["2:host:0"], 3, default_display=":0", curses=True)
    assert seats == [Seat((2,), "host:0"), Seat((1, 3), None)]


def test_unnamed_players_share_the_default_display():
    assert parse_seats([], 3, default_display=":7") == [Seat((1, 2, 3), ":7")]
    assert parse_seats([], 2, default_display=None, curses=True) == [Seat((1, 2), None)]


def test_only_seated_players_get_the_default_seat():
    assert parse_seats(["3::48"], 3, default_display=":7", seated={1, 3}) == [Seat((3,), ":48"),
                                                                             Seat((1,), ":7")]
    with pytest.raises(PlayerStringError, match=r"^player 1 has no display"):
        parse_seats(["3::48"], 3, default_display=None, seated={1, 3})


def test_every_player_named_leaves_no_default_seat():
    seats = parse_seats(["2,1:a:0", "3:b:1.0"], 3, default_display=":0")
    assert seats == [Seat((1, 2), "a:0"), Seat((3,), "b:1.0")]


def test_several_strings_may_use_the_same_display():
    seats = parse_seats(["1:h:0", "2:h:0"], 2, default_display=None)
    assert seats == [Seat((1,), "h:0"), Seat((2,), "h:0")]


@pytest.mark.parametrize(("arg", "why"), [
    ("1,2", "expected LIST:DISPLAY, e.g. 1,2:host:0"),
    (":host:0", "empty player list"),
    ("1,:host:0", "empty player number"),
    ("1,1:host:0", "player 1 is named twice"),
    ("1:", "no display after the colon"),
    ("0,1:host:0", "player 0 (observer) cannot share a display string with players"),
    ("-1:host:0", '"-1" is not a player number'),
])
def test_malformed_strings(arg, why):
    with pytest.raises(PlayerStringError) as caught:
        parse_seats([arg], 2, default_display=":0")
    assert str(caught.value) == f'bad player string "{arg}": {why}'


def test_unnamed_players_without_display_or_curses_is_an_error():
    with pytest.raises(PlayerStringError) as caught:
        parse_seats(["1:h:0"], 3, default_display=None)
    assert str(caught.value) == ("players 2,3 have no display: DISPLAY is not set "
                                 "(name one with 2,3:DISPLAY, or play on the terminal)")
    with pytest.raises(PlayerStringError, match=r"^player 2 has no display"):
        parse_seats(["1:h:0"], 2, default_display="")


def test_error_is_a_value_error_on_one_line():
    with pytest.raises(ValueError, match="x:foo") as caught:
        parse_seats(["x:foo"], 2, default_display=":0")
    assert "\n" not in str(caught.value)


def test_player_string_gives_the_seat_again() -> None:
    seats = parse_seats(["2,1:host:0.0", "0::5", "3::7"], 3, default_display=None)
    assert [player_string(seat) for seat in seats] == ["1,2:host:0.0", "0::5", "3::7"]
    assert parse_seats([player_string(seat) for seat in seats], 3, default_display=None) == seats
