"""common/cli.py: the shared argument parser."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from deadline import deadline

from common.cli import EXIT_FAULT, Parser, UsageError, exit_on_signals, run_main, signals_ignored


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
    with pytest.raises(UsageError) as error:
        _parser().parse_args(["-e5"])
    assert str(error.value) == "unrecognized arguments: -e5 (demo --help shows the usage)"


def test_a_full_disk_is_one_line_and_status_1(capsys, tmp_path):
    # `arena tournament ... > /dev/full` ended in a traceback from the last print.
    def body() -> int:
        raise OSError(28, "No space left on device")

    assert run_main("demo", body) == EXIT_FAULT
    assert capsys.readouterr().err == "demo: cannot write the output: No space left on device\n"

    def named() -> int:
        raise OSError(28, "No space left on device", "game.json")

    assert run_main("demo", named) == EXIT_FAULT
    assert capsys.readouterr().err == "demo: game.json: No space left on device\n"
    with pytest.raises(FileNotFoundError):  # any other OSError is a fault, with its traceback
        run_main("demo", lambda: open(tmp_path / "missing").close() or 0)


def test_output_to_a_full_disk_through_a_real_write():
    code = ("import sys; from common.cli import run_main; "
            "sys.exit(run_main('demo', lambda: print('x' * 99999) or 0))")
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-c", code], stdout=full, stderr=subprocess.PIPE, text=True,
                              check=False)
    assert (proc.returncode, proc.stderr) == (1, "demo: cannot write the output: No space left on device\n")


def test_the_first_signal_ends_the_block_and_the_later_ones_are_ignored():
    # A second SIGTERM while the first one's files are put back must not cut that short.
    previous = signal.getsignal(signal.SIGTERM)
    with exit_on_signals():
        with signals_ignored():
            os.kill(os.getpid(), signal.SIGTERM)
            os.kill(os.getpid(), signal.SIGHUP)
        with pytest.raises(SystemExit) as ended:
            os.kill(os.getpid(), signal.SIGTERM)   # handled as soon as the call returns
        os.kill(os.getpid(), signal.SIGHUP)       # while the first one's work goes on, later ones are ignored
        os.kill(os.getpid(), signal.SIGINT)
    assert ended.value.code == 143
    assert signal.getsignal(signal.SIGTERM) == previous




# Ctrl-C while a command imports its game (a fifth of a second for motti's numpy and scipy) printed Python's
# traceback. The command's script (or python -m GAME) runs here with an import hook that raises it there.
INTERRUPTED_IMPORT = """import runpy, sys
target, how, game, script = sys.argv[1:]
class CtrlC:
    def find_spec(self, name, path=None, module=None):
        if name == target:
            raise KeyboardInterrupt
sys.meta_path.insert(0, CtrlC())
sys.argv[1:] = []
if how == "-m":
    runpy.run_module(game, run_name="__main__", alter_sys=True)
else:
    runpy.run_path(script, run_name="__main__")
"""


@pytest.mark.parametrize("game", ["motti", "starlanes", "arena"])
@pytest.mark.parametrize("how", ["command", "-m"])
@pytest.mark.parametrize("during", ["the game's cli", "argparse"])
def test_ctrl_c_while_a_command_imports_its_game_is_status_130_without_a_traceback(game, how, during):
    script = Path(sys.executable).parent / game
    target = f"{game}.cli" if during == "the game's cli" else during
    done = subprocess.run([sys.executable, "-c", INTERRUPTED_IMPORT, target, how, game, str(script)],
                          capture_output=True, text=True, timeout=deadline(30))
    assert (done.returncode, done.stdout, done.stderr) == (130, "", "")


def test_the_signals_a_program_was_started_ignoring_stay_ignored():
    # nohup starts a program ignoring SIGHUP (a shell's script, its background jobs ignoring SIGINT); the
    # programs handled them anyway, and a closed terminal stopped a game or a tournament under nohup
    code = ("import signal; from common.cli import exit_on_signals, not_ignored\n"
            "print([int(s) for s in not_ignored([signal.SIGINT, signal.SIGTERM, signal.SIGHUP])])\n"
            "with exit_on_signals():\n"
            "    print([signal.getsignal(s) is signal.SIG_IGN for s in (signal.SIGHUP, signal.SIGTERM)])\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=deadline(20),
                          preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))
    said = done.stdout.splitlines()
    assert said == [f"[{int(signal.SIGINT)}, {int(signal.SIGTERM)}]", "[True, False]"], done.stderr
