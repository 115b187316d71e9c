"""The wire codec (spec/arena.md §3): exact bytes, splitting, limits."""

from __future__ import annotations

import random

import pytest

from arena import protocol as p


def test_s17_round_bytes_encode_and_parse_back():
    wire = (b"SET 4,3 NORTH|SEE_PLAYER 10,8 WEST 0|SEE_PLAYER 7,3 WEST 5|TOXIC 4,3 0.04|LIFE 98.73 4|"
            b"TEAMCHANGE RED 5|START 12|")
    messages = [p.Set(4, 3, "NORTH"), p.SeePlayer(10, 8, "WEST", 0), p.SeePlayer(7, 3, "WEST", 5),
                p.Toxic(4, 3, 4), p.Life(9873, 4), p.TeamChange("RED", 5), p.Start(12)]
    assert p.encode(*messages) == wire
    texts = p.Splitter().feed(wire)
    assert [p.parse_server(t) for t in texts] == messages
    assert p.encode(p.Move("SOUTH_WEST", "EAST")) == b"MOVE SOUTH_WEST EAST|"
    assert p.parse_client("MOVE SOUTH_WEST EAST") == p.Move("SOUTH_WEST", "EAST")


@pytest.mark.parametrize(("message", "text"), [
    (p.Id(3), "ID 3"), (p.IdOkay(), "ID_OKAY"), (p.IdNotOkay(), "ID_NOT_OKAY"), (p.Ping(), "PING"),
    (p.Connected(2), "CONNECTED 2"), (p.Disconnected(7), "DISCONNECTED 7"), (p.Disconnect(), "DISCONNECT"),
    (p.Map("/tmp/arena/office.map"), "MAP /tmp/arena/office.map"), (p.Life(0, 1), "LIFE 0.00 1"),
    (p.Life(10000, 0), "LIFE 100.00 0"), (p.Toxic(0, 0, 20), "TOXIC 0,0 0.20"), (p.Start(1), "START 1"),
    (p.TeamChange("BLUE", 0), "TEAMCHANGE BLUE 0"), (p.Move("NONE", "NORTH_WEST"), "MOVE NONE NORTH_WEST"),
])
def test_every_message_round_trips(message, text):
    assert p.format_message(message) == text
    parse = p.parse_client if isinstance(message, (p.IdOkay, p.IdNotOkay, p.Move)) else p.parse_server
    assert parse(text) == message


def test_decimals_parse_any_form():
    assert p.parse_hundredths("99.7") == 9970
    assert p.parse_hundredths("0.05") == 5
    assert p.parse_hundredths("100") == 10000
    assert p.parse_hundredths(".5") == 50
    assert p.parse_hundredths("0.125") == 13
    assert p.parse_server("LIFE 99.7 3") == p.Life(9970, 3)
    assert p.format_hundredths(9873) == "98.73"
    with pytest.raises(p.ProtocolError):
        p.parse_hundredths("1e3")


@pytest.mark.parametrize("text", ["0", "-0", "7", "0.004", "0.005", "-0.005", "-0.0049", "0.0050001", "1.999",
                                  "-1.995", "12.34500", "99.994999", ".995", "-.5", "5.", "-123456789.0151",
                                  "00.10"])
def test_decimals_round_half_up_as_the_decimal_module_does(text):
    from decimal import ROUND_HALF_UP, Decimal

    expected = int((Decimal(text) * 100).quantize(Decimal(1), rounding=ROUND_HALF_UP))
    assert p.parse_hundredths(text) == expected


@pytest.mark.parametrize("text", [
    "MOVE NNE NORTH", "MOVE NORTH_EAST", "MOVE NORTH_EAST NONE", "MOVE  NORTH NORTH", "move NORTH NORTH",
    "MOVE NORTH NORTH EXTRA", "HELLO", "", "ID_OKAY 3", "MOVE NORTH NORTH\n", "SET 4,3 NORTH",
])
def test_malformed_or_unknown_client_messages_raise(text):
    with pytest.raises(p.ProtocolError):
        p.parse_client(text)


@pytest.mark.parametrize("text", ["SET 4;3 NORTH", "SEE_PLAYER 1,2 UP 3", "TOXIC 1,1 abc", "LIFE 99.70",
                                  "TEAMCHANGE GREEN 1", "START x", "ID -1", "FOO"])
def test_malformed_server_messages_raise(text):
    with pytest.raises(p.ProtocolError):
        p.parse_server(text)


def test_splitter_joins_split_and_splits_packed_reads():
    wire = p.encode(p.Id(0), p.Map("/x/y.map"), p.Set(1, 2, "EAST"), p.Start(1)) * 3
    expected = ["ID 0", "MAP /x/y.map", "SET 1,2 EAST", "START 1"] * 3
    rng = random.Random(5)
    for _ in range(200):
        splitter = p.Splitter()
        got: list[str] = []
        pos = 0
        while pos < len(wire):
            step = rng.randint(1, 12)
            got += splitter.feed(wire[pos:pos + step])
            pos += step
        assert got == expected
        assert splitter.pending == 0
    assert p.Splitter().feed(b"PI") == []


def test_splitter_limit_256_bytes():
    splitter = p.Splitter()
    assert splitter.feed(b"x" * 256 + b"|") == ["x" * 256]
    with pytest.raises(p.MessageTooLong):
        p.Splitter().feed(b"x" * 257 + b"|")
    # S16: 300 bytes without '|' is detected before any terminator arrives
    splitter = p.Splitter()
    assert splitter.feed(b"M" * 200) == []
    with pytest.raises(p.MessageTooLong):
        splitter.feed(b"M" * 100)


def test_non_ascii_bytes_reach_the_parser_and_fail_there():
    (text,) = p.Splitter().feed("MOVE NORTH NÖRTH|".encode())
    with pytest.raises(p.ProtocolError):
        p.parse_client(text)


def test_messages_compare_hash_and_show_by_type_and_fields():
    assert p.Connected(3) == p.Connected(3) and p.Connected(3) != p.Disconnected(3)
    assert p.Ping() != p.Disconnect() and p.IdOkay() == p.IdOkay()
    assert p.Set(4, 3, "NORTH") != p.Set(4, 3, "EAST")
    assert len({p.Set(4, 3, "NORTH"), p.Set(4, 3, "NORTH"), p.Toxic(4, 3, 1), p.Ping(), p.Ping()}) == 3
    assert repr(p.SeePlayer(1, 2, "WEST", 5)) == "SeePlayer(x=1, y=2, view='WEST', id=5)"
    assert repr(p.Disconnect()) == "Disconnect()"
    match p.Life(9970, 3):
        case p.Life(value, n):
            assert (value, n) == (9970, 3)
    message = p.Move("EAST", "NORTH")
    with pytest.raises(AttributeError, match="immutable"):
        message.view = "WEST"  # type: ignore[misc]
    assert message == p.Move("EAST", "NORTH")
