"""Notation of Forceball: the turn log and the table position.

Grammar only here (the BNF is in ``docs/forceball.md``); the meaning comes from
:mod:`partita.games.forceball.rules` (the moves are
:mod:`partita.games.forceball.values`). One token per ply:

* ``deck:c12,c3.1,...`` the deck order of a new period, top card first;
* ``face:c4,c20`` one showing of a face-off (Player1's card, Player2's card);
* a turn: its actions in order, each opened by its own sign, as in
  ``>+c12@c17^2^c3`` (draw, speed up with c12, play c17, lay two speed cards and c3
  on it) or ``>/>3`` (draw, do not respond; the winner draws 3).

Card ids are letters, digits and ``_`` (and ``.n`` for a copy), so every sign
below is unambiguous without separators. Tokens are read by the same patterns
compiled with ``re`` first (fast, shared cache); the pyparsing grammar reads what
they refuse and names the place of a syntax error.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from partita.errors import IllegalMoveError, NotationError, SetupError
from partita.game.notation import GameNotation, parse_position_text
from partita.game.rules import CHANCE, DIGITS
from partita.games.forceball.rules import ForceballRules
from partita.games.forceball.values import (
    EMPTY,
    FACEOFF,
    LEAGUES,
    OVER,
    SHUFFLE,
    TURN,
    TYPE_LETTERS,
    TYPE_OF_LETTER,
    Action,
    Draw,
    End,
    FaceOff,
    ForceballState,
    ForceHand,
    ForceSpeed,
    Maneuver,
    Play,
    RefereeCheck,
    Rehand,
    RewardHand,
    RewardSpeed,
    Shuffle,
    Special,
    SpeedDown,
    SpeedSwap,
    SpeedUp,
    Stakes,
    Transform,
    Turn,
)
from partita.notation.lazy import lazy_grammar

if TYPE_CHECKING:
    import pyparsing as pp

__all__ = ["FORCEBALL", "MOVE", "POSITION", "ForceballNotation"]

# -- grammars (built on first use; no packrat)--------------------------------------------

_ID = r"[A-Za-z][A-Za-z0-9_]{0,15}(?:\.[1-9][0-9]{0,2})?"
_IDS = rf"{_ID}(?:,{_ID})*"


#: Each turn action: its pattern (named groups give its fields) and its name.
_ACTION_PATTERNS = [
    (rf">(?P<reward>{DIGITS})", "reward draws ('>3')"),
    (rf">(?P<onto>(?:{_ID}|_)(?:,(?:{_ID}|_))*)", "reward onto the speed pile ('>c4,c7')"),
    (r">", "draw ('>')"),
    (rf"\+(?P<up>{_ID})", "speed increase ('+c12')"),
    (r"-", "speed decrease ('-')"),
    (rf"~(?P<swap>{_ID})", "speed restructure ('~c12')"),
    (rf"%(?P<transform>{DIGITS})", "speed transform ('%2')"),
    (rf"#(?P<discards>{_IDS})>(?P<redraw>{DIGITS})", "hand restructure ('#c1,c2>2')"),
    (rf"@(?P<play>{_ID})(?:=(?P<declared>[SPDIBTspdibt]))?", "maneuver ('@c17', '@c17=S')"),
    (rf"\^(?P<fromspeed>{DIGITS})", "force from the speed pile ('^2')"),
    (rf"\^(?P<fromhand>{_ID})", "force from the hand ('^c3')"),
    (rf":(?P<referee>{_ID})", "referee check (':c40')"),
    (r"\*(?P<stakes>[yYnN])", "raised stakes ('*y', '*n')"),
    (r"/", "end of the attack ('/')"),
    (rf"\|(?P<special>{_ID})", "Lucky shot or Goalie ('|c9')"),
]
_SHUFFLE_PATTERN = rf"deck:(?P<order>{_IDS})"
_FACE_PATTERN = rf"face:(?P<first>{_ID}),(?P<second>{_ID})"


def _turn_token() -> pp.ParserElement:
    import pyparsing as pp

    actions = [
        pp.Regex(pattern).set_name(name).leave_whitespace() for pattern, name in _ACTION_PATTERNS
    ]
    action = pp.MatchFirst([pp.Group(action) for action in actions]).set_name("turn action")
    return pp.OneOrMore(action).leave_whitespace().set_name("turn")


def _move() -> pp.ParserElement:
    import pyparsing as pp

    shuffle = pp.Regex(_SHUFFLE_PATTERN).set_name("deck order ('deck:c1,c2,...')")
    face = pp.Regex(_FACE_PATTERN).set_name("face-off ('face:c4,c20')")
    return (shuffle | face | _turn_token()).leave_whitespace().set_name("Forceball ply")


#: A turn: one or more actions.
TURN_TOKEN = lazy_grammar(_turn_token)
#: One ply: a shuffle, a face-off showing or a turn.
MOVE = lazy_grammar(_move)

# The same patterns compiled with ``re``: the fast path of :meth:`ForceballNotation.move`
# accepts exactly what the grammar accepts (each action is the first pattern that
# matches at its place, as in the grammar's MatchFirst; a differential test checks it).
_FAST_ACTIONS = [re.compile(pattern) for pattern, _ in _ACTION_PATTERNS]
_FAST_SHUFFLE = re.compile(_SHUFFLE_PATTERN)
_FAST_FACE = re.compile(_FACE_PATTERN)

_LIST = rf"-|{_ID}(?:,{_ID})*"
_MANEUVER = rf"{_ID}(?:=[SPDIBT])?(?:\^{_ID})*"
_PILE = rf"-|{_MANEUVER}(?:,{_MANEUVER})*"


def _position() -> pp.ParserElement:
    import pyparsing as pp

    def field(name: str, pattern: str, what: str) -> pp.ParserElement:
        return pp.Regex(rf"{name}=(?P<{name}>{pattern})").set_name(f"{name}=<{what}>")

    gap = pp.Suppress(pp.White(" \t")).set_name("a space")
    fields = [
        field("next", r"shuffle|faceoff|over|[12]", "shuffle, faceoff, 1 or 2"),
        field("period", DIGITS, "number"),
        field("score", rf"{DIGITS}-{DIGITS}", "points-points"),
        field("attacker", r"[12]", "1 or 2"),
        field("goal", DIGITS, "points a goal is worth"),
        field("doubled", r"-|[12]", "- or the seat that doubled last"),
        field("dealt", DIGITS, "draw pile size after the deal"),
        field("draw", _LIST, "cards, top first"),
        field("discard", _LIST, "cards, bottom first"),
        field("hand1", _LIST, "cards"),
        field("hand2", _LIST, "cards"),
        field("speed1", _LIST, "cards, bottom first"),
        field("speed2", _LIST, "cards, bottom first"),
        field("pile1", _PILE, "maneuvers, oldest first"),
        field("pile2", _PILE, "maneuvers, oldest first"),
    ]
    position = fields[0]
    for element in fields[1:]:
        position = position + gap - element
    return position.leave_whitespace().set_name("position")


#: A position: the fields in this order, separated by spaces.
POSITION = lazy_grammar(_position)


def _ids_text(ids: Sequence[str]) -> str:
    return ",".join(ids) if ids else "-"


@lru_cache(maxsize=100_000)
def _cached_move(text: str) -> Shuffle | FaceOff | Turn:
    """The move a token spells, remembered for every configuration (syntax does not
    depend on it)."""
    move = _fast_move(text)
    return parse_token(text) if move is None else move


class ForceballNotation(GameNotation[ForceballState, Shuffle | FaceOff | Turn]):
    """Turn-log tokens and table positions around a :class:`ForceballRules` engine."""

    rules: ForceballRules

    @property
    def title(self) -> str:
        return self.rules.title

    def configure(self, tags: Mapping[str, str]) -> ForceballNotation:
        """Resolve the Deck tag (``TagError`` for an unknown deck), then the league."""
        from partita.games.forceball.decks import get_deck

        rules = self.rules
        deck_name = tags.get("Deck", "example")
        if deck_name != rules.deck.name:
            rules = rules.with_deck(get_deck(deck_name))
        rules = rules.configure(tags)
        return self if rules is self.rules else ForceballNotation(rules)

    def variants(self) -> Sequence[Mapping[str, str]]:
        return tuple({"League": league} for league in LEAGUES)

    # -- moves -------------------------------------------------------------------------
    def move(self, text: str) -> Shuffle | FaceOff | Turn:
        """The move a token spells (syntax only); ``NotationError`` if malformed."""
        return _cached_move(text)

    def canonical_token(self, text: str) -> str:
        return _format(self.move(text))

    def parse_move(self, state: ForceballState, text: str) -> Any:
        move = self.move(text)
        reason = self.rules.illegal_reason(state, move)
        if reason is not None:
            raise IllegalMoveError.of(text, reason, self._ply_name(state))
        return move

    def _ply_name(self, state: ForceballState) -> str:
        number = state.ply + 1
        if state.phase == TURN:
            return f"turn {number} (Player{state.to_move + 1})"
        if state.phase == SHUFFLE:
            return f"turn {number} (the shuffle of period {state.period + 1})"
        if state.phase == FACEOFF:
            return f"turn {number} (a face-off)"
        return f"turn {number}"

    def format_move(self, state: ForceballState, move: Any) -> str:
        return _format(move)

    def format_move_for(self, state: ForceballState, move: Any, viewer: int | None) -> str:
        """The token with what ``viewer`` cannot see as ``?``: the deck order of a
        shuffle, and the cards the opponent puts face down (on his speed pile with
        ``+`` or ``~``, on the discard pile with ``#``)."""
        if viewer is None:
            return _format(move)
        if isinstance(move, Shuffle):
            return f"deck:({len(move.order)} cards shuffled)"
        if isinstance(move, Turn) and state.to_move != viewer:
            return "".join(_hidden_action(action) for action in move.actions)
        return _format(move)

    def format_choice(self, state: ForceballState, move: Any, index: int) -> str:
        """The opponent's part of a turn as he types it at the table: ``*y`` or
        ``*n`` for his answer to raised stakes, ``/`` and what follows it (``/>3``,
        ``/|c12``, just ``/`` for nothing) for his part as the attack's winner."""
        from partita.games.forceball.choices import choice_start

        actions = move.actions
        start = choice_start(state, move, index)
        last = actions[start - 1]
        if isinstance(last, Stakes):
            return _format_action(last)
        return "".join(_format_action(action) for action in actions[start - 1 :])

    def format_asking(
        self, state: ForceballState, move: Any, index: int, viewer: int | None
    ) -> str:
        """The mover's actions before the opponent's part, as ``viewer`` sees them,
        ending in ``*`` (raised stakes requested) or ``/`` (the attack is over)."""
        from partita.games.forceball.choices import choice_start

        actions = move.actions
        start = choice_start(state, move, index)
        if isinstance(actions[start - 1], Stakes):
            return self.format_move_for(state, Turn(actions[: start - 1]), viewer) + "*"
        return self.format_move_for(state, Turn(actions[:start]), viewer)

    def format_position_for(self, state: ForceballState, viewer: int | None) -> str:
        """The position with ``?`` for each card ``viewer`` cannot see: the draw pile
        below its top, the discard pile, the opponent's hand and speed pile."""
        if viewer is None:
            return self.format_position(state)
        hidden = dict.fromkeys(
            [*state.draw[1:], *state.discard, *state.hands[1 - viewer], *state.speed[1 - viewer]]
        )
        fields = self.format_position(state).split(" ")
        ids = {card_id: card for card, card_id in enumerate(self.rules.ids)}
        shown = []
        for field in fields:
            name, _, value = field.partition("=")
            if name in ("draw", "discard", "hand1", "hand2", "speed1", "speed2") and value != "-":
                value = ",".join(
                    "?" if ids[card_id] in hidden else card_id for card_id in value.split(",")
                )
            shown.append(f"{name}={value}")
        return " ".join(shown)

    # -- positions -------------------------------------------------------------------------
    def parse_position(self, text: str, sides: int | None = None) -> ForceballState:
        rules = self.rules
        if sides is not None and sides != 2:
            raise SetupError(f"Forceball is played by 2 sides, not {sides}")
        fields = parse_position_text(POSITION, text)

        def cards(name: str) -> tuple[int, ...]:
            value = fields[name]
            if value == "-":
                return ()
            result = []
            for card_id in value.split(","):
                if card_id not in rules.index:
                    raise SetupError(
                        f"impossible position: {name} names {card_id}, which is not in "
                        f"deck '{rules.deck.name}'"
                    )
                result.append(rules.index[card_id])
            return tuple(result)

        def pile(name: str) -> tuple[Maneuver, ...]:
            value = fields[name]
            if value == "-":
                return ()
            maneuvers = []
            attacker = int(fields["attacker"]) - 1
            seat = int(name[-1]) - 1
            for text_maneuver in value.split(","):
                head, *extra = text_maneuver.split("^")
                card_id, _, letter = head.partition("=")
                for one in [card_id, *extra]:
                    if one not in rules.index:
                        raise SetupError(
                            f"impossible position: {name} names {one}, which is not in "
                            f"deck '{rules.deck.name}'"
                        )
                card = rules.index[card_id]
                info = rules.cards[card]
                kind: str | None
                if letter:
                    kind, foul = TYPE_OF_LETTER[letter], True
                else:
                    kind = info.attack_type if seat == attacker else info.defence_type
                    foul = False
                    if kind is None:
                        role = "attacker" if seat == attacker else "defender"
                        raise SetupError(
                            f"impossible position: {card_id} in {name} is no maneuver of the {role}"
                        )
                increases = tuple(rules.index[one] for one in extra)
                force = info.force + sum(rules.speed_of[c] for c in increases)
                maneuvers.append(Maneuver(card, kind, foul, increases, force))
            return tuple(maneuvers)

        next_ = fields["next"]
        if next_ == "over":
            raise SetupError("impossible position: the game is already over")
        phase = {"shuffle": SHUFFLE, "faceoff": FACEOFF}.get(next_, TURN)
        first, second = (int(part) for part in fields["score"].split("-"))
        try:
            return rules.setup(
                phase=phase,
                to_move=int(next_) - 1 if phase == TURN else CHANCE,
                period=int(fields["period"]),
                scores=(first, second),
                attacker=int(fields["attacker"]) - 1,
                worth=int(fields["goal"]),
                requester=-1 if fields["doubled"] == "-" else int(fields["doubled"]) - 1,
                dealt=int(fields["dealt"]),
                draw=cards("draw"),
                discard=cards("discard"),
                hands=(tuple(sorted(cards("hand1"))), tuple(sorted(cards("hand2")))),
                speed=(cards("speed1"), cards("speed2")),
                piles=(pile("pile1"), pile("pile2")),
            )
        except SetupError as error:
            message = str(error)
            if message.startswith("impossible position"):
                raise
            raise SetupError(f"impossible position: {message}") from None

    def format_position(self, state: ForceballState) -> str:
        ids = self.rules.ids

        def cards(values: Sequence[int]) -> str:
            return _ids_text([ids[c] for c in values])

        def pile(maneuvers: Sequence[Maneuver]) -> str:
            if not maneuvers:
                return "-"
            parts = []
            for maneuver in maneuvers:
                text = ids[maneuver.card]
                if maneuver.foul:
                    text += "=" + TYPE_LETTERS[maneuver.type]
                parts.extend([text + "".join("^" + ids[c] for c in maneuver.increases)])
            return ",".join(parts)

        if state.phase == TURN:
            next_ = str(state.to_move + 1)
        elif state.phase == OVER:
            next_ = "over"
        else:
            next_ = state.phase
        return " ".join(
            [
                f"next={next_}",
                f"period={state.period}",
                f"score={state.scores[0]}-{state.scores[1]}",
                f"attacker={state.attacker + 1}",
                f"goal={state.worth}",
                f"doubled={'-' if state.requester < 0 else state.requester + 1}",
                f"dealt={state.dealt}",
                f"draw={cards(state.draw)}",
                f"discard={cards(state.discard)}",
                f"hand1={cards(state.hands[0])}",
                f"hand2={cards(state.hands[1])}",
                f"speed1={cards(state.speed[0])}",
                f"speed2={cards(state.speed[1])}",
                f"pile1={pile(state.piles[0])}",
                f"pile2={pile(state.piles[1])}",
            ]
        )


def parse_token(text: str) -> Shuffle | FaceOff | Turn:
    """The move a token spells, through the pyparsing grammar (``MOVE``);
    ``NotationError`` naming the place if it is malformed."""
    if not text or text != text.strip():
        raise NotationError(f"malformed turn '{text}': no white space inside a turn")
    import pyparsing as pp

    try:
        fields = MOVE.parse_string(text, parse_all=True)
    except pp.ParseBaseException as error:
        rest = text[error.loc : error.loc + 8] or "the end"
        raise NotationError(
            f"malformed turn '{text}' at character {error.loc + 1} ('{rest}'): not a "
            "shuffle (deck:ids), a face-off (face:id,id) or a turn action "
            "(> + - ~ % # @ ^ : * / | as in docs/forceball.md)"
        ) from None
    if "order" in fields:
        return Shuffle(tuple(fields["order"].split(",")))
    if "first" in fields:
        return FaceOff(fields["first"], fields["second"])
    return Turn(tuple(_action_of(group[0], group.as_dict()) for group in fields))


def _fast_move(text: str) -> Shuffle | FaceOff | Turn | None:
    """The move of a token by the compiled patterns, or ``None`` if they do not
    read the whole token (the grammar then reads it or says why it cannot)."""
    match = _FAST_SHUFFLE.fullmatch(text)
    if match:
        return Shuffle(tuple(match["order"].split(",")))
    match = _FAST_FACE.fullmatch(text)
    if match:
        return FaceOff(match["first"], match["second"])
    actions = []
    position, end = 0, len(text)
    while position < end:
        for pattern in _FAST_ACTIONS:
            match = pattern.match(text, position)
            if match:
                break
        else:
            return None
        fields = {name: value for name, value in match.groupdict().items() if value is not None}
        actions.append(_action_of(match[0], fields))
        position = match.end()
    return Turn(tuple(actions)) if actions else None


def _action_of(text: str, group: Mapping[str, str]) -> Action:
    """The engine's action for one action token: its text and its named fields."""
    if "reward" in group:
        return RewardHand(int(group["reward"]))
    if "onto" in group:
        return RewardSpeed(tuple(group["onto"].split(",")))
    if text == ">":
        return Draw()
    if "up" in group:
        return SpeedUp(group["up"])
    if text == "-":
        return SpeedDown()
    if "swap" in group:
        return SpeedSwap(group["swap"])
    if "transform" in group:
        return Transform(int(group["transform"]))
    if "discards" in group:
        return Rehand(tuple(group["discards"].split(",")), int(group["redraw"]))
    if "play" in group:
        letter = group.get("declared")
        return Play(group["play"], TYPE_OF_LETTER[letter.upper()] if letter else None)
    if "fromspeed" in group:
        return ForceSpeed(int(group["fromspeed"]))
    if "fromhand" in group:
        return ForceHand(group["fromhand"])
    if "referee" in group:
        return RefereeCheck(group["referee"])
    if "stakes" in group:
        return Stakes(group["stakes"].lower() == "y")
    if text == "/":
        return End()
    return Special(group["special"])


def _format_action(action: Action) -> str:
    match action:
        case Draw():
            return ">"
        case SpeedUp(card):
            return "+" + card
        case SpeedDown():
            return "-"
        case SpeedSwap(card):
            return "~" + card
        case Transform(draws):
            return f"%{draws}"
        case Rehand(discards, draws):
            return "#" + ",".join(discards) + f">{draws}"
        case Play(card, declared):
            return "@" + card + ("=" + TYPE_LETTERS[declared] if declared else "")
        case ForceSpeed(count):
            return f"^{count}"
        case ForceHand(card):
            return "^" + card
        case RefereeCheck(card):
            return ":" + card
        case Stakes(accepted):
            return "*y" if accepted else "*n"
        case End():
            return "/"
        case Special(card):
            return "|" + card
        case RewardHand(draws):
            return f">{draws}"
        case RewardSpeed(cards):
            return ">" + ",".join(cards)
    raise ValueError(f"unknown Forceball action {action!r}")


def _hidden_action(action: Action) -> str:
    """An opponent's action as a player sees it: a card put face down is ``?``."""
    match action:
        case SpeedUp():
            return "+?"
        case SpeedSwap():
            return "~?"
        case Rehand(discards, draws):
            return "#" + ",".join("?" for _ in discards) + f">{draws}"
    return _format_action(action)


def _format(move: Any) -> str:
    if isinstance(move, Shuffle):
        return "deck:" + ",".join(move.order)
    if isinstance(move, FaceOff):
        return f"face:{move.first},{move.second}"
    if isinstance(move, Turn):
        return "".join(_format_action(action) for action in move.actions)
    raise ValueError(f"{move!r} is no Forceball move")


def _default_rules() -> ForceballRules:
    from partita.games.forceball.decks import get_deck

    return ForceballRules(get_deck("example"))


#: Forceball with the example deck in the default league.
FORCEBALL = ForceballNotation(_default_rules())

assert EMPTY == "_"
