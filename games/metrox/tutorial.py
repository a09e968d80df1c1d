"""Metro X's first-game tutorial: five scripted turns on Amsterdam, a beginners' city sheet (the
seed's advice), against one opponent.

The revealed cards and both seats' choices are fixed. Each step's state is the replay of the
record cut before that turn (`replay` is the checked door: a script that breaks a rule fails),
and each explanation is read off the learner's sheet before and after its choice (the stations a
card fills, a transfer's number, a bonus), so the words always match the rules core.

`steps()` gives, for each turn, the learner's view, the one choice to make and what to say; the
last step has no move: the tutorial's end.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

from games.metrox.preview import previews
from games.metrox.record import replay
from games.record import header

LEARNER = 0
RULES = {"players": 2, "map": "amsterdam"}
# One card a turn (the last is the one showing when the tutorial ends) and each turn's choices
# (learner first); every card but the free one fills one window. The learner completes tram 2
# (first bonus), writes a transfer at Nieuwmarkt (three lines: 6), skips along line 53 and fills
# Amstel with the free card.
CARDS = ["4", "4", "t", "s2", "f", "2"]
TURNS: list[list[dict[str, Any]]] = [
    [{"line": "2"}, {"line": "52"}],
    [{"line": "2"}, {"line": "52"}],
    [{"line": "54"}, {"line": "53"}],
    [{"line": "53"}, {"line": "51"}],
    [{"station": "amstel"}, {"station": "gein"}],
]
# What each card is, for the words (the page draws the card itself).
CARD_KIND = {"t": "transfer", "f": "free", "f*": "free", "s2": "skip", "s3": "skip"}


def _say(key: str, **params: Any) -> dict[str, Any]:
    return {"key": f"metrox.learn.tut.{key}", "params": params}


def _record(turns: int) -> dict[str, Any]:
    return {**header("metrox"), "rules": RULES,
            "cards": CARDS[: turns + 1], "turns": TURNS[:turns]}  # fmt: skip


def _explain(view: dict[str, Any], after: dict[str, Any], move: dict[str, Any]) -> dict[str, Any]:
    """The sentence for the learner's choice, from its sheet before and after the turn."""
    names = {s["id"]: s["name"] for s in view["map"]["stations"]}
    lines = {line["id"]: line for line in view["map"]["lines"]}
    old, new = view["sheets"][LEARNER], after["sheets"][LEARNER]
    filled = [s for s in new["filled"] if s not in old["filled"]]
    card = view["card"]
    if "station" in move:
        return _say("free", station=names[move["station"]])
    line = lines[move["line"]]
    params: dict[str, Any] = {"line": line["name"], "count": len(filled)}
    if filled:
        params.update(first=names[filled[0]], last=names[filled[-1]])
    bonus = [b for b in new["bonuses"] if b not in old["bonuses"]]
    kind = CARD_KIND.get(card, "number")
    if kind == "transfer":
        station = filled[0]
        params.update(number=new["transfers"][station], lines=round(new["transfers"][station] / 2))
    elif kind == "skip":
        params.update(n=int(card[1]))
        order = line["stations"]
        span = order[order.index(filled[0]) : order.index(filled[-1])]
        jumped = [names[s] for s in span if s in old["filled"]]
        if jumped:
            kind, params["over"] = "skip_over", jumped[0]
    else:
        params.update(n=int(card.rstrip("*")))
    said = _say(kind, **params)
    if bonus:
        key = "bonus_first" if bonus[0]["first"] else "bonus_later"
        said["then"] = _say(key, line=line["name"], points=bonus[0]["bonus"])
    return said


@cache
def _script() -> tuple[dict[str, Any], ...]:
    steps: list[dict[str, Any]] = []
    for turn, choices in enumerate(TURNS):
        state = replay(_record(turn))
        view = state.view(LEARNER)
        after = replay(_record(turn + 1)).view(LEARNER)
        said = _explain(view, after, choices[LEARNER])
        then = said.pop("then", None)
        say = ([_say("intro")] if turn == 0 else []) + [said] + ([then] if then else [])
        # the move as the legal listing gives it: with its preview (the page draws what it does)
        move = choices[LEARNER]
        (preview,) = previews(state, LEARNER, [state.check(LEARNER, move)])
        steps.append({"view": view, "move": {**move, "preview": preview}, "say": say})
    final = replay(_record(len(TURNS)))
    view = final.view(LEARNER)
    empty = view["seats"][LEARNER]["empty"]
    steps.append({"view": view, "move": None,
                  "say": [_say("end", score=final.scores[LEARNER], empty=empty)]})  # fmt: skip
    return tuple(steps)


def steps() -> list[dict[str, Any]]:
    """The tutorial's steps (fresh copies: callers may add fields)."""
    return copy.deepcopy(list(_script()))
