"""An outcome whose reason an engine leaves to its first reader (``Outcome.win_for``
and ``draw`` given a function) is, to every reader, the Outcome with that reason."""

from __future__ import annotations

import copy
import pickle
from dataclasses import FrozenInstanceError, asdict

import pytest
from hypothesis import given
from hypothesis import strategies as st

from partita.game.rules import DRAW, LOSS, WIN, Outcome


class Explainer:
    """A reason function that counts its calls."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        self.calls = 0

    def __call__(self) -> str:
        self.calls += 1
        return self.reason


def test_the_reason_is_written_once_on_first_reading():
    explain = Explainer("x has four in a row (row 1, columns 1-4)")
    outcome = Outcome.win_for(0, 2, explain)
    assert outcome.scores == (WIN, LOSS) and outcome.winner == 0
    assert outcome.result_token() == "1-0"
    assert explain.calls == 0  # scores and result read without the reason
    assert outcome.reason == "x has four in a row (row 1, columns 1-4)"
    assert outcome.reason == "x has four in a row (row 1, columns 1-4)"
    assert explain.calls == 1


@given(
    winner=st.one_of(st.none(), st.integers(0, 3)),
    sides=st.integers(2, 4),
    reason=st.text(max_size=20),
)
def test_a_deferred_reason_reads_as_the_outcome_with_that_reason(winner, sides, reason):
    if winner is None:
        eager, lazy = Outcome.draw(sides, reason), Outcome.draw(sides, Explainer(reason))
        assert lazy.scores == (DRAW,) * sides
    else:
        eager = Outcome.win_for(winner, sides, reason)
        lazy = Outcome.win_for(winner, sides, Explainer(reason))
    assert type(eager) is Outcome
    assert lazy == eager and eager == lazy
    assert hash(lazy) == hash(eager) and {eager: 1}[lazy] == 1
    assert repr(lazy) == repr(eager)
    assert asdict(lazy) == asdict(eager) == {"scores": eager.scores, "reason": reason}
    for twin in (pickle.loads(pickle.dumps(lazy)), copy.deepcopy(lazy), copy.copy(lazy)):
        assert type(twin) is Outcome and twin == eager
    assert lazy != Outcome(eager.scores, reason + "!")
    assert lazy != "an outcome"


def test_a_deferred_reason_is_frozen_like_any_outcome():
    outcome = Outcome.win_for(1, 2, Explainer("o wins"))
    with pytest.raises(FrozenInstanceError):
        outcome.reason = "x wins"  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        outcome.scores = ()  # type: ignore[misc]
    assert outcome.reason == "o wins"
