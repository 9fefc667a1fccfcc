"""The SQL forms of ``fold`` and ``number`` (sqlfunctions.fold_sql, number_sql) that
fill the indexed players and tags: the same value as the Python functions for any
text, and no Python call for the ordinary names and tag values."""

from __future__ import annotations

import sqlite3

import pytest
from budget import examples
from hypothesis import example, given, settings
from hypothesis import strategies as st

from partita.database.folding import fold, number
from partita.database.sqlfunctions import fold_sql, number_sql

#: Characters that make numbers, dates, results and names, so that the strategies
#: reach every branch of the expressions (not only "no number").
_NUMBERISH = st.text(alphabet="0123456789.+-eE \t\n\x1c/:,_a١٢", max_size=20)
_TEXT = st.one_of(st.text(max_size=20), _NUMBERISH)


def _connection(calls: list[str]) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")

    def counted(name, function):
        def call(value):
            calls.append(name)
            return function(value)

        return call

    conn.create_function("partita_fold", 1, counted("fold", fold), deterministic=True)
    conn.create_function("partita_number", 1, counted("number", number), deterministic=True)
    return conn


def _evaluate(conn: sqlite3.Connection, expression, value: str):
    """``expression("x")`` for ``x`` = ``value``."""
    return conn.execute(
        f"WITH v(x) AS (SELECT ?) SELECT {expression('x')} FROM v", (value,)
    ).fetchone()[0]


def _sql(expression, value: str):
    return _evaluate(_connection([]), expression, value)


@settings(max_examples=examples(1000, fast=200), deadline=None)
@given(_TEXT)
@example("1850")
@example("-2.5")
@example(" 12 ")
@example("1e5")
@example("2024.03.01")
@example("0-1")
@example("1/2-1/2")
@example("٣")
@example("9" * 15)
@example("9" * 16)
@example("")
@example("0\x1f")
def test_number_sql_is_number(value: str) -> None:
    assert _sql(number_sql, value) == number(value)


@settings(max_examples=examples(1000, fast=200), deadline=None)
@given(st.one_of(st.text(max_size=20), st.text(alphabet=st.characters(max_codepoint=127))))
@example("Zoë")
@example("ZOE")
@example("Işık")
@example("a\x00B")
@example("㎒")
def test_fold_sql_is_fold(name: str) -> None:
    assert _sql(fold_sql, name) == fold(name)


@pytest.mark.parametrize(
    "value",
    ["Benchmark Open 1", "Milano", "2024.04.21", "17", "0-1", "1-0", "1/2-1/2", "forza4x4"],
)
def test_common_tag_values_need_no_python(value: str) -> None:
    calls: list[str] = []
    _evaluate(_connection(calls), number_sql, value)
    assert calls == []


def test_ascii_names_need_no_python_and_others_do() -> None:
    calls: list[str] = []
    conn = _connection(calls)
    assert _evaluate(conn, fold_sql, "Irene GALLO") == "irene gallo"
    assert calls == []
    assert _evaluate(conn, fold_sql, "Zoë") == "zoe"
    assert calls == ["fold"]


def test_a_separator_float_refuses_makes_no_number() -> None:
    # the pattern's \s takes \x1f, float() does not: no number, not an error
    assert number("0\x1f") is None
    assert number(" 7\t") == 7.0
