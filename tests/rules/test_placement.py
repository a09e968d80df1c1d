"""Where a tile may go (RULES.md §6) and the online variant's extra rule (§7)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.errors import IllegalMoveError, InvalidMoveError, NotYourTurnError, RulesError
from games.metro.board import BORDER_MASK, square
from games.metro.moves import DRAW
from games.metro.placement import OK_MASK, legal_masks, squares_of
from games.metro.rules import MetroRules
from games.metro.state import MetroState
from games.metro.tiles import INDEX, ROTATIONS

DDDD = INDEX["dddd"]


def state_with_hand(
    hand: list[str], rules: MetroRules | None = None, deck_extra: int = 5
) -> MetroState:
    """Seat 0 to move holding `hand`; the deck holds `deck_extra` aaaa tiles."""
    rules = rules or MetroRules()
    deck = [INDEX[c] for c in hand] + [INDEX["aaaa"]] * (rules.players - 1) * len(hand)
    deck += [INDEX["aaaa"]] * deck_extra
    state = MetroState.empty(rules, deck)
    per_seat = len(hand)
    state.hands = [tuple(INDEX[c] for c in hand)] + [
        tuple([INDEX["aaaa"]] * per_seat) for _ in range(rules.players - 1)
    ]
    state.deck_pos = len(hand) * rules.players
    return state


def test_u_turn_tile_is_waived_onto_every_border_square_of_the_empty_board() -> None:
    # Every border square turns dddd into a route of length one, so rule (d) waives (c).
    assert OK_MASK[DDDD] & BORDER_MASK == 0
    masks = legal_masks(BORDER_MASK, DDDD, rotation=False, extend=None)
    assert masks == [(DDDD, BORDER_MASK)]
    state = state_with_hand(["dddd"])
    state.play(0, {"action": "place", "placement": "dddd00"})


def test_rule_c_forbids_a_length_one_route_when_the_tile_fits_elsewhere() -> None:
    state = state_with_hand(["aacb"])  # aacb joins 6-1: both face the edge at the corner (0,0)
    with pytest.raises(IllegalMoveError, match="length one") as err:
        state.play(0, {"action": "place", "placement": "aacb00"})
    assert "§6(c)" in err.value.rule
    state.play(0, {"action": "place", "placement": "aacb01"})


def test_top_edge_u_turn_forbidden_but_inner_square_allowed() -> None:
    state = state_with_hand(["dacc"])  # d at connector 0: a U-turn on any top-row square
    assert not OK_MASK[INDEX["dacc"]] >> square(0, 3) & 1
    with pytest.raises(IllegalMoveError, match="length one"):
        state.play(0, {"action": "place", "placement": "dacc03"})
    state.play(0, {"action": "place", "placement": "dacc73"})  # bottom row: connector 0 is inside


def test_rule_a_and_b_are_named() -> None:
    state = state_with_hand(["aaaa", "aaaa"], MetroRules(hand_size=2))
    with pytest.raises(IllegalMoveError, match="central station") as err:
        state.play(0, {"action": "place", "placement": "aaaa33"})
    assert err.value.rule == "RULES.md §6(a)"
    with pytest.raises(IllegalMoveError, match="neither on the border") as err:
        state.play(0, {"action": "place", "placement": "aaaa22"})
    assert err.value.rule == "RULES.md §6(b)"
    with pytest.raises(IllegalMoveError, match="off the board"):
        state.play(0, {"action": "place", "placement": "aaaa80"})
    state.play(0, {"action": "place", "placement": "aaaa01"})
    with pytest.raises(NotYourTurnError):
        state.play(0, {"action": "place", "placement": "aaaa02"})
    state.play(1, {"action": "place", "placement": "aaaa11"})  # next to a placed tile: (b) holds
    with pytest.raises(IllegalMoveError, match="already holds a tile"):
        state.play(0, {"action": "place", "placement": "aaaa11"})


def test_tile_not_in_hand_and_malformed_moves() -> None:
    state = state_with_hand(["aaaa"])
    with pytest.raises(IllegalMoveError, match="not in your hand"):
        state.play(0, {"action": "place", "placement": "bbbb01"})
    with pytest.raises(InvalidMoveError, match="unknown action") as bad:
        state.play(0, {"action": "jump"})
    assert bad.value.field == "action"
    with pytest.raises(InvalidMoveError) as bad:
        state.play(0, {"action": "place", "placement": "aaaa"})
    assert bad.value.field == "placement"
    with pytest.raises(InvalidMoveError):
        state.play(0, "place")  # type: ignore[arg-type]
    before = state.to_dict()
    assert state.to_dict() == before  # refused moves changed nothing


def test_draw_then_place_exactly_the_drawn_tile() -> None:
    state = state_with_hand(["aaaa"])
    state.deck = [*state.deck[: state.deck_pos], INDEX["cccc"], *state.deck[state.deck_pos :]]
    event = state.play(0, {"action": "draw"})
    assert event == {
        "seat": 0, "action": "draw", "turn": 0, "to_move": [0], "scores": [0, 0],
        "status": "playing", "deck_count": state.deck_count,
    }  # fmt: skip
    assert "cccc" not in str(event)
    assert state.legal_codes() and all(m // 64 == INDEX["cccc"] for m in state.legal_codes())
    with pytest.raises(IllegalMoveError, match="you drew cccc"):
        state.play(0, {"action": "place", "placement": "aaaa01"})
    with pytest.raises(IllegalMoveError, match="already drew"):
        state.play(0, {"action": "draw"})
    hand_before = state.hands[0]
    state.play(0, {"action": "place", "placement": "cccc01"})
    assert state.hands[0] == hand_before  # draw-and-place leaves the hand unchanged
    assert state.seat == 1


def test_draw_needs_a_deck() -> None:
    state = state_with_hand(["aaaa"], deck_extra=0)
    assert DRAW not in state.legal_codes()
    with pytest.raises(IllegalMoveError, match="deck is empty"):
        state.play(0, {"action": "draw"})


def test_rotation_variant_offers_every_orientation() -> None:
    state = state_with_hand(["aacb"], MetroRules(rotation=True))
    codes = {m // 64 for m in state.legal_codes() if m != DRAW}
    assert len(codes) == 4  # aacb has four distinct orientations
    state.play(0, {"action": "place", "placement": "acba01"})  # one of its rotations
    assert state.hands[0] != (INDEX["aacb"],)


def test_online_placement_must_extend_an_own_open_route() -> None:
    rules = MetroRules(online=True)
    state = state_with_hand(["aaaa"], rules)
    # Seat 0 owns the odd stations; (0,6) is where station 2 (even, seat 1's) departs... and
    # station 1 departs at (0,7). Every border square holds some departure; (0,6) holds only
    # station 2's, which is not seat 0's.
    mine = squares_of(state.extend_mask(0) or 0)
    assert square(0, 6) not in mine and square(0, 7) in mine
    with pytest.raises(IllegalMoveError, match="extends none of your open routes") as err:
        state.play(0, {"action": "place", "placement": "aaaa06"})
    assert "online" in err.value.rule
    state.play(0, {"action": "place", "placement": "aaaa07"})


def test_unknown_rule_options_are_named() -> None:
    with pytest.raises(RulesError) as err:
        MetroRules.parse({"players": 2, "speed": 3})
    assert err.value.field == "rules.speed"
    with pytest.raises(RulesError, match="players"):
        MetroRules.parse({"players": 7})
    with pytest.raises(RulesError, match="hand_size"):
        MetroRules.parse({"hand_size": 0})
    with pytest.raises(RulesError, match="rotation"):
        MetroRules.parse({"rotation": "yes"})


def test_rotation_lists_each_placement_once_when_hand_tiles_are_rotations_of_each_other() -> None:
    state = state_with_hand(["aacb", "baac"], MetroRules(rotation=True, hand_size=2))
    moves = state.legal_codes()
    assert len(moves) == len(set(moves))
    assert {m // 64 for m in moves if m != DRAW} == {
        INDEX[c] for c in ("aacb", "acba", "cbaa", "baac")
    }


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.integers(2, 6), st.booleans(), st.integers(1, 3))
def test_online_keeps_own_route_squares_and_waives_c_only_among_them(
    seed: int, players: int, rotation: bool, hand: int
) -> None:
    """RULES.md §7, in its order: when some square (a)-(b) allows extends an own open route,
    every legal placement is on such a square, even if that means a route of length one; rule
    (c) is waived only when no such square avoids it."""
    rules = MetroRules(players=players, online=True, rotation=rotation, hand_size=hand)
    state = MetroState.new(rules, seed)
    rng = random.Random(seed)
    while not state.is_over:
        extend = state.extend_mask(state.seat)
        assert extend is not None
        own = state.frontier & extend
        codes = state.legal_codes()
        places = [m for m in codes if m != DRAW]
        if own:
            assert all(own >> (m % 64) & 1 for m in places)
        clean = [m for m in places if OK_MASK[m // 64] >> (m % 64) & 1]
        if clean != places:
            # (c) was waived: only because no orientation of the tile had a clean own square.
            for tile in state._tiles_to_place():
                orients = ROTATIONS[tile] if rotation else (tile,)
                base = own or state.frontier
                if any(base & OK_MASK[t] for t in orients):
                    assert all(OK_MASK[m // 64] >> (m % 64) & 1
                               for m in places if m // 64 in orients)  # fmt: skip
        state.apply_code(rng.choice(codes))
