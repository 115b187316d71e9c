"""Ratings with their uncertainty (openskill's Plackett-Luce): by final rank, in game-number order, carried
between tournaments with ``--ratings FILE``."""

from __future__ import annotations

import errno
import json
import os
import re
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import pytest
from deadline import deadline

from arena import STRATEGIES, ratings
from arena.mapfile import find_map, load_arena
from arena.ratings import Rating
from arena.tournament import (
    Bot,
    Config,
    GameRecord,
    Scheduled,
    SeatResult,
    Tournament,
    bot_identity,
    parse_bots,
    rated,
)
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
    ratings.save(path, {"python3 bot.py": Rating(30.0, 2.0, 9, command), "hunt": Rating(20.0, 3.0, 9, "hunt"),
                        "old": Rating(25.0, 4.0, 3)})
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
    ratings.save(file, {"hunt": Rating(30.0, 2.0, 9, "python3 /alice/hunt.py {port}")})
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
    assert (done.returncode, done.stderr) == (2, f"arena: {bad}:1:6: Input data was truncated\n")
    assert not (tmp_path / "out").exists()
    missing = _tournament(tmp_path, "out", "--ratings", str(tmp_path / "no" / "r.json"))
    assert missing.returncode == 2 and "no such folder" in missing.stderr


def test_an_empty_ratings_file_name_is_refused_naming_the_option(tmp_path):
    # `--ratings ''` said "no such folder '.'"
    done = subprocess.run([sys.executable, "-m", "arena", "tournament", "hunt", "flee", "--ratings", "",
                           "--out", str(tmp_path / "out")],
                          cwd=tmp_path, capture_output=True, text=True, timeout=deadline(30))
    assert (done.returncode, done.stdout, done.stderr) == (2, "", "arena: --ratings: empty file name\n")
    assert not (tmp_path / "out").exists()


# --- two tournaments writing one ratings file -------------------------------------------------------------

ALICE, BOB, CAROL = (f"python3 /league/{who}/bot.py {{port}}" for who in ("alice", "bob", "carol"))


def _started(tmp_path: Path, out: str, specs: list[str], file: Path) -> Tournament:
    """A tournament of *specs* with ``--ratings`` *file*, started now: the file read and the bots named as
    ``arena tournament`` does it."""
    prior = ratings.load(file) if file.exists() else {}
    bots = parse_bots(specs, recorded={r.bot: n for n, r in prior.items()
                                       if r.bot is not None and r.bot not in STRATEGIES})
    (tmp_path / out).mkdir()
    config = Config(bots, {"office": load_arena(find_map("office"))}, 1, 2, tmp_path / out, ratings=prior,
                    ratings_file=file)
    return Tournament(config)


def _ends_game(t: Tournament, *seats: tuple[int, int]) -> None:
    """A game of *t* ends, the (bot index, rank) of its seats: its standings and ratings are written."""
    record = _record(len(t.records) + 1, *seats)
    record.folder = t.config.out / "games" / str(record.game.number)
    t.finished(record)
    assert (t.write_error, t.ratings_error) == (None, None)


def _bots(file: Path) -> dict[str, tuple[int, str | None]]:
    return {n: (r.games, r.bot) for n, r in ratings.load(file).items()}


def test_two_tournaments_writing_one_ratings_file_keep_each_others_bots(tmp_path):
    # Each read the file as it started and wrote it back whole: the file kept the last writer's bots only.
    file = tmp_path / "league.json"
    ratings.save(file, {"old": Rating(30.0, 2.0, 50, CAROL)})
    one = _started(tmp_path, "one", ["hunt", "flee", "random"], file)
    two = _started(tmp_path, "two", ["smart", "hunt"], file)
    _ends_game(two, (0, 1), (1, 2))
    _ends_game(one, (0, 1), (1, 2))   # random has played no game: it is not written
    assert _bots(file) == {"old": (50, CAROL), "smart": (1, "smart"), "hunt": (1, "hunt"),
                           "flee": (1, "flee")}
    hunt = ratings.load(file)["hunt"]   # a bot both rated: the last write's rating
    assert (round(hunt.mu, 6), round(hunt.sigma, 6)) == rounded(rated(one.config.bots, one.records))["hunt"]
    _ends_game(two, (1, 1), (0, 2))
    _ends_game(one, (2, 1), (1, 2))
    assert _bots(file) == {"old": (50, CAROL), "smart": (2, "smart"), "hunt": (1, "hunt"),
                           "flee": (2, "flee"), "random": (1, "random")}
    assert not any(p.name.endswith(".tmp") for p in tmp_path.iterdir())
    assert ratings.lock_path(file) == tmp_path / "league.json.lock"


def test_a_bot_named_like_one_another_tournament_wrote_meanwhile_takes_the_next_free_number(tmp_path):
    # Both tournaments named their new command "python3 bot.py#2" (carol's is "python3 bot.py"): the later
    # writer's would have replaced the other's rating.
    file = tmp_path / "league.json"
    ratings.save(file, {"python3 bot.py": Rating(30.0, 2.0, 50, CAROL)})
    one = _started(tmp_path, "one", [ALICE, "hunt"], file)
    two = _started(tmp_path, "two", [BOB, "flee"], file)
    assert one.config.bots[0].name == two.config.bots[0].name == "python3 bot.py#2"
    _ends_game(two, (0, 1), (1, 2))
    _ends_game(one, (1, 1), (0, 2))
    expected = {"python3 bot.py": (50, CAROL), "python3 bot.py#2": (1, BOB), "python3 bot.py#3": (1, ALICE),
                "hunt": (1, "hunt"), "flee": (1, "flee")}
    assert _bots(file) == expected
    assert one.ratings_names == {"python3 bot.py#2": "python3 bot.py#3", "hunt": "hunt"}
    _ends_game(one, (0, 1), (1, 2))   # alice stays where her first write put her
    _ends_game(two, (1, 1), (0, 2))
    assert _bots(file) == {**expected, "python3 bot.py#3": (2, ALICE), "python3 bot.py#2": (2, BOB),
                           "hunt": (2, "hunt"), "flee": (2, "flee")}
    assert two.ratings_names == {"python3 bot.py#2": "python3 bot.py#2", "flee": "flee"}
    # and a later tournament finds each bot under its own name
    later = _started(tmp_path, "three", [BOB, ALICE, CAROL], file)
    assert [b.name for b in later.config.bots] == ["python3 bot.py#2", "python3 bot.py#3", "python3 bot.py"]


def test_a_bot_both_tournaments_rated_under_other_names_is_written_over_not_twice():
    # one named alice "python3 bot.py"; two, which had bob first, named her "python3 bot.py#2" and wrote first
    current = {"python3 bot.py": Rating(26.0, 7.0, 1, BOB), "python3 bot.py#2": Rating(24.0, 7.0, 1, ALICE),
               "legacy": Rating(20.0, 3.0, 9)}
    ours = {"python3 bot.py": Rating(28.0, 6.0, 2), "legacy": Rating(21.0, 2.9, 10)}
    merged, where = ratings.merge(current, ours, {"python3 bot.py": ALICE, "legacy": "legacy"})
    assert where == {"python3 bot.py": "python3 bot.py#2", "legacy": "legacy"}   # no bot recorded: by name
    assert merged == {"python3 bot.py": current["python3 bot.py"],
                      "python3 bot.py#2": Rating(28.0, 6.0, 2, ALICE),
                      "legacy": Rating(21.0, 2.9, 10, "legacy")}


def test_a_write_waits_while_another_process_holds_the_lock(tmp_path):
    file = tmp_path / "league.json"
    writer = (f"from arena import ratings; from arena.ratings import Rating; print('ready', flush=True); "
              f"ratings.update({str(file)!r}, {{'smart': Rating(30.0, 2.0, 9)}}, {{'smart': 'smart'}})")
    with ratings.locked(file):
        proc = subprocess.Popen([sys.executable, "-c", writer], stdout=subprocess.PIPE, text=True)
        try:
            assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
            with pytest.raises(subprocess.TimeoutExpired):
                proc.wait(timeout=0.5)
            assert not file.exists()
            ratings.save(file, {"hunt": Rating(20.0, 3.0, 9, "hunt")})  # this process's write
        except BaseException:
            proc.kill()
            raise
    assert proc.wait(timeout=deadline(20)) == 0
    assert _bots(file) == {"hunt": (9, "hunt"), "smart": (9, "smart")}
    # a link to the file locks the same lock file
    (tmp_path / "link.json").symlink_to(file)
    assert ratings.lock_path(tmp_path / "link.json") == ratings.lock_path(file)


def test_a_ratings_file_that_became_no_ratings_file_is_left_as_it_is(tmp_path):
    file = tmp_path / "league.json"
    t = _started(tmp_path, "one", ["hunt", "flee"], file)
    file.write_text("[1, 2]")   # edited by hand meanwhile
    record = _record(1, (0, 1), (1, 2))
    record.folder = t.config.out / "games" / "1"
    t.finished(record)
    assert (t.write_error, t.ratings_error) == (None, f"{file}: $: expected object, got array")
    assert file.read_text() == "[1, 2]" and (t.config.out / "standings.json").exists()
    file.unlink()
    _ends_game(t, (1, 1), (0, 2))
    assert _bots(file) == {"hunt": (2, "hunt"), "flee": (2, "flee")}


def test_a_command_is_the_bot_the_shell_reads_however_it_is_written(tmp_path):
    # "python3  bot.py {port} " (two spaces, a trailing one) or "python3 bot.py {port} # v2" was another bot
    # than the "python3 bot.py {port}" rated: named "python3 bot.py#2" and rated anew.
    for written in (f"python3  {ALICE[8:]} ", f"{ALICE} # v2", f"python3 '{ALICE[8:-7]}' {{port}}\n",
                    f"{ALICE};", f"python3 \\\n{ALICE[8:]}\t#v2\n\n"):
        assert bot_identity(written) == ALICE, written
        assert [b.name for b in parse_bots([written, BOB], recorded={ALICE: "python3 bot.py"})] == [
            "python3 bot.py", "python3 bot.py#2"]
    assert bot_identity(f"cd /league && {ALICE} # it's v2\n") == f"cd /league && {ALICE}"
    # a # quoted, escaped or inside a word is no comment, and another script is another bot
    for other in (f"{ALICE} '# v2'", f"{ALICE} \\# v2", f"{ALICE} v#2", BOB, f"{ALICE} 2 >&1"):
        assert bot_identity(other) != ALICE, other
    assert bot_identity(f"{ALICE} 2>&1") == bot_identity(f"{ALICE} 2>& 1") != bot_identity(f"{ALICE} 2 >&1")
    assert bot_identity("'if' x {port}") != bot_identity("if x {port}")  # a command named if, not an if
    assert bot_identity("x 'A=1' {port}") != bot_identity("A=1 x {port}")
    # A file written before: its bot is the command as it was written. It is read as the shell reads it, and
    # the next write puts the bot over its own entry (it was a new entry, "python3 bot.py#2").
    file = tmp_path / "league.json"
    ratings.save(file, {"python3 bot.py": Rating(30.0, 2.0, 9, f"python3  {ALICE[8:]} # v1")})
    t = _started(tmp_path, "one", [ALICE, "hunt"], file)
    assert [b.name for b in t.config.bots] == ["python3 bot.py", "hunt"]
    _ends_game(t, (0, 1), (1, 2))
    assert _bots(file) == {"python3 bot.py": (10, ALICE), "hunt": (1, "hunt")}


def test_a_quoted_placeholder_is_the_same_bot_as_a_bare_one(tmp_path):
    # python3 bot.py "{port}" (or '{port}') was another bot, "python3 bot.py#2", rated anew, and the file
    # recorded its bot as "python3 bot.py '{port}'"
    for written in (f"{ALICE[:-7]} '{{port}}'", f'{ALICE[:-7]} "{{port}}"', ALICE):
        assert bot_identity(written) == ALICE, written
        assert [b.name for b in parse_bots([written, BOB], recorded={ALICE: "python3 bot.py"})] == [
            "python3 bot.py", "python3 bot.py#2"]
    quoted = """x '{host}:{port}' "--port={port}" {port}"""
    assert bot_identity(quoted) == "x {host}:{port} --port={port} {port}"
    # quotes that do change something still make another bot: a path with a space, a brace alone (a
    # reserved word), an escaped brace (no placeholder: the shell passes "{port}" itself)
    assert bot_identity('python3 "a b.py" {port}') != bot_identity("python3 a b.py {port}")
    assert bot_identity("x '{' {port}") == "x '{' {port}"
    assert bot_identity("x \\{port\\} {port}") == "x '{port}' {port}" != bot_identity("x {port} {port}")
    file = tmp_path / "league.json"
    ratings.save(file, {"python3 bot.py": Rating(30.0, 2.0, 9, f"{ALICE[:-7]} '{{port}}'")})   # as before
    t = _started(tmp_path, "one", [f'{ALICE[:-7]} "{{port}}"', "hunt"], file)
    assert [b.name for b in t.config.bots] == ["python3 bot.py", "hunt"]
    _ends_game(t, (0, 1), (1, 2))
    assert _bots(file) == {"python3 bot.py": (10, ALICE), "hunt": (1, "hunt")}


def test_a_command_given_again_with_a_comment_is_rated_as_the_same_command_given_twice(tmp_path):
    # "python3 '/league/alice/bot.py' {port} # v2" beside ALICE was labelled "python3 bot.py # v2": the file
    # held two names for one bot, named otherwise than when the same command was given twice
    again = f"python3 '{ALICE[8:-7]}' {{port}} # v2"
    results = []
    for out, specs in (("twice", [ALICE, ALICE]), ("commented", [ALICE, again])):
        file = tmp_path / f"{out}.json"
        first = _started(tmp_path, out, [*specs, "hunt"], file)
        _ends_game(first, (0, 1), (1, 2), (2, 3))
        later = _started(tmp_path, f"{out}-later", [*specs, "hunt"], file)
        _ends_game(later, (2, 1), (1, 2), (0, 3))
        names = [b.name for b in first.config.bots], [b.name for b in later.config.bots]
        results.append((*names, _bots(file)))
    assert results[0] == results[1]
    assert results[0][0] == ["python3 bot.py", "python3 bot.py#2", "hunt"]
    assert results[0][2] == {"python3 bot.py": (2, ALICE), "python3 bot.py#2": (2, ALICE),
                             "hunt": (2, "hunt")}


HUNT_BOT = """\
import sys
from arena.bots import play
play("127.0.0.1", int(sys.argv[1]), "hunt")
"""


@pytest.mark.e2e
def test_a_command_keeps_its_name_and_rating_whatever_spaces_or_comment_it_is_given_with(tmp_path):
    # A bot rated as "python bot.py {port}" was another bot when given as "python  bot.py {port} " or with a
    # comment: "python bot.py#2", rated anew, its rating left behind.
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "bot.py").write_text(HUNT_BOT)
    python = sys.executable
    name = f"{Path(python).name} bot.py"
    rated_as = {folder: f"{python} {tmp_path / folder / 'bot.py'} {{port}}" for folder in ("a", "b")}
    file = tmp_path / "league.json"
    ratings.save(file, {name: Rating(30.0, 2.0, 9, rated_as["a"])})
    given = f"{python}  a/bot.py {{port}}  # v2"
    done = subprocess.run([sys.executable, "-m", "arena", "tournament", given, f"{python} b/bot.py {{port}}",
                           "hunt", "--games", "1", "--prep-ms", "50", "--seed", "3", "-q",
                           "--ratings", str(file), "--out", str(tmp_path / "out")],
                          cwd=tmp_path, capture_output=True, text=True, timeout=deadline(60))
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "out" / "standings.json").read_text())
    assert [b["name"] for b in data["settings"]["bots"]] == [name, f"{name}#2", "hunt"]
    assert data["settings"]["bots"][0]["spec"] == f"{python}  {tmp_path / 'a' / 'bot.py'} {{port}}  # v2"
    assert {row["bot"]: row["rating"]["games"] for row in data["standings"]} == {
        name: 10, f"{name}#2": 1, "hunt": 1}
    assert _bots(file) == {name: (10, rated_as["a"]), f"{name}#2": (1, rated_as["b"]), "hunt": (1, "hunt")}


def _one_game_begun(bots: list[str], file: Path, out: Path, prep_ms: int) -> subprocess.Popen[str]:
    """A tournament of one game of *bots* with the ratings file *file*, started and waited for until it has
    read *file* and claimed its results folder *out* (made ``out/games``: a ``standings.json`` made in *out*
    before that claim refuses the folder), its game's preparation *prep_ms* long."""
    proc = subprocess.Popen([sys.executable, "-m", "arena", "tournament", *bots, "--games", "1",
                             "--prep-ms", str(prep_ms), "--seed", "3", "-q", "--ratings", str(file),
                             "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    end = time.monotonic() + deadline(20)
    while not (out / "games").exists() and time.monotonic() < end and proc.poll() is None:
        time.sleep(0.02)
    return proc


@pytest.mark.e2e
@pytest.mark.slow
def test_a_tournament_says_where_another_tournament_made_it_write_its_bot(tmp_path):
    # another tournament, started with the same file, writes a bot of its own under the name this one gave
    # its new command
    python = Path(sys.executable)
    ours = f"{python} -m arena bot --strategy hunt {{host}} {{port}}"
    theirs = f"/elsewhere/{python.name} -m arena bot --strategy hunt {{host}} {{port}}"
    (name,) = (b.name for b in parse_bots([ours]))
    assert [b.name for b in parse_bots([theirs])] == [name]
    file, out = tmp_path / "league.json", tmp_path / "out"
    proc = _one_game_begun([ours, "flee"], file, out, prep_ms=2000)
    try:
        ratings.update(file, {name: Rating(30.0, 2.0, 9)}, {name: theirs})
    finally:
        stdout, stderr = proc.communicate(timeout=deadline(60))
    assert proc.returncode == 0, stderr
    assert stdout.startswith("standings after 1 of 1 games\n")
    assert stderr == (f"arena: --ratings {file}: {name} is rated there as {name}#2: another tournament "
                      f"wrote a bot of its own as {name} meanwhile\n")
    spec = parse_bots([ours])[0].spec
    assert _bots(file) == {name: (9, theirs), f"{name}#2": (1, spec), "flee": (1, "flee")}


def test_a_ratings_file_in_a_folder_where_no_file_can_be_made_says_permission_denied(tmp_path, monkeypatch):
    # The lock file could be neither made nor opened: the reason given was "No such file or directory".
    # (The tests run as root, whom a read-only folder does not stop: the lock file's creation is refused.)
    file = tmp_path / "league.json"
    t = _started(tmp_path, "one", ["hunt", "flee"], file)
    opened = os.open

    def refused(path: str | os.PathLike[str], flags: int, *args: int, **kwargs: int) -> int:
        if os.fspath(path).endswith(".lock") and flags & os.O_CREAT:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fspath(path))
        return opened(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refused)
    record = _record(1, (0, 1), (1, 2))
    record.folder = t.config.out / "games" / "1"
    t.finished(record)
    assert (t.write_error, t.ratings_error) == (
        None, f"{file}.lock: cannot write in {tmp_path}: not writable (Permission denied)")
    assert json.loads((t.config.out / "standings.json").read_text())["played"] == 1 and not file.exists()


@pytest.mark.e2e
@pytest.mark.parametrize("broken", ["ratings folder", "lock folder", "no ratings file", "standings", "both"])
def test_the_closing_line_names_the_results_that_could_not_be_written(tmp_path, broken):
    # A ratings file that could not be written ended with "standings.csv and standings.json in OUT are out
    # of date", though those two were written and the ratings file was not; and the reason named no file:
    # "(Is a directory)" for its lock file.
    file, out = tmp_path / "league.json", tmp_path / "out"
    proc = _one_game_begun(["hunt", "flee"], file, out, prep_ms=1000)
    try:
        if broken in ("ratings folder", "both"):
            file.mkdir()
        elif broken == "lock folder":   # the lock file the start made, a folder by the end of the game
            ratings.lock_path(file).unlink()
            ratings.lock_path(file).mkdir()
        elif broken == "no ratings file":
            file.write_text("[1, 2]")
        if broken in ("standings", "both"):
            (out / "standings.json").mkdir()
    finally:
        stdout, stderr = proc.communicate(timeout=deadline(60))
    assert proc.returncode == 1, stderr
    assert stdout.startswith("standings after 1 of 1 games\n")
    ratings_line = (f"arena: --ratings {file} was not updated ({{}}): only the table above has the ratings "
                    f"after this tournament's games")
    standings_line = (f"arena: standings.csv and standings.json in {out} are out of date (is a directory, "
                      f"not a regular file): only the table above is complete")
    folder = ratings_line.format(f"{file}: is a directory, not a regular file")
    expected = {"ratings folder": [folder],
                "lock folder": [ratings_line.format(f"{file}.lock: is a directory, not a regular file")],
                "no ratings file": [ratings_line.format(f"{file}: $: expected object, got array")],
                "standings": [standings_line],
                "both": [standings_line, folder]}
    assert stderr.splitlines() == expected[broken]
    if broken == "standings":   # the ratings file was written all the same
        assert _bots(file) == {"hunt": (1, "hunt"), "flee": (1, "flee")}
    elif broken != "both":   # and so were the standings files
        assert json.loads((out / "standings.json").read_text())["played"] == 1
        assert (out / "standings.csv").read_text().count("\n") == 3
    if broken == "no ratings file":
        assert file.read_text() == "[1, 2]"


def test_a_ratings_file_that_cannot_be_written_is_named_with_what_is_wrong(tmp_path):
    # The reason was the system's alone, naming no file: "Is a directory" (the lock file), "No such file or
    # directory" (/proc, a link to a folder that is gone).
    (tmp_path / "league.json.lock").mkdir()
    (tmp_path / "link.json").symlink_to(tmp_path / "gone" / "league.json")
    gone = tmp_path / "gone"
    cases = [(tmp_path / "league.json", f"{tmp_path}/league.json.lock: is a directory, not a regular file"),
             ("/proc/league.json", "/proc/league.json.lock: cannot write in /proc: not writable"),
             (tmp_path / "link.json", f"{gone}/league.json.lock: cannot write in {gone}: no such folder")]
    for path, reason in cases:   # as root, /proc gives no "(Permission denied)" after "not writable"
        with pytest.raises(OSError, match=re.escape(reason)) as failed:
            ratings.update(path, {"hunt": Rating()}, {"hunt": "hunt"})
        assert (failed.value.strerror or "").startswith(reason), path
    (tmp_path / "league.json").mkdir()   # the ratings file itself
    (tmp_path / "league.json.lock").rmdir()
    reason = f"{tmp_path}/league.json: is a directory, not a regular file"
    with pytest.raises(OSError, match=re.escape(reason)) as failed:
        ratings.update(tmp_path / "league.json", {"hunt": Rating()}, {"hunt": "hunt"})
    assert failed.value.strerror == reason


def _refused(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``arena tournament hunt flee`` of one short game with *args*, run in *tmp_path*."""
    return subprocess.run([sys.executable, "-m", "arena", "tournament", "hunt", "flee", "--games", "1",
                           "--prep-ms", "50", "-q", *args],
                          cwd=tmp_path, capture_output=True, text=True, timeout=deadline(60))


def test_a_ratings_file_linked_into_a_folder_that_is_gone_is_refused_at_the_start(tmp_path):
    # refused only at the end: "--ratings link.json was not updated (No such file or directory)"
    (tmp_path / "link.json").symlink_to(tmp_path / "gone" / "league.json")
    done = _refused(tmp_path, "--ratings", "link.json", "--out", "out")
    assert (done.returncode, done.stdout, done.stderr) == (
        2, "", f"arena: --ratings 'link.json': no such folder '{tmp_path}/gone'\n")
    assert not (tmp_path / "out").exists()


STANDINGS_TOO = ("a file the tournament writes in --out out{}: the ratings and the standings would overwrite "
                 "each other")


@pytest.mark.parametrize(("given", "why"), [
    ("out/standings.json", STANDINGS_TOO.format("")),
    ("out/standings.csv", STANDINGS_TOO.format("")),
    ("./out//standings.json", STANDINGS_TOO.format("")),
    ("link.json", STANDINGS_TOO.format(" (out/standings.json)")),
    ("out/games/league.json", "in out/games, where the tournament writes its games (--out out): the ratings "
                              "need a file outside it"),
    ("out", "the results folder --out out: the ratings need a file of their own"),
], ids=["standings.json", "standings.csv", "spelled otherwise", "link", "games", "results folder"])
def test_a_ratings_file_the_tournament_writes_in_its_results_is_refused(tmp_path, given, why):
    # --ratings OUT/standings.json was taken: the standings overwrote the ratings file, and the tournament
    # ended with "... was not updated (out/standings.json: $: object contains unknown field `settings`)"
    (tmp_path / "out").mkdir()
    (tmp_path / "link.json").symlink_to("out/standings.json")
    done = _refused(tmp_path, "--ratings", given, "--out", "out")
    assert (done.returncode, done.stdout, done.stderr) == (2, "", f"arena: --ratings {given} is {why}\n")
    assert list((tmp_path / "out").iterdir()) == []


LONG = "x" * 300


@pytest.mark.parametrize("given", [f"{LONG}.json", f"{LONG}/league.json"], ids=["file", "folder"])
def test_a_ratings_name_too_long_is_one_line_naming_the_option(tmp_path, given):
    # a traceback: "OSError: [Errno 36] File name too long", exit status 1
    done = _refused(tmp_path, "--ratings", given, "--out", "out")
    assert (done.returncode, done.stdout, done.stderr) == (
        2, "", f"arena: --ratings {given}: File name too long\n")
    assert list(tmp_path.iterdir()) == []


def _lock_folder(tmp_path: Path) -> None:
    (tmp_path / "lk2").mkdir()
    (tmp_path / "lk2" / "x.json.lock").mkdir()


@pytest.mark.parametrize(("given", "make", "why"), [
    ("lk2/x.json", _lock_folder, "lk2/x.json.lock: is a directory, not a regular file"),
    ("x.json", lambda tmp: os.mkfifo(tmp / "x.json.lock"), "x.json.lock: is a FIFO, not a regular file"),
    ("x.json", lambda tmp: (tmp / "x.json.lock").symlink_to("gone/x.lock"),
     "x.json.lock: cannot write in {}/gone: no such folder"),
    ("x.json", lambda tmp: (tmp / "x.json.lock").symlink_to("x.json.lock"),
     "x.json.lock: Too many levels of symbolic links"),
    ("ll", lambda tmp: (tmp / "ll").symlink_to("ll"), "Too many levels of symbolic links"),
], ids=["lock folder", "lock FIFO", "lock linked into a missing folder", "lock in a loop",
        "ratings in a loop"])
def test_a_ratings_lock_that_cannot_be_taken_is_refused_at_the_start(tmp_path, given, make, why):
    # the whole tournament was played, then: "--ratings lk2/x.json was not updated (lk2/x.json.lock: is a
    # directory, not a regular file)", exit status 1
    make(tmp_path)
    before = sorted(tmp_path.rglob("*"))
    done = _refused(tmp_path, "--ratings", given, "--out", "out")
    assert (done.returncode, done.stdout, done.stderr) == (
        2, "", f"arena: --ratings {given}: {why.format(tmp_path)}\n")
    assert sorted(tmp_path.rglob("*")) == before


def test_a_ratings_file_under_a_file_is_refused_as_a_file_where_a_folder_should_be(tmp_path):
    # "no such folder 'aimless.py'", though there is one: a file
    (tmp_path / "aimless.py").write_text("")
    done = _refused(tmp_path, "--ratings", "aimless.py/x.json", "--out", "out")
    assert (done.returncode, done.stdout, done.stderr) == (
        2, "", "arena: --ratings 'aimless.py/x.json': 'aimless.py' is a file, not a folder\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["aimless.py"]


@pytest.mark.parametrize("body", [b"", b"\n \n", b"\xef\xbb\xbf"], ids=["empty", "blank", "BOM only"])
def test_an_empty_ratings_file_says_it_is_empty(tmp_path, body):
    # "empty.json:1:1: Input data was truncated"
    (tmp_path / "empty.json").write_bytes(body)
    done = _refused(tmp_path, "--ratings", "empty.json", "--out", "out")
    assert (done.returncode, done.stdout, done.stderr) == (
        2, "", "arena: empty.json: the file is empty, not a ratings file\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.json"]


def test_a_ratings_file_cut_short_is_not_called_empty(tmp_path):
    (tmp_path / "cut.json").write_text('{"model": ')
    with pytest.raises(FileFormatError, match=r"^\S+cut\.json:1:11: Input data was truncated$"):
        ratings.load(tmp_path / "cut.json")
