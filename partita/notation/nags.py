"""What a NAG (``$N`` in movetext) means, for display: its symbol and its words.

The record format follows PGN for NAGs (see the record-format spec): ``$1`` to
``$6`` are the move suffixes written as NAGs (``!``, ``?``, ``!!``, ``??``, ``!?``,
``?!``), and the others keep PGN's standard meanings where they are not about
chess alone (a forced move, an even or unclear position, who stands better). A NAG
outside this table is shown as written, ``$N``.
"""

from __future__ import annotations

__all__ = ["NAGS", "nag_meaning", "nag_symbol"]

#: ``N: (symbol, meaning)`` of the NAGs shown by name.
NAGS: dict[int, tuple[str, str]] = {
    1: ("!", "good move"),
    2: ("?", "poor move"),
    3: ("!!", "very good move"),
    4: ("??", "very poor move"),
    5: ("!?", "speculative move"),
    6: ("?!", "questionable move"),
    7: ("□", "forced move (the only one)"),
    8: ("□", "singular move (no reasonable alternative)"),
    9: ("??", "worst move"),
    10: ("=", "even position"),
    11: ("=", "equal chances, quiet position"),
    12: ("=", "equal chances, active position"),
    13: ("∞", "unclear position"),
    14: ("⩲", "the first side stands slightly better"),
    15: ("⩱", "the second side stands slightly better"),
    16: ("±", "the first side stands moderately better"),
    17: ("∓", "the second side stands moderately better"),
    18: ("+−", "the first side has a decisive advantage"),
    19: ("−+", "the second side has a decisive advantage"),
    22: ("⨀", "the first side is in zugzwang"),
    23: ("⨀", "the second side is in zugzwang"),
    32: ("⟳", "the first side has a development advantage"),
    33: ("⟳", "the second side has a development advantage"),
    36: ("→", "the first side has the initiative"),
    37: ("→", "the second side has the initiative"),
    40: ("↑", "the first side has the attack"),
    41: ("↑", "the second side has the attack"),
    44: ("=∞", "the first side has compensation"),
    45: ("=∞", "the second side has compensation"),
    132: ("⇆", "the first side has counterplay"),
    133: ("⇆", "the second side has counterplay"),
    138: ("⊕", "the first side is short of time"),
    139: ("⊕", "the second side is short of time"),
    140: ("∆", "with the idea"),
    146: ("N", "novelty"),
}


def nag_symbol(nag: int) -> str:
    """The symbol shown for ``$nag`` (``$7``: ``□``), or ``$nag`` itself when it
    has none."""
    found = NAGS.get(nag)
    return found[0] if found is not None else f"${nag}"


def nag_meaning(nag: int) -> str:
    """What ``$nag`` means in words, or ``""`` when it has no standard meaning here."""
    found = NAGS.get(nag)
    return found[1] if found is not None else ""
