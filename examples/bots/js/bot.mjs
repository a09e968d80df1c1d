#!/usr/bin/env node
// A greedy example bot for the Metro platform, for Node 20 with nothing but its own fetch.
//
//   node bot.mjs --url http://127.0.0.1:8000 --game metro --vs-ai easy
//   node bot.mjs --url http://127.0.0.1:8000 --game metrox --name greedy-bot --key-file bot.key
//
// With --vs-ai it creates a table against the platform's AI at that level, plays it to the end
// and prints the final scores as its last line. Without it, it registers (or reuses, from
// --key-file) a bot account, listens on its player event stream, accepts every invitation and
// plays each game to its end, several at once, until it is stopped. docs/bots.md explains every
// call; examples/bots/python/bot.py is the same bot in Python, choice for choice.
//
// Whose turn it is comes from the game's event stream (Server-Sent Events, resumed with
// Last-Event-ID after a cut); the view read after each event is the truth, and a quiet stream
// is backed by a slow poll, so a lost event delays the bot, it never stalls it. The wake-up flag
// is cleared *before* the view is read, so an event that arrives while the bot reads is never
// forgotten (clearing it after cost a 10 s poll each time). A create carries an Idempotency-Key,
// so a retry after a lost answer never makes a second table; a refused stream (503 busy, 429)
// waits the server's Retry-After; `event: failure` ends a connection, which resumes after the
// last event seen.

import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";

const POLL_MS = 10_000; // a quiet stream: read the view anyway this often
const RETRY_MS = 1_000; // first wait after a refused connection or a 503, doubled up to MAX
const MAX_RETRY_MS = 8_000;
const GAMES = ["metro", "metrox", "underground"];

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
const log = (...parts) => console.error("bot:", ...parts);

// An answer the bot cannot go on from; retryAfterMs: the server's Retry-After, when it sent one.
class ApiError extends Error {
  constructor(status, body, retryAfterMs = null) {
    const err = (body && body.error) || {};
    super(`${status} ${err.code || ""}: ${err.message || JSON.stringify(body)}`);
    this.status = status;
    this.code = err.code || "";
    this.retryAfterMs = retryAfterMs;
  }
}

// The Retry-After header in ms (the server's say on when to come back), or null.
function retryAfterMs(headers) {
  const seconds = Number.parseFloat(headers.get("Retry-After") ?? "");
  return Number.isFinite(seconds) ? Math.max(0, seconds) * 1000 : null;
}

// JSON over HTTP. Connection failures and 503s are retried (the gateway or the engine
// restarting): after the server's Retry-After when it sent one, else with back-off; 429 waits for
// Retry-After; any other answer is the caller's. A retried request is sent unchanged (the same
// move_id, the same Idempotency-Key), so it never takes effect twice.
class Api {
  constructor(url, key = null) {
    this.url = url.replace(/\/+$/, "");
    this.key = key;
  }

  // The player's device key goes only where the player is asked for: a seat is played with its
  // token, and the rules queries need nobody.
  headers(token, path) {
    const h = { Accept: "application/json" };
    if (token) h.Authorization = `Bearer ${token}`;
    const needsKey = /^\/api\/(players|invitations)/.test(path) || path.endsWith("/claim");
    if (this.key && needsKey) h["X-Player-Key"] = this.key;
    return h;
  }

  async call(method, path, body = undefined, token = null, { giveUpMs = 120_000, idempotencyKey = null, waitWhenLimited = true } = {}) {
    const headers = this.headers(token, path);
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (idempotencyKey) headers["Idempotency-Key"] = idempotencyKey;
    const deadline = Date.now() + giveUpMs;
    let wait = RETRY_MS;
    for (;;) {
      try {
        const reply = await fetch(this.url + path, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(60_000),
        });
        const text = await reply.text();
        let answer = null;
        try {
          answer = text ? JSON.parse(text) : null;
        } catch {
          answer = { error: { code: "http", message: text.slice(0, 200) } };
        }
        if (reply.status !== 429 && reply.status !== 503) return [reply.status, answer];
        if (reply.status === 429 && !waitWhenLimited) return [reply.status, answer];
        wait = retryAfterMs(reply.headers) ?? wait;
      } catch (err) {
        log(`${method} ${path}: ${err.cause?.code || err.message}; trying again`);
      }
      if (Date.now() + wait > deadline) throw new ApiError(503, { error: { code: "unavailable", message: "gave up" } });
      await sleep(wait);
      wait = Math.min(wait * 2, MAX_RETRY_MS);
    }
  }

  async ok(method, path, body = undefined, token = null, options = {}) {
    const [status, answer] = await this.call(method, path, body, token, options);
    if (status >= 300) throw new ApiError(status, answer);
    return answer;
  }

  // One `metro rules` query over HTTP (POST /api/rules): pure, no game state.
  rules(query) {
    return this.ok("POST", "/api/rules", query);
  }

  // A `rules` query, or null when the server's limit on them (RATE_LIMIT_RULES) is reached now:
  // a move is not worth waiting a minute for one more candidate's score.
  async rulesIfAllowed(query) {
    const [status, answer] = await this.call("POST", "/api/rules", query, null, { waitWhenLimited: false });
    if (status === 429) return null;
    if (status >= 300) throw new ApiError(status, answer);
    return answer;
  }
}

// Follows one event stream for good: on a cut it reconnects with the last id it saw
// (Last-Event-ID), so nothing is missed and nothing is seen twice. onEvent(null) after a cut.
class Stream {
  constructor(api, path, lastId, onEvent, withKey = false) {
    Object.assign(this, { api, path, lastId, onEvent, withKey });
    this.stopped = false;
    this.controller = null;
    this.cuts = 0;
  }

  stop() {
    this.stopped = true;
    if (this.controller) this.controller.abort();
  }

  async run() {
    let wait = RETRY_MS;
    while (!this.stopped) {
      let why = "closed by the server";
      let pause = wait;
      try {
        await this.follow(() => (wait = RETRY_MS));
        pause = wait;
      } catch (err) {
        why = err.cause?.code || err.message;
        // The server's word on when to come back (503 busy, 429) beats our own guess.
        pause = err.retryAfterMs ?? wait;
      }
      if (this.stopped) return;
      log(`stream ${this.path} cut (${why}); resuming after ${this.lastId}`);
      this.cuts += 1;
      this.onEvent(null); // wake the player up: it reads the view, in case
      await sleep(pause);
      wait = Math.min(wait * 2, MAX_RETRY_MS);
    }
  }

  // One connection: events until the server ends it or it stays silent too long (a keep-alive
  // comment comes every 15 s, so 4 x POLL_MS of silence means a dead connection). A refused
  // connection throws ApiError with the server's Retry-After; `event: failure` (the stream broke
  // on the server's side) throws its error, so run() reconnects after the last event seen.
  async follow(connected) {
    const controller = (this.controller = new AbortController());
    let timer = setTimeout(() => controller.abort(new Error("silent")), 4 * POLL_MS);
    const headers = { ...(this.withKey ? this.api.headers(null, this.path) : {}), Accept: "text/event-stream" };
    if (this.lastId) headers["Last-Event-ID"] = this.lastId;
    try {
      const reply = await fetch(this.api.url + this.path, { headers, signal: controller.signal });
      if (reply.status !== 200) {
        throw new ApiError(reply.status, await reply.json().catch(() => null), retryAfterMs(reply.headers));
      }
      connected();
      const decoder = new TextDecoder();
      let buffer = "";
      let eventId = "";
      let kind = "message";
      let data = [];
      for await (const chunk of reply.body) {
        clearTimeout(timer);
        timer = setTimeout(() => controller.abort(new Error("silent")), 4 * POLL_MS);
        buffer += decoder.decode(chunk, { stream: true });
        let end;
        while ((end = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, end).replace(/\r$/, "");
          buffer = buffer.slice(end + 1);
          if (line.startsWith("id:")) eventId = line.slice(3).trim();
          else if (line.startsWith("event:")) kind = line.slice(6).trim();
          else if (line.startsWith("data:")) data.push(line.slice(5).trim());
          else if (line === "") {
            const text = data.join("\n");
            const was = kind;
            [kind, data] = ["message", []];
            if (!text) continue;
            if (was === "failure") throw new ApiError(503, { error: JSON.parse(text) });
            if (was !== "message") continue; // e.g. `event: view` of a ?delta=1 stream
            const event = JSON.parse(text);
            if (eventId) this.lastId = eventId;
            this.onEvent(event);
          }
        }
      }
    } finally {
      clearTimeout(timer);
    }
  }
}

// ---- strategies: the move worth the most points now (the same as bot.py's) --------------------

// Each placement is scored with the rules file's `score` query (RULES.md §10) on the board with
// that tile added: the route points it completes, the bot's own and the others' alike (a route
// closed while short scores little; left open, the others' routes grow long). When no tile in
// hand completes anything, draw (RULES.md §5, draw and place); the drawn tile must then be
// placed, and the best place for it is taken. Past the server's limit on rules queries (429),
// the candidates not scored yet are left out: the best so far is played, never waited for.
async function chooseMetro(api, view, moves) {
  const board = view.board.join("");
  const before = view.seats.reduce((sum, s) => sum + s.score, 0);
  let best = null;
  let bestValue = -1;
  for (const move of moves) {
    if (move.action !== "place") continue;
    const answer = await api.rulesIfAllowed({ op: "score", game: "metro", rules: view.rules, placements: board + move.placement });
    if (answer === null) {
      if (best === null) [best, bestValue] = [move, 0]; // nothing scored: a draw, else this placement
      break;
    }
    const value = answer.scores ? answer.scores.reduce((a, b) => a + b, 0) - before : 0;
    if (value > bestValue) [best, bestValue] = [move, value];
  }
  if (best === null || (bestValue <= 0 && moves.some((m) => m.action === "draw"))) return { action: "draw" };
  return { action: "place", placement: best.placement };
}

// A sheet's score (RULES-METROX.md §5): bonuses, transfers, the empty-station penalty.
function metroxScore(had, lines, firstTaken, filled, transfers) {
  const stations = new Set(lines.flatMap((line) => line.stations));
  let empty = 0;
  for (const s of stations) if (!filled.has(s)) empty += 1;
  const penalty = empty <= 10 ? empty : 10 + 2 * (empty - 10);
  let bonus = 0;
  for (const line of lines) {
    if (line.id in had) bonus += had[line.id];
    else if (line.stations.every((s) => filled.has(s))) bonus += firstTaken[line.id] ? line.bonus[1] : line.bonus[0];
  }
  return bonus + transfers - penalty;
}

// Each legal move is played on a copy of this seat's sheet (the card's effect, §3) and the sheet
// scored (§5, a line completed now earning its first bonus unless someone already took it); the
// best score wins, ties going to the move that fills more stations.
function chooseMetrox(view, moves) {
  const lines = view.map.lines;
  const degree = {};
  for (const line of lines) for (const s of line.stations) degree[s] = (degree[s] || 0) + 1;
  const sheet = view.sheets.find((s) => s.seat === view.seat);
  const had = Object.fromEntries(sheet.bonuses.map((b) => [b.line, b.bonus]));
  const firstTaken = Object.fromEntries(view.lines.map((l) => [l.line, l.first_taken]));
  const transfers0 = Object.values(sheet.transfers || {}).reduce((a, b) => a + Number(b), 0);
  const card = String(view.card).replace(/\*$/, "");
  let best = moves[0];
  let bestKey = [-Infinity, -1];
  for (const move of moves) {
    const filled = new Set(sheet.filled);
    let transfers = transfers0;
    if ("line" in move) {
      const stations = lines.find((l) => l.id === move.line).stations;
      const empty = stations.filter((s) => !filled.has(s));
      if (/^\d+$/.test(card)) {
        // number n: from the first empty station, up to n in a row
        if (empty.length) {
          const start = stations.indexOf(empty[0]);
          for (const s of stations.slice(start, start + Number(card))) {
            if (filled.has(s)) break;
            filled.add(s);
          }
        }
      } else if (card.startsWith("s")) {
        // skip n: the first n empty stations, jumping filled ones
        for (const s of empty.slice(0, Number(card.slice(1)))) filled.add(s);
      } else if (card === "t" && empty.length) {
        // transfer: 2 x degree written in the first empty one
        filled.add(empty[0]);
        transfers += 2 * degree[empty[0]];
      }
    } else if ("station" in move) {
      filled.add(move.station);
    }
    const key = [metroxScore(had, lines, firstTaken, filled, transfers), filled.size];
    if (key[0] > bestKey[0] || (key[0] === bestKey[0] && key[1] > bestKey[1])) [best, bestKey] = [move, key];
  }
  return { ...best };
}

// One step at a time. A rail scores what it adds for its colour (RULES-UNDERGROUND.md §3): +1 a
// national rail station, +2 a terminus, +3 both stations of a connection symbol, and a tenth of
// a point for touching the passenger or a face-up destination (the passenger rides lines there,
// +1 a ride). Loops are not counted. The bot lays every rail it may (4), then stops; when the
// passenger has tied ways, it takes the one riding most of its own lines.
function chooseUnderground(view, moves, london) {
  const mine = new Set(view.seats.find((s) => s.seat === view.seat).colours);
  const routes = moves.filter((m) => m.step === "route");
  const byKey = (key) => (a, b) => (key(b)[0] - key(a)[0]) || (key(b)[1] - key(a)[1]);
  if (routes.length) {
    const key = (m) => [(m.lines || []).filter((c) => mine.has(c)).length, -(m.lines || []).length];
    return { ...routes.sort(byKey(key))[0] };
  }
  const rails = moves.filter((m) => m.step === "rail");
  if (!rails.length) return { ...moves.find((m) => m.step === "stop") };
  const touched = {};
  for (const r of view.rails) (touched[r.colour] ||= new Set()).add(r.a).add(r.b);
  const symbolOf = view.connections || {};
  const goals = new Set([...(view.face_up || []), view.passenger]);
  const value = (rail) => {
    const line = touched[rail.colour] || new Set();
    const added = [rail.a, rail.b].filter((s) => !line.has(s));
    let points = 0;
    for (const sid of added) {
      const station = london[sid];
      if (station.rail) points += 1;
      if (station.terminus) points += 2;
      const symbol = symbolOf[sid];
      if (symbol && !view.scored[rail.colour].symbols.includes(symbol)) {
        const pair = Object.keys(symbolOf).filter((s) => symbolOf[s] === symbol);
        if (pair.every((s) => line.has(s) || added.includes(s))) points += 3;
      }
      if (goals.has(sid)) points += 0.1;
    }
    return points;
  };
  let best = rails[0];
  for (const rail of rails) if (value(rail) > value(best)) best = rail;
  return { ...best };
}

async function choose(api, view, moves, maps) {
  if (view.game === "metro") return chooseMetro(api, view, moves);
  if (view.game === "metrox") return chooseMetrox(view, moves);
  if (view.game === "underground") {
    if (!maps.london) {
      const map = await api.rules({ op: "map", game: "underground" });
      maps.london = Object.fromEntries(map.stations.map((s) => [s.id, s]));
    }
    return chooseUnderground(view, moves, maps.london);
  }
  throw new Error(`no strategy for the game ${view.game}`);
}

// ---- playing one game -----------------------------------------------------------------------

// Plays one seat of one game to its end: wakes on the game's events (or a slow poll), reads the
// view, and moves whenever its seat is in `to_move`.
class GamePlayer {
  constructor(api, gameId, token, maps) {
    Object.assign(this, { api, gameId, token, maps });
    this.wakeUp = () => {};
    this.woken = false;
  }

  wake() {
    this.woken = true;
    this.wakeUp();
  }

  waitForEvent(ms) {
    if (this.woken) return Promise.resolve();
    return new Promise((done) => {
      const timer = setTimeout(done, ms);
      this.wakeUp = () => {
        clearTimeout(timer);
        done();
      };
    });
  }

  view() {
    return this.api.ok("GET", `/api/games/${this.gameId}`, undefined, this.token);
  }

  // Play until the game is over; the last view. The wake-up flag is cleared before the view is
  // read, never after: an event that comes while the bot reads (the AI answering at once) then
  // ends the next wait at once instead of being wiped out, which left the bot asleep until its
  // slow poll.
  async play() {
    let view = await this.view();
    const stream = new Stream(this.api, `/api/games/${this.gameId}/events`, view.last_event_id || "", (event) => {
      if (event && event.status === "over") stream.stopped = true; // the server ends a finished game's stream
      this.wake();
    });
    const running = stream.run();
    try {
      while (view.status !== "over") {
        const mine = (view.to_move || []).includes(view.seat);
        if (!(mine && (await this.move(view)))) await this.waitForEvent(mine ? 1000 : POLL_MS);
        this.woken = false; // before the read: whatever comes from now on wakes us
        view = await this.view();
      }
      return view;
    } finally {
      stream.stop();
      await running;
    }
  }

  // Choose and send one move; whether one was played. A 409 (a stale version: someone moved
  // first) is answered by reading the view and choosing again, once; a refusal is reported,
  // never repeated blindly.
  async move(view) {
    const path = `/api/games/${this.gameId}`;
    for (const attempt of [1, 2]) {
      const [status, legal] = await this.api.call("GET", `${path}/legal`, undefined, this.token);
      if (status === 409) return false; // not ours after all: the caller reads the view again
      if (status !== 200) throw new ApiError(status, legal);
      if (!legal.moves.length) return false;
      const body = await choose(this.api, view, legal.moves, this.maps);
      body.expected_version = legal.version;
      body.move_id = randomBytes(8).toString("hex");
      const [moved, answer] = await this.api.call("POST", `${path}/moves`, body, this.token);
      if (moved === 200) return true;
      if (moved !== 409) throw new ApiError(moved, answer);
      if (attempt === 1) {
        view = await this.view(); // someone moved first: choose again on the fresh view
        if (!(view.to_move || []).includes(view.seat)) return false;
      }
    }
    return false;
  }
}

function finalLine(view) {
  const parts = view.seats.map((seat) => {
    let name = seat.name || `seat ${seat.seat}`;
    if (seat.kind === "ai" && seat.level) name = `${name} (${seat.level})`;
    return `${name} ${seat.score}`;
  });
  return `final scores: ${parts.join(", ")}`;
}

async function vsAi(api, game, level, name) {
  // One Idempotency-Key for this create, however often it is sent: a retry after a lost answer
  // (a 503, a cut connection) gets the same table, never a second one.
  const idempotencyKey = randomBytes(18).toString("base64url");
  const made = await api.ok(
    "POST",
    "/api/games",
    { game, rules: { players: 2 }, seats: [{ kind: "human", name }, { kind: "ai", level }] },
    null,
    { idempotencyKey },
  );
  log(`playing ${game} ${made.game_id} against the AI (${level})`);
  const view = await new GamePlayer(api, made.game_id, made.token, {}).play();
  console.log(finalLine(view));
  return 0;
}

// ---- a bot account: invitations and the ladder ------------------------------------------------

class BotAccount {
  constructor(api, name, keyFile) {
    Object.assign(this, { api, name, keyFile });
    this.playing = new Map();
    this.maps = {};
  }

  // The device key from the key file, else a new bot account whose key is saved there.
  async login() {
    if (existsSync(this.keyFile)) {
      this.api.key = readFileSync(this.keyFile, "utf8").trim();
      const me = await this.api.ok("GET", "/api/players/me");
      log(`signed in as ${me.name} (${me.player_id})`);
      return;
    }
    const made = await this.api.ok("POST", "/api/players", { name: this.name, bot: true });
    writeFileSync(this.keyFile, made.device_key + "\n", { mode: 0o600, flag: "wx" });
    this.api.key = made.device_key;
    log(`registered ${made.name} (${made.player_id}); key in ${this.keyFile}`);
  }

  startGame(gameId, token) {
    if (this.playing.has(gameId)) return;
    const game = new GamePlayer(this.api, gameId, token, this.maps)
      .play()
      .then((view) => console.log(`game ${gameId} over: ${finalLine(view)}`))
      .catch((err) => log(`game ${gameId}: ${err.message}`))
      .finally(() => this.playing.delete(gameId));
    this.playing.set(gameId, game);
  }

  async onEvent(event) {
    if (!event) return;
    if (event.type === "invitation") {
      const id = event.invitation_id;
      if (!GAMES.includes(event.game)) {
        await this.api.call("POST", `/api/invitations/${id}/decline`);
        return;
      }
      const [status, seat] = await this.api.call("POST", `/api/invitations/${id}/accept`);
      if (status === 200) {
        log(`accepted ${event.game} ${seat.game_id} (seat ${seat.seat})`);
        this.startGame(seat.game_id, seat.token);
      } else log(`could not accept ${id}: ${status} ${JSON.stringify(seat)}`);
    } else if (event.type === "your_turn" && !this.playing.has(event.game_id)) {
      // A game from before a restart: a token of this device's own for the seat held.
      const [status, seat] = await this.api.call("POST", `/api/games/${event.game_id}/claim`);
      if (status === 200) this.startGame(seat.game_id, seat.token);
    } else if (event.type === "paused" || event.type === "resumed") {
      log(`${event.type}: ${event.reason || ""} ${event.until || ""}`);
    }
  }

  async run(game) {
    await this.login();
    // The ladder (opt in for this game kind); a platform without a ladder answers 404.
    const [status, answer] = await this.api.call("PUT", "/api/players/me/ladder", { games: [game] });
    log(`ladder ${status} ${JSON.stringify(answer)}`);
    // The stream resumes after the last event handled, by this run or the one before.
    const seen = `${this.keyFile}.last-event`;
    const last = existsSync(seen) ? readFileSync(seen, "utf8").trim() : "";
    const onEvent = async (event) => {
      await this.onEvent(event);
      if (event && stream.lastId) writeFileSync(seen, stream.lastId);
    };
    const stream = new Stream(this.api, "/api/players/me/events", last, (e) => onEvent(e).catch((err) => log(err.message)), true);
    await stream.run();
    return 0;
  }
}

async function main() {
  const { values } = parseArgs({
    options: {
      url: { type: "string" },
      game: { type: "string" },
      "vs-ai": { type: "string" },
      name: { type: "string", default: "greedy-bot" },
      "key-file": { type: "string", default: "bot.key" },
    },
  });
  if (!values.url || !GAMES.includes(values.game)) {
    console.error(`usage: node bot.mjs --url URL --game ${GAMES.join("|")} [--vs-ai LEVEL] [--name NAME] [--key-file PATH]`);
    return 2;
  }
  const api = new Api(values.url);
  try {
    if (values["vs-ai"]) return await vsAi(api, values.game, values["vs-ai"], values.name);
    return await new BotAccount(api, values.name, values["key-file"]).run(values.game);
  } catch (err) {
    log(err.message);
    return 1;
  }
}

process.exitCode = await main();
