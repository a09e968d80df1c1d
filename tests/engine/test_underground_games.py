"""Whole games of On the Underground (2-5 players) through the engine's gRPC API, played as real
clients play: each turn GET the legal steps, then send either a whole turn (RULES-UNDERGROUND.md
§3, `{"rails": [...]}`) built from them, or the turn step by step. The final scores are those of
the rules core's replay of the engine's record; the order of the destination pile (§5, hidden
from everyone) appears in no view, legal list or event; a rule-breaking rail is refused and
changes nothing."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import grpc
import pytest

import games
from games.underground.map import load_map
from tests.engine.helpers import code, listed_of, record_of
from tests.fixtures.engine import EngineClient, doc

UNDERGROUND = games.get("underground")
BOARD = load_map()
RULE_KEY = "metro-error-rule"
# Keys that would carry the deal (or what fixes it) if a view or an event leaked it.
SECRET_KEYS = {"destinations", "deal", "pile", "seed"}


def _ends(rails: list[dict[str, Any]], colour: str) -> set[str] | None:
    """The ends of a colour's line (§3), from the public rails; None when it has no rail yet."""
    degree: Counter[str] = Counter()
    for r in rails:
        if r["colour"] == colour:
            degree[r["a"]] += 1
            degree[r["b"]] += 1
    if not degree:
        return None
    return {s for s, d in degree.items() if d == 1 and not BOARD.stations[BOARD.index[s]].terminus}


def whole_turn(view: dict[str, Any], steps: list[dict[str, Any]], rng: random.Random) -> dict:
    """A whole turn built from the legal first steps: rails of distinct colours on distinct
    sections, each a start or an extension (never a branch). Laying one leaves the others legal:
    another colour's line and ends are unchanged, the sections differ, and no token is spent."""
    rails = [m for m in steps if m["step"] == "rail"]
    rng.shuffle(rails)
    chosen: list[dict[str, Any]] = []
    colours: set[str] = set()
    sections: set[tuple[str, str]] = set()
    want = rng.randint(0, 4)
    for m in rails:
        if len(chosen) >= want:
            break
        if m["colour"] in colours or (m["a"], m["b"]) in sections:
            continue
        ends = _ends(view["rails"], m["colour"])
        if ends is not None and not ends & {m["a"], m["b"]}:
            continue  # a branch
        chosen.append({"colour": m["colour"], "a": m["a"], "b": m["b"]})
        colours.add(m["colour"])
        sections.add((m["a"], m["b"]))
    return {"rails": chosen}


def step_of(steps: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """A legal step: a route choice when the passenger waits for one, else mostly rails."""
    routes = [m for m in steps if m["step"] == "route"]
    if routes:
        assert all(m["step"] == "route" for m in steps)
        return rng.choice(routes)
    rails = [m for m in steps if m["step"] == "rail"]
    if not rails or rng.random() < 0.3:
        return {"step": "stop"}
    return rng.choice(rails)


def _walk(obj: Any) -> Iterator[tuple[str | None, Any]]:
    """Every (key, value) below a JSON document; list items have key None."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield k, v
            yield from _walk(v)
    elif isinstance(obj, list):
        for v in obj:
            yield None, v
            yield from _walk(v)


def assert_pile_hidden(document: dict[str, Any], deal: list[str]) -> None:
    """Neither the pile nor its order shows: no key that would carry the deal, no pile card
    among the cards shown as drawn, and no list holding 3 consecutive cards of the pile in
    order (the chance that a public list does so by accident is negligible)."""
    # (The engine's create and join events come before any move: 4 cards face up.)
    count = document.get("pile_count", len(deal) - 4)
    assert isinstance(count, int), document
    pile = deal[len(deal) - count :]
    hidden = set(pile)
    windows = {tuple(pile[i : i + 3]) for i in range(len(pile) - 2)}
    for key, value in _walk(document):
        assert key not in SECRET_KEYS, f"{key!r} in {document}"
        if key in ("revealed", "face_up", "discard"):
            assert not hidden & set(value), (key, value, pile)
        if isinstance(value, list) and len(value) >= 3:
            shown = [v for v in value if isinstance(v, str) and v in hidden]
            for i in range(len(shown) - 2):
                assert tuple(shown[i : i + 3]) not in windows, (key, value, pile)
    assert document.get("revealed", deal[: len(deal) - count]) == deal[: len(deal) - count]


def play_game(client: EngineClient, players: int, seed: int) -> dict[str, Any]:
    game_id, tokens = client.create_full({"players": players}, game="underground")
    rng = random.Random(seed)
    seen: list[dict[str, Any]] = []  # views and legal lists, scanned once the deal is known
    view = client.view(game_id)
    with pytest.raises(grpc.RpcError) as err:
        client.record(game_id)  # the record holds the deal: only once the game is over
    assert code(err.value) == grpc.StatusCode.FAILED_PRECONDITION
    whole_turns = step_turns = 0
    refused = False
    while view.status != "over":
        (seat,) = view.to_move
        token = tokens[seat]
        data = doc(view)
        legal = client.legal(game_id, token)
        assert legal.seat == seat and legal.version == view.version
        steps = steps_of(legal)
        assert steps and {"step": "stop"} in steps
        seen.append({"pile_count": data["pile_count"], "legal": steps})
        seen.append(doc(client.view(game_id, token)))
        if not refused and data["rails"]:
            refused_rail(client, game_id, token, view)
            refused = True
        if rng.random() < 0.5:
            move = whole_turn(data, steps, rng)
            answer = client.move(game_id, token, move, expected_version=view.version,
                                 move_id=f"t{data['turns']}")  # fmt: skip
            assert answer.version == view.version + 1 and answer.seat == seat
            done = doc(answer)
            assert done["turns"] == data["turns"] + 1
            assert done["moves"][-1]["rails"] == [
                {**r, "a": min(r["a"], r["b"]), "b": max(r["a"], r["b"])} for r in move["rails"]
            ]
            whole_turns += 1
            view = answer
            continue
        # Step by step: rails, the stop, then any route choices, until the turn is complete.
        turns = data["turns"]
        while True:
            step = step_of(steps, rng)
            answer = client.move(game_id, token, step, expected_version=view.version)
            assert answer.version == view.version + 1
            view = answer
            now = doc(answer)
            if now["turns"] != turns or view.status == "over":
                break
            legal = client.legal(game_id, token)
            steps = steps_of(legal)
            seen.append({"pile_count": now["pile_count"], "legal": steps})
        step_turns += 1
    assert whole_turns and step_turns, (whole_turns, step_turns)
    assert refused

    final = doc(view)
    record = record_of(client, game_id)
    deal = record["destinations"]
    assert sorted(deal) == sorted(BOARD.sid(i) for i in BOARD.destinations)
    replayed = UNDERGROUND.replay(record)
    scores = [s["score"] for s in final["seats"]]
    assert replayed.is_over
    assert scores == replayed.scores == record["scores"]
    assert final["winners"] == [i for i, s in enumerate(scores) if s == max(scores)]
    assert final["rails"] == replayed.view(None)["rails"]
    assert len(record["moves"]) % players == 0  # everyone had the same number of turns (§4)
    assert record["rules"] == {"players": players, "map": "london"}

    events = [doc(e) for e in client.events_until(game_id, view.version)]
    assert events[-1]["status"] == "over"
    versions = [e["version"] for e in events]
    assert versions == list(range(versions[0], view.version + 1))
    assert all("pile_count" in e for e in events if e["action"] not in ("create", "join"))
    for document in [*seen, *events]:
        assert_pile_hidden(document, deal)
    for token in [None, *tokens]:
        assert_pile_hidden(doc(client.view(game_id, token)), deal)
    return {"turns": len(record["moves"]), "whole": whole_turns, "steps": step_turns}


def steps_of(legal: Any) -> list[dict[str, Any]]:
    """The listed steps as a client sends them: each listed with its `preview` (what it would
    score and change, issue 31.2), which is no part of the step."""
    steps = listed_of(legal)
    for m in steps:
        assert set(m.pop("preview")) == {"points", "tokens", "gained"}, m
    return steps


def refused_rail(client: EngineClient, game_id: str, token: str, view: Any) -> None:
    """A whole turn whose second rail joins nothing of its colour's line is refused with
    FAILED_PRECONDITION naming §3, and the game is unchanged (the first rail is not kept)."""
    data = doc(view)
    seat = data["to_move"][0]
    colour = data["seats"][seat]["colours"][0]
    steps = steps_of(client.legal(game_id, token))
    first = next(m for m in steps if m["step"] == "rail" and m["colour"] == colour)
    line = {first["a"], first["b"]} | {
        s for r in data["rails"] if r["colour"] == colour for s in (r["a"], r["b"])
    }
    used = {(r["a"], r["b"]) for r in data["rails"]} | {(first["a"], first["b"])}
    far = next(
        sec for sec in BOARD.sections
        if not {BOARD.sid(sec.a), BOARD.sid(sec.b)} & line
        and tuple(sorted((BOARD.sid(sec.a), BOARD.sid(sec.b)))) not in used
    )  # fmt: skip
    bad = {"colour": colour, "a": BOARD.sid(far.a), "b": BOARD.sid(far.b)}
    before = doc(client.view(game_id))
    with pytest.raises(grpc.RpcError) as err:
        client.move(game_id, token, {"rails": [{k: first[k] for k in ("colour", "a", "b")}, bad]},
                    expected_version=view.version)  # fmt: skip
    assert code(err.value) == grpc.StatusCode.FAILED_PRECONDITION
    details = err.value.details()
    assert "rail 1:" in details and f"must start from a station of the {colour} line" in details
    assert "RULES-UNDERGROUND.md" in details
    trailing = dict(err.value.trailing_metadata() or ())
    assert trailing.get(RULE_KEY, "").startswith("RULES-UNDERGROUND.md")
    assert trailing.get("metro-error-reason") == "illegal_move"
    after = client.view(game_id)
    assert after.version == view.version
    assert doc(after) == before
    assert steps_of(client.legal(game_id, token)) == steps


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_whole_game_through_the_engine(engine_client: EngineClient, players: int) -> None:
    played = play_game(engine_client, players, seed=players)
    assert played["turns"] >= 10


def test_a_step_out_of_turn_or_of_the_rules_is_refused(engine_client: EngineClient) -> None:
    game_id, tokens = engine_client.create_full({"players": 2}, game="underground")
    view = engine_client.view(game_id)
    with pytest.raises(grpc.RpcError) as err:
        engine_client.move(game_id, tokens[1], {"step": "stop"})
    assert code(err.value) == grpc.StatusCode.FAILED_PRECONDITION
    colour = doc(view)["seats"][1]["colours"][0]  # another seat's colour
    with pytest.raises(grpc.RpcError) as err:
        engine_client.move(game_id, tokens[0], {"step": "rail", "colour": colour,
                                                "a": "euston", "b": "warren_street"})  # fmt: skip
    assert code(err.value) == grpc.StatusCode.FAILED_PRECONDITION
    assert f"{colour} is not your colour" in err.value.details()
    with pytest.raises(grpc.RpcError) as err:
        engine_client.move(game_id, tokens[0], {"rails": [{"colour": "red", "a": "euston",
                                                           "b": "bank"}]})  # fmt: skip
    assert code(err.value) == grpc.StatusCode.FAILED_PRECONDITION
    assert "not neighbours" in err.value.details()
    with pytest.raises(grpc.RpcError) as err:
        engine_client.move(game_id, tokens[0], {"rails": [{"colour": "red", "a": "nowhere",
                                                           "b": "bank"}]})  # fmt: skip
    assert code(err.value) == grpc.StatusCode.INVALID_ARGUMENT
    assert engine_client.view(game_id).version == view.version
    assert json.loads(engine_client.view(game_id).json)["rails"] == []
