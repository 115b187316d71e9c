"""common/cli.py: the shared argument parser."""

from __future__ import annotations

import pytest

from common.cli import Parser, UsageError


def _parser() -> Parser:
    parser = Parser(prog="demo")
    parser.add_argument("-m", type=float)
    parser.add_argument("-n", type=int)
    return parser


@pytest.mark.parametrize(("argv", "m"), [
    (["-m", "-1e308"], -1e308), (["-m", "-1e-3"], -1e-3), (["-m", "-2.5E+1"], -25.0), (["-m", "-.5"], -0.5),
    (["-m", "-7."], -7.0), (["-m", "-3"], -3.0),
])
def test_negative_numbers_in_every_float_form_are_values(argv, m):
    assert _parser().parse_args(argv).m == m


def test_an_unknown_option_is_still_an_error():
    with pytest.raises(UsageError, match="expected one argument"):
        _parser().parse_args(["-m", "-x"])
    with pytest.raises(UsageError, match="unrecognized arguments: -e5"):
        _parser().parse_args(["-e5"])
