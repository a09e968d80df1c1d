#!/usr/bin/env python3
"""A greedy example bot for the Metro platform, in Python with the standard library only.

    python3 bot.py --url http://127.0.0.1:8000 --game metro --vs-ai easy
    python3 bot.py --url http://127.0.0.1:8000 --game metrox --name greedy-bot --key-file bot.key

With --vs-ai it creates a table against the platform's AI at that level, plays it to the end and
prints the final scores as its last line. Without it, it registers (or reuses, from --key-file) a
bot account, listens on its player event stream, accepts every invitation and plays each game to
its end, several at once, until it is stopped. docs/bots.md explains every call it makes.

Strategy: the legal move worth the most points right now (see the choose_* functions); nothing
looks further ahead. Whose turn it is comes from the game's event stream (Server-Sent Events,
resumed with Last-Event-ID after a cut); the view read after each event is the truth, and a quiet
stream is backed by a slow poll, so a lost event delays the bot, it never stalls it. The wake-up
flag is cleared *before* the view is read, so an event that arrives while the bot reads is never
forgotten (clearing it after cost a 10 s poll each time). A create carries an Idempotency-Key, so
a retry after a lost answer never makes a second table; a refused stream (503 busy, 429) waits the
server's Retry-After; `event: failure` ends a connection, which resumes after the last event seen.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import secrets
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

POLL_S = 10.0  # a quiet stream: read the view anyway this often
RETRY_S = 1.0  # first wait after a refused connection or a 503, doubled up to MAX_RETRY_S
MAX_RETRY_S = 8.0
GAMES = ("metro", "metrox", "underground")


def log(*parts: Any) -> None:
    print(*parts, file=sys.stderr, flush=True)


def needs_key(path: str) -> bool:
    """The player's device key goes only where the player is asked for: a seat is played with
    its token, and the rules queries need nobody."""
    return path.startswith(("/api/players", "/api/invitations")) or path.endswith("/claim")


class ApiError(Exception):
    """An answer the bot cannot go on from: the status, the API's error object and, when the
    server said when to try again, its Retry-After in seconds."""

    def __init__(self, status: int, body: Any, retry_after: float | None = None) -> None:
        err = body.get("error", {}) if isinstance(body, dict) else {}
        super().__init__(f"{status} {err.get('code', '')}: {err.get('message', body)}")
        self.status = status
        self.code = err.get("code", "")
        self.retry_after = retry_after


def retry_after(headers: Any) -> float | None:
    """The Retry-After header in seconds (the server's say on when to come back), if any."""
    try:
        return max(0.0, float(headers.get("Retry-After") or ""))
    except ValueError:
        return None


class Api:
    """JSON over HTTP. Connection failures and 503s are retried (the gateway or the engine
    restarting): after the server's Retry-After when it sent one, else with back-off; 429
    waits for Retry-After; anything else is the caller's. A retried request is sent unchanged
    (the same move_id, the same Idempotency-Key), so it never takes effect twice."""

    def __init__(self, url: str, key: str | None = None) -> None:
        self.url = url.rstrip("/")
        self.key = key

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        give_up_s: float = 120.0,
        idempotency_key: str | None = None,
        wait_when_limited: bool = True,
    ) -> tuple[int, Any]:
        headers = {"Accept": "application/json"}
        if idempotency_key:
            headers["Idempotency-Key"] = idempotency_key
        if body is not None:
            headers["Content-Type"] = "application/json"
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if self.key and needs_key(path):
            headers["X-Player-Key"] = self.key
        data = None if body is None else json.dumps(body).encode()
        deadline = time.monotonic() + give_up_s
        wait = RETRY_S
        while True:
            req = urllib.request.Request(self.url + path, data, headers, method=method)
            try:
                with urllib.request.urlopen(req, timeout=60) as reply:
                    return reply.status, json.loads(reply.read() or b"null")
            except urllib.error.HTTPError as err:
                raw = err.read()
                try:
                    answer = json.loads(raw or b"null")
                except ValueError:
                    answer = {"error": {"code": "http", "message": raw[:200].decode("latin-1")}}
                if err.code not in (429, 503) or (err.code == 429 and not wait_when_limited):
                    return err.code, answer
                wait = retry_after(err.headers) or wait
            except (OSError, http.client.HTTPException) as err:
                log(f"bot: {method} {path}: {err}; trying again")
            if time.monotonic() + wait > deadline:
                raise ApiError(503, {"error": {"code": "unavailable", "message": "gave up"}})
            time.sleep(wait)
            wait = min(wait * 2, MAX_RETRY_S)

    def ok(
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        idempotency_key: str | None = None,
    ) -> Any:
        status, answer = self.call(method, path, body, token, idempotency_key=idempotency_key)
        if status >= 300:
            raise ApiError(status, answer)
        return answer

    def rules(self, query: dict[str, Any]) -> Any:
        """One `metro rules` query over HTTP (POST /api/rules): pure, no game state."""
        return self.ok("POST", "/api/rules", query)

    def rules_if_allowed(self, query: dict[str, Any]) -> Any | None:
        """A `rules` query, or None when the server's limit on them (RATE_LIMIT_RULES) is
        reached now: a move is not worth waiting a minute for one more candidate's score."""
        status, answer = self.call("POST", "/api/rules", query, wait_when_limited=False)
        if status == 429:
            return None
        if status >= 300:
            raise ApiError(status, answer)
        return answer


def sse(
    url: str, path: str, last_id: str, key: str | None, stop: threading.Event
) -> Iterator[tuple[str, Any]]:
    """Events (id, JSON) of one Server-Sent Events connection, after `last_id`; returns when the
    connection ends. Comment lines (keep-alives) are skipped; a silent socket times out. A
    refused connection raises ApiError with the server's Retry-After; `event: failure` (the
    stream broke on the server's side) raises ApiError with its error object, so the caller
    reconnects after the last event it saw."""
    parts = urllib.parse.urlsplit(url)
    conn_class = (
        http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    )
    conn = conn_class(parts.netloc, timeout=POLL_S * 4)
    headers = {"Accept": "text/event-stream"}
    if last_id:
        headers["Last-Event-ID"] = last_id
    if key:
        headers["X-Player-Key"] = key
    try:
        conn.request("GET", parts.path.rstrip("/") + path, headers=headers)
        reply = conn.getresponse()
        if reply.status != 200:
            body = reply.read()
            try:
                answer = json.loads(body or b"null")
            except ValueError:
                answer = {"error": {"code": "http", "message": body[:200].decode("latin-1")}}
            raise ApiError(reply.status, answer, retry_after(reply.headers))
        event_id, kind, data = "", "message", []
        while not stop.is_set():
            line = reply.readline()
            if not line:
                return  # the server closed the stream
            text = line.decode("utf-8").rstrip("\r\n")
            if text.startswith("id:"):
                event_id = text[3:].strip()
            elif text.startswith("event:"):
                kind = text[6:].strip()
            elif text.startswith("data:"):
                data.append(text[5:].strip())
            elif text == "":
                if data and kind == "failure":
                    raise ApiError(503, {"error": json.loads("\n".join(data))})
                if data and kind == "message":
                    yield event_id, json.loads("\n".join(data))
                kind, data = "message", []
    finally:
        conn.close()


class Stream(threading.Thread):
    """Follows one event stream for good: on a cut it reconnects with the last id it saw
    (Last-Event-ID), so nothing is missed and nothing is seen twice."""

    def __init__(
        self,
        api: Api,
        path: str,
        last_id: str,
        on_event: Callable[[Any], None],
        key: str | None = None,
    ) -> None:
        super().__init__(daemon=True, name=f"stream {path}")
        self.api, self.path, self.last_id = api, path, last_id
        self.on_event, self.key = on_event, key
        self.stop = threading.Event()
        self.cuts = 0

    def run(self) -> None:
        wait = RETRY_S
        while not self.stop.is_set():
            try:
                for event_id, event in sse(
                    self.api.url, self.path, self.last_id, self.key, self.stop
                ):
                    self.last_id = event_id or self.last_id
                    wait = RETRY_S
                    self.on_event(event)
                why = "closed by the server"
                pause = wait
            except ApiError as err:
                why = str(err)
                # The server's word on when to come back (503 busy, 429) beats our own guess.
                pause = wait if err.retry_after is None else err.retry_after
            except (OSError, http.client.HTTPException, ValueError) as err:
                why = str(err) or type(err).__name__
                pause = wait
            if self.stop.is_set():
                return
            log(f"bot: stream {self.path} cut ({why}); resuming after {self.last_id}")
            self.cuts += 1
            self.on_event(None)  # wake the player up: it reads the view, in case
            self.stop.wait(pause)
            wait = min(wait * 2, MAX_RETRY_S)


# ---- strategies: the move worth the most points now --------------------------------------------


def choose_metro(api: Api, view: dict[str, Any], moves: list[dict[str, Any]]) -> dict[str, Any]:
    """Each placement is scored with the rules file's `score` query (RULES.md §10) on the board
    with that tile added: the route points the placement completes, the bot's own and the
    others' alike (a route closed while short scores little; left open, the others' routes grow
    long: measured against the AI's random level, counting only the bot's own points lost
    244-500 over four games, counting everyone's drew 346-347). When no tile in hand completes
    anything, draw instead (RULES.md §5, draw and place): the drawn tile must then be placed,
    and the best place for it is taken. Past the server's limit on rules queries (429), the
    candidates not scored yet are left out: the best so far is played, never waited for."""
    board = "".join(view["board"])
    before = sum(s["score"] for s in view["seats"])
    best, best_value = None, -1
    for move in moves:
        if move["action"] != "place":
            continue
        answer = api.rules_if_allowed(
            {
                "op": "score",
                "game": "metro",
                "rules": view["rules"],
                "placements": board + move["placement"],
            }
        )
        if answer is None:
            if best is None:
                best, best_value = move, 0  # nothing scored: a draw, else this placement
            break
        value = sum(answer.get("scores") or []) - before if "scores" in answer else 0
        if value > best_value:
            best, best_value = move, value
    if best is None or (best_value <= 0 and any(m["action"] == "draw" for m in moves)):
        return {"action": "draw"}
    return {"action": "place", "placement": best["placement"]}


def metrox_score(
    sheet: dict[str, Any],
    lines: list[dict[str, Any]],
    first_taken: dict[str, bool],
    filled: set[str],
    transfers: int,
) -> float:
    """A sheet's score (RULES-METROX.md §5): bonuses, transfers, the empty-station penalty."""
    stations = {s for line in lines for s in line["stations"]}
    empty = len(stations - filled)
    penalty = empty if empty <= 10 else 10 + 2 * (empty - 10)
    bonus = 0
    for line in lines:
        if line["id"] in sheet["had"]:
            bonus += sheet["had"][line["id"]]
        elif set(line["stations"]) <= filled:
            bonus += line["bonus"][1] if first_taken[line["id"]] else line["bonus"][0]
    return bonus + transfers - penalty


def choose_metrox(view: dict[str, Any], moves: list[dict[str, Any]]) -> dict[str, Any]:
    """Each legal move is played on a copy of this seat's sheet (the card's effect, §3) and the
    sheet scored (§5, a line completed now earning its first bonus unless someone already took
    it); the best score wins, ties going to the move that fills more stations."""
    me = view["seat"]
    lines = view["map"]["lines"]
    degree: dict[str, int] = {}
    for line in lines:
        for s in line["stations"]:
            degree[s] = degree.get(s, 0) + 1
    sheet = next(s for s in view["sheets"] if s["seat"] == me)
    filled0 = set(sheet["filled"])
    first_taken = {entry["line"]: entry["first_taken"] for entry in view["lines"]}
    # The bonuses already earned stay earned whatever the move: their value from the sheet.
    info = {"had": {b["line"]: b["bonus"] for b in sheet["bonuses"]}}
    transfers0 = sum(int(v) for v in sheet.get("transfers", {}).values())
    card = str(view["card"]).rstrip("*")
    best, best_key = moves[0], (float("-inf"), -1)
    for move in moves:
        filled, transfers = set(filled0), transfers0
        if "line" in move:
            stations = next(li for li in lines if li["id"] == move["line"])["stations"]
            empty = [s for s in stations if s not in filled]
            if card.isdigit():  # number n: from the first empty station, up to n in a row
                if empty:
                    start = stations.index(empty[0])
                    for s in stations[start : start + int(card)]:
                        if s in filled:
                            break
                        filled.add(s)
            elif card.startswith("s"):  # skip n: the first n empty stations, jumping filled ones
                filled.update(empty[: int(card[1:])])
            elif card == "t" and empty:  # transfer: 2 x degree written in the first empty one
                filled.add(empty[0])
                transfers += 2 * degree[empty[0]]
        elif "station" in move:
            filled.add(move["station"])
        value = metrox_score(info, lines, first_taken, filled, transfers)
        key = (value, len(filled))
        if key > best_key:
            best, best_key = move, key
    return dict(best)


class LondonMap:
    """The Underground's map, read once with the rules file's `map` query (RULES-UNDERGROUND §1)."""

    def __init__(self, api: Api) -> None:
        data = api.rules({"op": "map", "game": "underground"})
        self.stations = {s["id"]: s for s in data["stations"]}


def choose_underground(
    view: dict[str, Any], moves: list[dict[str, Any]], london: LondonMap
) -> dict[str, Any]:
    """One step at a time. A rail scores what it adds for its colour (RULES-UNDERGROUND.md §3):
    +1 a national rail station, +2 a terminus, +3 both stations of a connection symbol, and a
    tenth of a point for touching the passenger or a face-up destination (the passenger rides
    lines there, +1 a ride). Loops are not counted. The bot lays every rail it may (4), then
    stops; when the passenger has tied ways, it takes the one riding most of its own lines."""
    me = view["seat"]
    mine = set(next(s for s in view["seats"] if s["seat"] == me)["colours"])
    rails = [m for m in moves if m.get("step") == "rail"]
    routes = [m for m in moves if m.get("step") == "route"]
    if routes:
        return dict(
            max(
                routes,
                key=lambda m: (len(mine & set(m.get("lines", []))), -len(m.get("lines", []))),
            )
        )
    if not rails:
        return next(dict(m) for m in moves if m.get("step") == "stop")
    touched: dict[str, set[str]] = {}
    for r in view["rails"]:
        touched.setdefault(r["colour"], set()).update((r["a"], r["b"]))
    symbol_of = view.get("connections", {})
    goals = set(view.get("face_up", [])) | {view.get("passenger")}

    def value(rail: dict[str, Any]) -> float:
        line = touched.get(rail["colour"], set())
        new = {rail["a"], rail["b"]} - line
        points = 0.0
        for sid in new:
            station = london.stations[sid]
            points += 1 if station["rail"] else 0
            points += 2 if station["terminus"] else 0
            symbol = symbol_of.get(sid)
            if symbol and symbol not in view["scored"][rail["colour"]]["symbols"]:
                pair = {s for s, sym in symbol_of.items() if sym == symbol}
                if pair <= line | new:
                    points += 3
            points += 0.1 if sid in goals else 0
        return points

    return dict(max(rails, key=value))


def choose(
    api: Api, view: dict[str, Any], moves: list[dict[str, Any]], maps: dict[str, Any]
) -> dict[str, Any]:
    game = view["game"]
    if game == "metro":
        return choose_metro(api, view, moves)
    if game == "metrox":
        return choose_metrox(view, moves)
    if game == "underground":
        if "london" not in maps:
            maps["london"] = LondonMap(api)
        return choose_underground(view, moves, maps["london"])
    raise SystemExit(f"bot: no strategy for the game {game!r}")


# ---- playing one game -----------------------------------------------------------------------


class GamePlayer:
    """Plays one seat of one game to its end: wakes on the game's events (or a slow poll), reads
    the view, and moves whenever its seat is in `to_move`."""

    def __init__(self, api: Api, game_id: str, token: str, maps: dict[str, Any]) -> None:
        self.api, self.game_id, self.token, self.maps = api, game_id, token, maps
        self.wake = threading.Event()
        self.stream: Stream | None = None

    def on_event(self, event: Any) -> None:
        if event and event.get("status") == "over" and self.stream is not None:
            self.stream.stop.set()  # the server ends a finished game's stream: no reconnecting
        self.wake.set()

    def view(self) -> dict[str, Any]:
        return dict(self.api.ok("GET", f"/api/games/{self.game_id}", token=self.token))

    def play(self) -> dict[str, Any]:
        """Play until the game is over; the last view.

        The wake-up flag is cleared before the view is read, never after: an event that comes
        while the bot reads (the AI answering at once) then wakes the next wait at once instead
        of being wiped out, which left the bot asleep until its slow poll."""
        view = self.view()
        self.stream = Stream(
            self.api,
            f"/api/games/{self.game_id}/events",
            view.get("last_event_id", ""),
            self.on_event,
        )
        self.stream.start()
        try:
            while view["status"] != "over":
                mine = view.get("seat") in view.get("to_move", [])
                if not (mine and self.move(view)):
                    self.wake.wait(POLL_S if not mine else 1.0)
                self.wake.clear()  # before the read: whatever comes from now on wakes us
                view = self.view()
            return view
        finally:
            self.stream.stop.set()

    def move(self, view: dict[str, Any]) -> bool:
        """Choose and send one move; whether one was played. A 409 (a stale version: someone
        moved first) is answered by reading the view and choosing again, once; a refusal is
        reported, never repeated blindly."""
        path = f"/api/games/{self.game_id}"
        for attempt in (1, 2):
            status, legal = self.api.call("GET", path + "/legal", token=self.token)
            if status == 409:
                return False  # not ours after all: the caller reads the view again
            if status != 200:
                raise ApiError(status, legal)
            if not legal["moves"]:
                return False
            body = choose(self.api, view, legal["moves"], self.maps)
            body.update(expected_version=legal["version"], move_id=secrets.token_hex(8))
            status, answer = self.api.call("POST", path + "/moves", body, token=self.token)
            if status == 200:
                return True
            if status != 409:
                raise ApiError(status, answer)
            if attempt == 1:
                view = self.view()  # someone moved first: choose again on the fresh view
                if view.get("seat") not in view.get("to_move", []):
                    return False
        return False


def final_line(view: dict[str, Any]) -> str:
    parts = []
    for seat in view["seats"]:
        name = seat.get("name") or f"seat {seat['seat']}"
        if seat.get("kind") == "ai" and seat.get("level"):
            name = f"{name} ({seat['level']})"
        parts.append(f"{name} {seat['score']}")
    return "final scores: " + ", ".join(parts)


def vs_ai(api: Api, game: str, level: str, name: str) -> int:
    # One Idempotency-Key for this create, however often it is sent: a retry after a lost
    # answer (a 503, a cut connection) gets the same table, never a second one.
    made = api.ok(
        "POST",
        "/api/games",
        {
            "game": game,
            "rules": {"players": 2},
            "seats": [{"kind": "human", "name": name}, {"kind": "ai", "level": level}],
        },
        idempotency_key=secrets.token_urlsafe(24),
    )
    log(f"bot: playing {game} {made['game_id']} against the AI ({level})")
    view = GamePlayer(api, made["game_id"], made["token"], {}).play()
    print(final_line(view), flush=True)
    return 0


# ---- a bot account: invitations and the ladder ------------------------------------------------


class BotAccount:
    """A registered bot: follows its player event stream, accepts invitations, plays each game
    in a thread of its own."""

    def __init__(self, api: Api, name: str, key_file: str) -> None:
        self.api, self.name, self.key_file = api, name, key_file
        self.playing: dict[str, threading.Thread] = {}
        self.lock = threading.Lock()
        self.maps: dict[str, Any] = {}

    def login(self) -> None:
        """The device key from the key file, else a new bot account whose key is saved there."""
        if os.path.exists(self.key_file):
            with open(self.key_file, encoding="utf-8") as f:
                self.api.key = f.read().strip()
            me = self.api.ok("GET", "/api/players/me")
            log(f"bot: signed in as {me['name']} ({me['player_id']})")
            return
        made = self.api.ok("POST", "/api/players", {"name": self.name, "bot": True})
        fd = os.open(self.key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(made["device_key"] + "\n")
        self.api.key = made["device_key"]
        log(f"bot: registered {made['name']} ({made['player_id']}); key in {self.key_file}")

    def start_game(self, game_id: str, token: str) -> None:
        with self.lock:
            if game_id in self.playing and self.playing[game_id].is_alive():
                return
            thread = threading.Thread(target=self.play, args=(game_id, token), daemon=True)
            self.playing[game_id] = thread
        thread.start()

    def play(self, game_id: str, token: str) -> None:
        try:
            view = GamePlayer(self.api, game_id, token, self.maps).play()
            print(f"game {game_id} over: {final_line(view)}", flush=True)
        except ApiError as err:
            log(f"bot: game {game_id}: {err}")

    def on_event(self, event: Any) -> None:
        if not event:
            return
        kind = event.get("type")
        if kind == "invitation":
            if event.get("game") not in GAMES:
                self.api.call("POST", f"/api/invitations/{event['invitation_id']}/decline")
                return
            status, seat = self.api.call(
                "POST", f"/api/invitations/{event['invitation_id']}/accept"
            )
            if status == 200:
                log(f"bot: accepted {event['game']} {seat['game_id']} (seat {seat['seat']})")
                self.start_game(seat["game_id"], seat["token"])
            else:
                log(f"bot: could not accept {event['invitation_id']}: {status} {seat}")
        elif kind == "your_turn" and event["game_id"] not in self.playing:
            # A game from before a restart: a token of this device's own for the seat held.
            status, seat = self.api.call("POST", f"/api/games/{event['game_id']}/claim")
            if status == 200:
                self.start_game(seat["game_id"], seat["token"])
        elif kind in ("paused", "resumed"):
            log(f"bot: {kind}: {event.get('reason', '')} {event.get('until', '')}")

    def run(self, game: str) -> int:
        self.login()
        # The ladder (opt in for this game kind); a platform without a ladder answers 404.
        status, answer = self.api.call("PUT", "/api/players/me/ladder", {"games": [game]})
        log(f"bot: ladder {status} {answer}")
        # The stream resumes after the last event handled, by this run or the one before.
        seen = self.key_file + ".last-event"
        last = ""
        if os.path.exists(seen):
            with open(seen, encoding="utf-8") as f:
                last = f.read().strip()

        def on_event(event: Any) -> None:
            self.on_event(event)
            if event and stream.last_id:
                with open(seen, "w", encoding="utf-8") as f:
                    f.write(stream.last_id)

        stream = Stream(self.api, "/api/players/me/events", last, on_event, key=self.api.key)
        stream.start()
        try:
            while stream.is_alive():
                stream.join(3600)
        except KeyboardInterrupt:
            stream.stop.set()
        return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True, help="the platform, e.g. http://127.0.0.1:8000")
    parser.add_argument(
        "--game",
        required=True,
        choices=GAMES,
        help="the game to play (--vs-ai) or to play on the ladder (a bot account)",
    )
    parser.add_argument("--vs-ai", metavar="LEVEL", help="play one game against this AI level")
    parser.add_argument("--name", default="greedy-bot", help="the bot's name at the table")
    parser.add_argument(
        "--key-file",
        default="bot.key",
        help="where the bot account's device key is kept (without --vs-ai)",
    )
    args = parser.parse_args(argv)
    api = Api(args.url)
    try:
        if args.vs_ai:
            return vs_ai(api, args.game, args.vs_ai, args.name)
        return BotAccount(api, args.name, args.key_file).run(args.game)
    except ApiError as err:
        log(f"bot: {err}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
