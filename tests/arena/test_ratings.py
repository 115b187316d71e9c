"""Ratings with their uncertainty (openskill's Plackett-Luce): by final rank, in game-number order, carried
between tournaments with ``--ratings FILE``."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from deadline import deadline

from arena import ratings
from arena.ratings import Rating
from arena.tournament import Bot, GameRecord, Scheduled, SeatResult, parse_bots, rated
from common.save import FileFormatError

# Worked out with openskill's PlackettLuce directly, from 25 ± 25/3 each: one game of three where x comes
# first and y and z share second place.
ONE_GAME = {"x": (27.869049, 8.205243), "y": (23.565476, 8.058224), "z": (23.565476, 8.058224)}


def rounded(table: dict[str, Rating]) -> dict[str, tuple[float, float]]:
    return {n: (round(r.mu, 6), round(r.sigma, 6)) for n, r in table.items()}


def test_a_game_rates_by_final_rank_and_a_shared_place_is_a_tie():
    after = ratings.rate([[("x", 1), ("y", 2), ("z", 2)]])
    assert rounded(after) == ONE_GAME
    assert [after[n].games for n in "xyz"] == [1, 1, 1]
    assert after["x"].conservative == pytest.approx(27.869049 - 3 * 8.205243, abs=1e-5)
    assert ratings.ranks(after, ["z", "y", "x"]) == {"x": 1, "y": 2, "z": 2}
    assert Rating().conservative == 0.0


def test_ratings_carry_over_and_the_order_of_the_games_counts():
    games = [[("x", 1), ("y", 2)], [("y", 1), ("z", 2)], [("z", 1), ("x", 2)]]
    whole = ratings.rate(games)
    carried = ratings.rate(games[2:], ratings.rate(games[:2]))
    assert rounded(whole) == rounded(carried) and whole["x"].games == 2
    assert rounded(ratings.rate(games[::-1])) != rounded(whole)  # which is why the order is fixed
    kept = ratings.rate(games[:1], {"old": Rating(30.0, 2.0, 50)}, names=["w"])
    assert kept["old"] == Rating(30.0, 2.0, 50) and kept["w"] == Rating()


def _record(number: int, *seats: tuple[int, int]) -> GameRecord:
    record = GameRecord(Scheduled(number, "office", number, tuple(b for b, _ in seats)), Path("."))
    record.seats = [SeatResult(bot, seat, seat, points=Fraction(0), rank=rank)
                    for seat, (bot, rank) in enumerate(seats)]
    return record


def test_the_same_games_give_the_same_ratings_whatever_order_they_ended_in():
    entrants = [Bot(n, n, n) for n in ("x", "y", "z")]
    records = [_record(1, (0, 1), (1, 2), (2, 2)), _record(2, (1, 1), (2, 2)), _record(3, (2, 1), (0, 2))]
    stopped = _record(4, (0, 2), (1, 1))
    stopped.stopped = "interrupted"
    in_order = rated(entrants, [*records, stopped])
    assert rounded(in_order) == rounded(rated(entrants, [records[2], stopped, records[0], records[1]]))
    assert rounded(in_order) == rounded(ratings.rate([[("x", 1), ("y", 2), ("z", 2)], [("y", 1), ("z", 2)],
                                                      [("z", 1), ("x", 2)]]))


def test_a_ratings_file_round_trips_and_a_bad_one_names_file_and_place(tmp_path):
    path = tmp_path / "ratings.json"
    ratings.save(path, {"a": Rating(20.5, 3.25, 7), "b": Rating(30.0, 1.0, 40)})
    data = json.loads(path.read_text())
    assert list(data["ratings"]) == ["b", "a"] and data["ratings"]["b"]["conservative"] == 27.0
    assert ratings.load(path) == {"a": Rating(20.5, 3.25, 7), "b": Rating(30.0, 1.0, 40)}
    path.write_text('{"model": "openskill PlackettLuce", "ratings": {"a": {"mu": 20, "sigma": -1}}}')
    with pytest.raises(FileFormatError, match=r"ratings\.json: \$\.ratings\['a'\]: Expected `float` >= 0\.0|"
                                              r"ratings\.json: \$\.ratings\['a'\]: Expected `float` > 0"):
        ratings.load(path)
    path.write_text('{"model": "trueskill", "ratings": {}}')
    with pytest.raises(FileFormatError, match=r"ratings\.json: \$\.model: expected 'openskill PlackettLuce'"):
        ratings.load(path)
    path.write_text('{"model": "openskill PlackettLuce",\n "ratings": {"a": }}')
    with pytest.raises(FileFormatError, match=r"ratings\.json:2:19: JSON is malformed"):
        ratings.load(path)


def test_a_ratings_file_records_the_bot_each_rating_was_earned_by(tmp_path):
    path = tmp_path / "ratings.json"
    command = "python3 /league/alice/bot.py {port}"
    ratings.save(path, {"python3 bot.py": Rating(30.0, 2.0, 9), "hunt": Rating(20.0, 3.0, 9, "hunt"),
                        "old": Rating(25.0, 4.0, 3)}, {"python3 bot.py": command})
    data = json.loads(path.read_text())["ratings"]
    assert (data["python3 bot.py"]["bot"], data["hunt"]["bot"]) == (command, "hunt")
    assert "bot" not in data["old"]
    assert ratings.load(path) == {"python3 bot.py": Rating(30.0, 2.0, 9, command),
                                  "hunt": Rating(20.0, 3.0, 9, "hunt"), "old": Rating(25.0, 4.0, 3)}


def test_each_bot_keeps_the_name_its_rating_was_earned_under(tmp_path):
    # Two folders each holding a bot.py: the second tournament's "python3 bot.py" carried on the first's
    # rating, whatever bot it was; and numbering by command-line order renamed the same bots in another
    # order or line-up.
    alice, bob = "python3 /league/alice/bot.py {port}", "python3 /league/bob/bot.py {port}"
    recorded = {alice: "python3 bot.py", bob: "python3 bot.py#2"}
    assert [b.name for b in parse_bots([bob, "hunt", alice], recorded=recorded)] == [
        "python3 bot.py#2", "hunt", "python3 bot.py"]
    assert [b.name for b in parse_bots([bob], recorded=recorded)] == ["python3 bot.py#2"]
    # a new bot of the same label takes no name another bot earned a rating under
    carol = "python3 /league/carol/bot.py {port}"
    assert [b.name for b in parse_bots([carol, bob], recorded={alice: "python3 bot.py"})] == [
        "python3 bot.py#2", "python3 bot.py#3"]


def test_a_rating_earned_by_another_bot_of_the_same_name_is_refused(tmp_path):
    # A file edited by hand, or written before commands were kept from example bots' names: "hunt" was
    # earned by a command, and the example bot hunt would carry it on.
    file = tmp_path / "league.json"
    ratings.save(file, {"hunt": Rating(30.0, 2.0, 9)}, {"hunt": "python3 /alice/hunt.py {port}"})
    before = file.read_text()
    done = subprocess.run([sys.executable, "-m", "arena", "tournament", "hunt", "flee",
                           "--ratings", str(file), "--out", str(tmp_path / "out")],
                          cwd=tmp_path, capture_output=True, text=True, timeout=deadline(30))
    assert (done.returncode, done.stdout, done.stderr) == (2, "", (
        f"arena: --ratings {file}: the rating of 'hunt' was earned by the bot 'python3 /alice/hunt.py "
        "{port}', not 'hunt'; give this tournament a ratings file of its own (or, for the same bot moved "
        "elsewhere, remove its entry)\n"))
    assert file.read_text() == before and not (tmp_path / "out").exists()


@pytest.mark.parametrize(("entry", "place"), [
    ('{"mu": 1e6, "sigma": 2}', "Expected `float` <= 1000.0 - at `$.mu`"),
    ('{"mu": -1e20, "sigma": 2}', "Expected `float` >= -1000.0 - at `$.mu`"),
    ('{"mu": 20, "sigma": 1e200}', "Expected `float` <= 1000.0 - at `$.sigma`"),
])
def test_a_rating_beyond_what_the_model_computes_with_is_refused(tmp_path, entry, place):
    # a mu of 1e6 overflowed openskill (a traceback), a sigma of 1e200 made the ratings NaN, written as null
    path = tmp_path / "ratings.json"
    path.write_text(f'{{"model": "openskill PlackettLuce", "ratings": {{"hunt": {entry}}}}}')
    with pytest.raises(FileFormatError) as error:
        ratings.load(path)
    assert str(error.value) == f"{path}: $.ratings['hunt']: {place}"


def test_a_rating_with_no_bot_recorded_may_say_null(tmp_path):
    # '"bot": null' was refused with "expected int | float | str, got null"
    path = tmp_path / "ratings.json"
    path.write_text('{"model": "openskill PlackettLuce", "ratings": {"hunt": {"mu": 20, "sigma": 2, '
                    '"bot": null}}}')
    assert ratings.load(path) == {"hunt": Rating(20.0, 2.0, 0)}


def _tournament(tmp_path: Path, out: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena", "tournament", "random", "flee", "hunt",
                           "--games", "2", "--players", "3", "--prep-ms", "50", "--jobs", "1", "--seed", "4",
                           "-q", "--out", str(tmp_path / out), *extra],
                          capture_output=True, text=True, timeout=deadline(200))


@pytest.mark.e2e
@pytest.mark.slow
def test_ratings_carry_from_one_tournament_to_the_next(tmp_path):
    file = tmp_path / "ratings.json"
    first = _tournament(tmp_path, "one", "--ratings", str(file))
    assert first.returncode == 0, first.stderr
    assert {n: r.games for n, r in ratings.load(file).items()} == {"random": 2, "flee": 2, "hunt": 2}
    second = _tournament(tmp_path, "two", "--ratings", str(file))
    assert second.returncode == 0, second.stderr
    games = []
    for out in ("one", "two"):
        for game in json.loads((tmp_path / out / "standings.json").read_text())["games"]:
            games.append([(s["bot"], s["rank"]) for s in game["seats"]])
    assert rounded(ratings.load(file)) == rounded(ratings.rate(games))
    table = json.loads((tmp_path / "two" / "standings.json").read_text())["standings"]
    assert {row["bot"]: row["rating"]["games"] for row in table} == {"random": 4, "flee": 4, "hunt": 4}
    assert "mu ± sigma rated" in second.stdout.splitlines()[1]


def test_a_bad_ratings_file_is_one_line_before_anything_starts(tmp_path):
    bad = tmp_path / "ratings.json"
    bad.write_text("[1, 2")
    done = _tournament(tmp_path, "out", "--ratings", str(bad))
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert done.stderr.startswith(f"arena: {bad}: ") and not (tmp_path / "out").exists()
    missing = _tournament(tmp_path, "out", "--ratings", str(tmp_path / "no" / "r.json"))
    assert missing.returncode == 2 and "no such folder" in missing.stderr
