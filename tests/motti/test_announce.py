from motti.announce import describe
from motti.rules import AttackDrawn, CapitalCaptured, Eliminated, Encircled, GameOver, Reset, TurnPassed


def test_console_words() -> None:
    assert describe([AttackDrawn(1, 4, None)]) == "player 1's attack failed"
    assert describe([AttackDrawn(2, 0, (3, 4)), Encircled(((1, 1), (1, 2)), 2, 1)]) == (
        "player 2 took 3,4; player 2 encircled 2 of player 1")
    assert describe([CapitalCaptured(2, 1, (3, 1)), Eliminated(2, "capital"), GameOver(1)]) == (
        "player 1 captured player 2's capital; player 2 lost the capital, out; player 1 wins!")
    assert describe([Reset()]) == "reset: all land free"
    assert describe([]) is None


def test_legend_band_words_name_players_short() -> None:
    events = [AttackDrawn(1, 0, (3, 1)), TurnPassed(2)]
    assert describe(events, 1, short=True) == "P1 took 3,1; P1's turn ended"
    assert describe([TurnPassed(2)], short=True) == "turn passed"


def test_land_of_a_player_who_left_is_not_called_encircled() -> None:
    events = [Eliminated(2, "closed"), Encircled(((0, 0),), 1, 2)]
    assert describe(events, short=True) == "P2 left, out"
