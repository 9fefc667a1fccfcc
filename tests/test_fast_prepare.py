"""The importers' fast path (:mod:`partita.bulk.prepare`) stores exactly what
the full path stores (read, replay, prepare), or defers to it (differential).

Every record compared here goes both ways: :func:`prepare_raw` (the fast path, or
its fallback) against ``prepare_record(replay(build_record(raw)))``, field by field,
lenient and strict. The records: every shipped example (valid and invalid), and
generated games of every game and variant, written plainly or damaged the ways a
real file is (an illegal move, a wrong move number, a comment, a NAG, a suffix, a
variation, odd tags, CRLF, tabs, trailing spaces, another spelling). Other tests
check that the fast path is really taken for plain records, and never for the rest.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from budget import examples
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from partita.bulk import plain as plain_reading
from partita.bulk import prepare as fastprepare
from partita.bulk.chunks import chunks
from partita.bulk.prepare import fast_prepare, prepare_chunk, prepare_raw
from partita.bulk.validation import RecordCheck, check_chunk
from partita.database.prepare import StoredRecord, prepare_record
from partita.game.registry import all_games
from partita.notation.files import expand_paths
from partita.notation.reader import build_record, split_records
from partita.notation.replay import replay

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
GAMES = all_games()
#: Every game, with each of its rule variants and numbers of sides.
SETUPS = [
    (game, dict(variant), sides)
    for game in GAMES
    for variant in game.variants()
    for sides in range(game.rules.min_sides, game.rules.max_sides + 1)
]


def full_path(raw, strict: bool):
    return prepare_record(replay(build_record(raw), strict=strict), strict)


def assert_same(raw, strict: bool) -> bool:
    """The fast path (or its fallback) stores what the full path stores, field by
    field; True when the fast path took the record."""
    expected = full_path(raw, strict)
    got = prepare_raw(raw, strict)
    assert type(got) is type(expected)
    if isinstance(expected, StoredRecord):
        for name, want, have in zip(StoredRecord._fields, expected, got, strict=True):
            assert have == want, f"{name} differs for record {raw.source.index}"
    else:
        assert got == expected
    plain = plain_reading.replay_raw(raw, strict, text=False)
    if plain is not None:  # validation's fast path: the same check as the full path's
        assert RecordCheck.of(plain[0]) == RecordCheck.of(replay(build_record(raw), strict=strict))
    return fast_prepare(raw, strict) is not None


def raws_of(text: str) -> list:
    return list(split_records(text.encode("utf-8"), name="generated.pgr"))


# -- generated games ------------------------------------------------------------------------
def play(game, variant: dict[str, str], sides: int, rng: random.Random, length: int):
    """A random game: the tags, and each ply as (move number, opens, token)."""
    tags = {"Game": game.name, "Event": "Fast path", "Date": "2025.01.02", "Round": "1"}
    tags.update({f"Player{seat}": f"Player {seat}" for seat in range(1, sides + 1)})
    tags["Result"] = "*"  # its value once the game is played; its place the canonical one
    tags.update(variant)
    configured = game.configure(tags)
    rules = configured.rules
    state = configured.initial(sides)
    plies = []
    for _ in range(length):
        if rules.outcome(state) is not None:
            break
        forced = rules.forced_pass(state)
        move = forced if forced is not None else rules.sample_move(state, rng)
        number, opens = rules.move_number(state)
        plies.append((number, opens, configured.format_move(state, move)))
        state = rules.apply(state, move)
    outcome = rules.outcome(state)
    tags["Result"] = outcome.result_token() if outcome is not None else "*"
    return tags, plies, configured, state


def movetext(plies, result: str, numbering: str, width: int) -> str:
    """The moves with their numbers (``canonical``: as the writer numbers them;
    ``padded``: the same with a leading zero; ``every``: a number before every
    move; ``none``), in lines of ``width``."""
    units = []
    for index, (number, opens, token) in enumerate(plies):
        if numbering == "every" or (numbering != "none" and (opens or index == 0)):
            zero = "0" if numbering == "padded" else ""
            units.append(f"{zero}{number}{'.' if opens else '...'} {token}")
        else:
            units.append(token)
    units.append(result)
    lines, line = [], ""
    for unit in units:
        if line and len(line) + 1 + len(unit) > width:
            lines.append(line)
            line = unit
        else:
            line = f"{line} {unit}" if line else unit
    lines.append(line)
    return "\n".join(lines)


DAMAGES = [
    "none",
    "illegal-move",
    "unknown-token",
    "wrong-number",
    "continuation-dots",
    "comment",
    "nag",
    "suffix",
    "variation",
    "escaped-tag",
    "spaced-tag",
    "duplicate-tag",
    "unknown-tag",
    "bad-date",
    "wrong-result",
    "missing-result",
    "uppercase",
    "crlf",
    "tabs",
    "trailing-spaces",
    "blank-lines",
    "tag-order",
    "no-game",
    "number-before-result",
    "leading-zero",
    "double-space",
    "width-79",
]
#: The damages done to a ply (none for a game without moves).
PLY_DAMAGES = {
    "illegal-move",
    "unknown-token",
    "wrong-number",
    "continuation-dots",
    "comment",
    "nag",
    "suffix",
    "variation",
    "uppercase",
}


@st.composite
def generated(draw):
    """A generated record of one of the setups, written plainly or damaged once or
    twice, as text (two records, so the second's place is not the file's start)."""
    game, variant, sides = draw(st.sampled_from(SETUPS))
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    tags, plies, configured, _ = play(game, variant, sides, rng, draw(st.integers(0, 60)))
    numbering = draw(st.sampled_from(["canonical", "canonical", "every", "none"]))
    width = draw(st.sampled_from([80, 80, 30, 200]))
    damages = draw(st.lists(st.sampled_from(DAMAGES), min_size=1, max_size=2))
    plies = list(plies)
    result = tags["Result"]
    tag_lines = [f'[{name} "{value}"]' for name, value in tags.items()]
    for damage in damages:
        if not plies and damage in PLY_DAMAGES:
            continue
        at = draw(st.integers(0, max(len(plies) - 1, 0)))
        if damage == "illegal-move" and len(plies) > 1:
            number, opens, _ = plies[at]
            plies[at] = (number, opens, plies[at - 1][2])  # the move before, played again
        elif damage == "unknown-token":
            plies[at] = (plies[at][0], plies[at][1], draw(st.sampled_from(["zz9", "q", "--"])))
        elif damage == "wrong-number":
            plies[at] = (plies[at][0] + draw(st.sampled_from([1, -1, 7])), *plies[at][1:])
        elif damage == "continuation-dots":
            plies[at] = (plies[at][0], not plies[at][1], plies[at][2])
        elif damage == "comment" and plies:
            plies[at] = (*plies[at][:2], plies[at][2] + " {a comment}")
        elif damage == "nag":
            plies[at] = (*plies[at][:2], plies[at][2] + " $1")
        elif damage == "suffix" and plies:
            plies[at] = (*plies[at][:2], plies[at][2] + draw(st.sampled_from(["!", "?!"])))
        elif damage == "variation" and len(plies) > 1:
            plies[at] = (*plies[at][:2], f"{plies[at][2]} ( {plies[at - 1][2]} )")
        elif damage == "escaped-tag":
            tag_lines.append('[Annotator "A \\"quoted\\" name"]')
        elif damage == "spaced-tag":
            tag_lines[0] = tag_lines[0].replace("[", "[ ").replace('"]', '" ]')
        elif damage == "duplicate-tag":
            tag_lines.append('[Event "Another"]')
        elif damage == "unknown-tag":
            tag_lines.append('[Opening_2 "Any value, with; a {brace}"]')
        elif damage == "bad-date":
            tag_lines = [line.replace("2025.01.02", "2025.13.40") for line in tag_lines]
        elif damage == "wrong-result":
            result = "1-0" if result != "1-0" else "0-1"
        elif damage == "missing-result":
            result = ""
        elif damage == "uppercase" and plies:
            plies[at] = (*plies[at][:2], plies[at][2].upper())
        elif damage == "tag-order":
            tag_lines.reverse()
        elif damage == "no-game":
            tag_lines = [line for line in tag_lines if not line.startswith("[Game ")]
        elif damage == "leading-zero":
            numbering = "padded"
        elif damage == "width-79":
            width = 79
        elif damage == "number-before-result":
            result = f"{(plies[-1][0] if plies else 0) + 1}. {result}".rstrip()
    text = "\n".join(tag_lines) + "\n\n" + movetext(plies, result, numbering, width).strip()
    text += "\n"
    if "double-space" in damages:
        text = text.replace(" ", "  ", draw(st.integers(1, 3)))
    if "blank-lines" in damages:
        text = text.replace("\n\n", "\n\n\n").replace("]\n[", "]\n\n[", 1)
    if "trailing-spaces" in damages:
        text = text.replace("\n", "  \n")
    if "tabs" in damages:
        text = text.replace(" ", "\t", 3)
    if "crlf" in damages:
        text = text.replace("\n", "\r\n")
    return text + "\n" + text


@settings(
    max_examples=examples(400, fast=120),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(text=generated(), strict=st.booleans())
def test_fast_path_stores_what_the_full_path_stores_on_generated_records(text, strict):
    for raw in raws_of(text):
        event("fast path" if assert_same(raw, strict) else "full path")


def test_fast_path_stores_what_the_full_path_stores_on_every_example():
    count = 0
    for path in expand_paths([EXAMPLES]):
        for raw in split_records(path):
            for strict in (False, True):
                assert_same(raw, strict)
            count += 1
    assert count > 100  # the examples were found


# -- the fast path is taken where it should be, and only there -----------------------------
@pytest.mark.parametrize(
    ("game", "variant", "sides"), SETUPS, ids=lambda value: getattr(value, "name", str(value))
)
def test_fast_path_takes_plain_records_of_every_game(game, variant, sides, monkeypatch):
    """Plain records in canonical form take the fast path, and their text is kept as
    it is (the writer is not called)."""

    def no_writer(*args):
        raise AssertionError("a canonical record was written again")

    monkeypatch.setattr(plain_reading, "write_mainline", no_writer)
    taken = 0
    for seed in range(12):
        rng = random.Random(seed)
        tags, plies, _, _ = play(game, variant, sides, rng, rng.randrange(0, 50))
        if any(token == "--" for _, _, token in plies):
            continue  # a pass: the full path checks it
        text = "\n".join(f'[{n} "{v}"]' for n, v in tags.items()) + "\n\n"
        text += movetext(plies, tags["Result"], "canonical", 80) + "\n"
        (raw,) = raws_of(text)
        assert assert_same(raw, False), f"seed {seed}: a plain record took the full path"
        stored = fast_prepare(raw, False)
        assert stored is not None
        assert stored.game[18] == text, "a canonical record is stored as it was written"
        taken += 1
    assert taken >= 3


def test_fast_path_reads_non_canonical_numbering_and_wrapping():
    """Numbers before every move, long lines: still plain; the stored text is the
    canonical one, not the input."""
    game = next(game for game in GAMES if game.rules.min_sides == game.rules.max_sides == 2)
    tags, plies, _, _ = play(game, {}, 2, random.Random(5), 30)
    assert not any(token == "--" for _, _, token in plies)
    text = "\n".join(f'[{n} "{v}"]' for n, v in tags.items()) + "\n\n"
    (raw,) = raws_of(text + movetext(plies, tags["Result"], "every", 200) + "\n")
    assert assert_same(raw, False)
    canonical = text + movetext(plies, tags["Result"], "canonical", 80) + "\n"
    stored = fast_prepare(raw, False)
    assert stored is not None and stored.game[18] == canonical


@pytest.mark.parametrize(
    "damage",
    [
        "1. {a comment} ",
        "$1 ",
        "( ) ",
        "; a line comment\n",
        "\t",
        "1.. ",
    ],
)
def test_fast_path_defers_records_with_annotations_or_odd_text(damage):
    game = next(game for game in GAMES if game.rules.min_sides == game.rules.max_sides == 2)
    tags, plies, _, _ = play(game, {}, 2, random.Random(3), 20)
    text = "\n".join(f'[{n} "{v}"]' for n, v in tags.items()) + "\n\n"
    plain = movetext(plies, tags["Result"], "canonical", 80)
    first, _, rest = plain.partition(" ")
    (raw,) = raws_of(f"{text}{first} {plies[0][2]} {damage}{rest.split(' ', 1)[1]}\n")
    assert not assert_same(raw, False), damage


def test_fast_path_defers_every_invalid_example():
    for path in expand_paths([EXAMPLES / "invalid"]):
        for raw in split_records(path):
            assert fast_prepare(raw, False) is None, (path.name, raw.source.index)


def test_prepare_chunk_takes_the_fast_path_and_can_be_turned_off(monkeypatch, tmp_path):
    """prepare_chunk (serial, parallel and scheduled imports) goes through
    prepare_raw; PARTITA_FULL_PATH=1 prepares every record the full way, with the
    same rows."""
    game = next(game for game in GAMES if game.rules.min_sides == game.rules.max_sides == 2)
    texts = []
    for seed in range(6):
        tags, plies, _, _ = play(game, {}, 2, random.Random(seed), 40)
        texts.append(
            "\n".join(f'[{n} "{v}"]' for n, v in tags.items())
            + "\n\n"
            + movetext(plies, tags["Result"], "canonical", 80)
            + "\n"
        )
    path = tmp_path / "plain.pgr"
    path.write_text("\n".join(texts), encoding="utf-8")
    (chunk,) = chunks([path], False, 1 << 20)
    calls = []
    real = fastprepare.fast_prepare

    def counting(raw, strict):
        stored = real(raw, strict)
        calls.append(stored is not None)
        return stored

    monkeypatch.setattr(fastprepare, "fast_prepare", counting)
    fast = prepare_chunk(chunk.data)
    assert calls == [True] * 6
    monkeypatch.setenv(fastprepare.FULL_PATH_VARIABLE, "1")
    calls.clear()
    full = prepare_chunk(chunk.data)
    assert calls == []
    assert fast == full
    monkeypatch.delenv(fastprepare.FULL_PATH_VARIABLE)
    checks = check_chunk(chunk.data)
    monkeypatch.setenv(fastprepare.FULL_PATH_VARIABLE, "1")
    assert checks == check_chunk(chunk.data)
    assert all(check.valid for check in checks)
