"""The words of Star Lanes shared by the curses and the X front end (spec/starlanes.md §3, §6, §7, §9, §10).

Pure text: no curses, no pygame. A page is a list of ``(text, style)`` lines with the styles ``""`` (plain),
``"bold"``, ``"dim"`` and ``"head"`` (a table header); a line whose text is a tuple is a table row whose cells
are text (left-aligned) or ``(number, prefix)`` pairs (right-aligned numbers, :data:`common.term.Cell`). Each
front end lays the pages out in its own way.
"""

from __future__ import annotations

from collections.abc import Sequence

from common.term import Cell
from starlanes.rules import (
    COMPANY_NAMES,
    Destroyed,
    Event,
    Game,
    Merged,
    NewCompany,
    Split,
    Stillborn,
    SuckedSite,
    Trade,
)

Line = tuple[str | tuple[Cell, ...], str]
Page = list[Line]

MERGER_HEADERS = ("Player", "Old Stock", "New Stock", "Total Holdings", "Bonus")
END_REASONS = {
    "sectors": "The game is over: the companies fill 65 sectors.",
    "moves": "The game is over: all 48 moves have been played.",
    "no moves": "The game is over: no sector can be offered any more.",
}


def sentence(text: str) -> str:
    """``text`` ending with a full stop, without doubling one it already has (``Beetlejuice, Ltd.``)."""
    return text if text.endswith((".", "!", "?")) else text + "."


def move_prompt(name: str, count: int) -> str:
    """The move prompt of spec §10: ``Ann, enter your move [1-5]:`` (``[1]`` when one cell is offered)."""
    choices = "1" if count == 1 else f"1-{count}"
    return f"{name}, enter your move [{choices}]:"


def computer_move(name: str, index: int) -> str:
    """A computer player's move (``index`` 0-based, shown 1-based)."""
    return f"{name} (computer) takes move {index + 1}."


def trade_report(name: str, trade: Trade, company_names: Sequence[str] = COMPANY_NAMES) -> str:
    """A computer player's trade: ``HAL buys 60 shares of Altair Starways.`` (``HAL keeps Altair Starways.``
    for the amount 0 of the 1977 trading)."""
    company = company_names[trade.company]
    if trade.amount == 0:
        return sentence(f"{name} keeps {company}")
    verb = "buys" if trade.amount > 0 else "sells"
    return sentence(f"{name} {verb} {abs(trade.amount)} shares of {company}")


TITLES = {"1995": "Star Lanes", "1977": "Star Lanes 1977"}


def title(game: Game) -> str:
    """The game's title by its rule set: ``Star Lanes`` (1995), ``Star Lanes 1977``."""
    return TITLES[game.rules.name]


def remaining_text(game: Game) -> str:
    """How far the end is: the company sectors left (1995, spec §10) or the moves left (1977 §11)."""
    moves = game.moves_remaining()
    if moves is not None:
        return f"Moves remaining: {moves}"
    return f"Available company sectors remaining: {max(game.sectors_remaining(), 0)}"


def event_pages(events: Sequence[Event], names: Sequence[str],
                company_names: Sequence[str] = COMPANY_NAMES) -> list[Page]:
    """The announcements of ``events`` (spec §3, §6, §7), one page per announcement; the merger's stock
    transactions are a table page of their own (:data:`MERGER_HEADERS`, numbers as cells). ``company_names``
    are the rule set's (``game.rules.company_names``)."""
    pages: list[Page] = []
    for event in events:
        if isinstance(event, SuckedSite):
            pages.append([("The new company site just placed has been sucked into a black hole!", "bold")])
        elif isinstance(event, NewCompany):
            pages.append([("A new shipping company has been formed!", "bold"),
                          (sentence(f"Its name is {company_names[event.company]}"), "")])
        elif isinstance(event, Stillborn):
            pages.append([(f"The company that would have been named {company_names[event.company]}", "bold"),
                          ("has been sucked into a black hole!", "bold")])
        elif isinstance(event, Destroyed):
            pages.append([(f"{company_names[event.company]} has been sucked into a black hole!", "bold"),
                          ("All players' holdings lost.", "")])
        elif isinstance(event, Merged):
            loser, survivor = company_names[event.loser], company_names[event.survivor]
            pages.append([(sentence(f"{loser} has just been merged into {survivor}"), "bold")])
            rows: Page = [(MERGER_HEADERS, "head")]
            rows += [((names[r.player], (r.old_stock, ""), (r.new_stock, ""), (r.total_holdings, ""),
                       (r.bonus, "$")), "") for r in event.rows]
            pages.append([(f"Stock transactions of the merger into {survivor}:", "bold"), *rows])
        elif isinstance(event, Split):
            pages.append([(f"The stock of {company_names[event.company]} has split two-for-one!", "bold")])
    return pages


def end_reason(game: Game) -> str | None:
    """Why the game ended (spec §9), or None while it goes on (a quit game included)."""
    reason = game.end_reason()
    return None if reason is None else END_REASONS[reason]
