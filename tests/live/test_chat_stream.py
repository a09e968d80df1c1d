"""Chat lines on the game's own event stream (issue 35 item 2; docs/gateway.md, live updates): a
stream opened with `?chat=1` carries each new line of its reader's room as `event: chat`, the
players' room for a seat's token, the spectators' room otherwise, and never the other room's
lines, both ways; a party host's token (no seat) opens the players' room (the host screen's
preset feed); a stream without `?chat=1` carries no chat at all. Real engine, Redis, gateway."""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any

import pytest

from tests.fixtures.gateway import GatewayApi
from tests.live.sse import Message, Stream, open_stream


def next_chat(stream: Stream, timeout: float = 30.0) -> Message:
    """The stream's next chat message (game events and views before it are passed over)."""
    while True:
        msg = stream.next(timeout)
        if msg.kind == "chat":
            return msg


def say(api: GatewayApi, game: str, token: str | None, text: str) -> dict[str, Any]:
    status, body = api.post(f"/api/games/{game}/chat", {"text": text}, token=token)
    assert status == 200, body
    return dict(body)


def test_each_room_hears_its_own_lines_only(api: GatewayApi, gateway_server: str) -> None:
    game, tokens = api.new_game(2)
    with ExitStack() as stack:
        bob = stack.enter_context(
            open_stream(gateway_server, game, token=tokens[1], query="?delta=1&chat=1")
        )
        fan = stack.enter_context(open_stream(gateway_server, game, query="?delta=1&chat=1"))
        plain = stack.enter_context(open_stream(gateway_server, game, token=tokens[1]))
        for stream in (bob, fan, plain):
            assert stream.status == 200, stream.body()
        assert bob.next().kind == "view" and fan.next().kind == "view"
        for stream in (bob, fan, plain):  # the creation and the join: the feed is reading
            for _ in range(2):
                stream.next_event()
        # A players' line reaches the players' stream only, a spectators' line the other.
        # (The first lines may race the feed's subscribing again with chat: say until heard.)
        sent = say(api, game, tokens[0], "<b>gg</b>")["lines"][-1]
        heard = next_chat(bob)
        assert heard.id == "" and heard.data == {"room": "players", "line": sent}
        said = say(api, game, None, "hello from the stands")["lines"][-1]
        heard = next_chat(fan)
        assert heard.data == {"room": "spectators", "line": said}
        say(api, game, tokens[1], "second")
        assert next_chat(bob).data["line"]["text"] == "second"
        say(api, game, None, "stands again")
        assert next_chat(fan).data["line"]["text"] == "stands again"
        # Neither stream carried the other room's lines, and a stream without ?chat=1 none:
        # a move's event comes next on each, with no chat message before it.
        _, view = api.get(f"/api/games/{game}", token=tokens[0])
        _, legal = api.get(f"/api/games/{game}/legal", token=tokens[view["turn"]])
        move = next(m for m in legal["moves"] if m["action"] == "place")
        status, _ = api.post(
            f"/api/games/{game}/moves", {**move, "expected_version": view["version"]},
            token=tokens[view["turn"]],
        )  # fmt: skip
        assert status == 200
        for stream in (bob, fan, plain):
            msg = stream.next()
            assert msg.kind == "message", msg


def test_a_party_host_hears_the_phones_presets(api: GatewayApi, gateway_server: str) -> None:
    status, made = api.post("/api/games", {"game": "metrox", "party": True, "host_only": True})
    assert status == 201, made
    game, host = made["game_id"], made["host_token"]
    status, phone = api.post(f"/api/join/{made['join_code']}", {"name": "Phone"})
    assert status == 200, phone
    # Without ?chat=1 a token of no seat opens nothing, as before.
    with open_stream(gateway_server, game, token=host) as refused:
        assert refused.status == 403, refused.body()
    with open_stream(gateway_server, game, token=host, query="?chat=1") as feed:
        assert feed.status == 200, feed.body()
        feed.next_event()  # the creation: the feed is reading
        status, body = api.post(f"/api/games/{game}/chat", {"preset": "one_more"},
                                token=phone["token"])  # fmt: skip
        assert status == 200, body
        assert next_chat(feed).data["line"]["preset"] == "one_more"


def test_a_chat_stream_stays_open_after_the_end(api: GatewayApi, gateway_server: str) -> None:
    """The game's "over" event still comes (clients learn the end as before); a stream without
    ?chat=1 then ends, as bots expect; a ?chat=1 stream stays for the lines said after the end,
    each room's on its own streams (CHAT_AFTER_END_S)."""
    game, tokens = api.new_game(2)
    with ExitStack() as stack:
        bob = stack.enter_context(
            open_stream(gateway_server, game, token=tokens[1], query="?delta=1&chat=1")
        )
        fan = stack.enter_context(open_stream(gateway_server, game, query="?delta=1&chat=1"))
        plain = stack.enter_context(open_stream(gateway_server, game, token=tokens[1]))
        for stream in (bob, fan, plain):
            assert stream.status == 200, stream.body()
        for stream in (bob, fan, plain):  # the creation and the join: the feed is reading
            for _ in range(2):
                stream.next_event()
        status, body = api.post(f"/api/games/{game}/resign", token=tokens[0])
        assert status == 200, body
        for stream in (bob, fan, plain):
            assert stream.next_event().data["status"] == "over"
        with pytest.raises(EOFError):
            plain.next()  # no chat asked: the stream ends with the game
        sent = say(api, game, tokens[0], "gg")["lines"][-1]
        assert next_chat(bob).data == {"room": "players", "line": sent}
        said = say(api, game, None, "what a finish")["lines"][-1]
        assert next_chat(fan).data == {"room": "spectators", "line": said}
        # A page opened after the end reads the history, then hears the lines said now.
        late = stack.enter_context(
            open_stream(gateway_server, game, token=tokens[0], query="?delta=1&chat=1")
        )
        assert late.status == 200, late.body()
        while late.next().data.get("status") != "over":
            pass
        sent = say(api, game, tokens[1], "thanks, gg")["lines"][-1]
        assert next_chat(late).data == {"room": "players", "line": sent}
        assert next_chat(bob).data == {"room": "players", "line": sent}
