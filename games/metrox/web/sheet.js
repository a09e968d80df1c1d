// Metro X's rules as far as the page needs them (RULES-METROX.md §2-§5): what a card does to a
// sheet, for the choosing preview and for rebuilding sheets in a replay. The server stays the
// judge; these functions only draw what it would do.

import { t } from "/i18n.js";

/** A card code ("3", "s2", "t", "f*", "5*") as {kind, n, shuffle}. */
export function cardInfo(code) {
  if (!code) return null;
  const shuffle = code.endsWith("*");
  const body = shuffle ? code.slice(0, -1) : code;
  if (body === "t") return { kind: "transfer", n: 0, shuffle };
  if (body === "f") return { kind: "free", n: 0, shuffle };
  if (body.startsWith("s")) return { kind: "skip", n: Number(body.slice(1)), shuffle };
  return { kind: "number", n: Number(body), shuffle };
}

/** What the card writes in a window: "3", "(2)" or "*"; null for a free card. */
export function windowMark(code) {
  const c = cardInfo(code);
  if (!c || c.kind === "free") return null;
  if (c.kind === "skip") return `(${c.n})`;
  if (c.kind === "transfer") return "*";
  return String(c.n);
}

/** A window's mark as the page shows it: the transfer's "*" (the server's and the replay's
 *  spelling) as the card's own ★, so a transfer has one mark on cards, windows and words. */
export function shownMark(mark) {
  return mark === "*" ? "\u2605" : mark;
}

/** A card in words, for buttons, replays and screen readers. */
export function cardWords(code) {
  const c = cardInfo(code);
  if (!c) return t("metrox.no_card");
  const base = t(`metrox.card_kind.${c.kind}`, { n: c.n });
  return c.shuffle ? t("metrox.then_shuffle", { card: base }) : base;
}

/** Indexes of a map: stations by id, degree of each station, lines by id. */
export function indexMap(map) {
  const stations = new Map(map.stations.map((s) => [s.id, s]));
  const degree = new Map(map.stations.map((s) => [s.id, 0]));
  for (const line of map.lines) for (const s of line.stations) degree.set(s, (degree.get(s) || 0) + 1);
  const lines = new Map(map.lines.map((l) => [l.id, l]));
  return { map, stations, degree, lines };
}

/** A sheet from the view's shape, with `filled` as a Set (a copy: never changes the view). */
export function sheetFrom(view) {
  return {
    seat: view.seat,
    filled: new Set(view.filled || []),
    transfers: { ...(view.transfers || {}) },
    windows: Object.fromEntries(Object.entries(view.windows || {}).map(([k, v]) => [k, [...v]])),
    bonuses: [...(view.bonuses || [])],
  };
}

export function emptySheet(index, seat) {
  return {
    seat,
    filled: new Set(),
    transfers: {},
    windows: Object.fromEntries(index.map.lines.map((l) => [l.id, []])),
    bonuses: [],
  };
}

export function copySheet(sheet) {
  return sheetFrom({ ...sheet, filled: [...sheet.filled] });
}

/** The line still has an empty window on this sheet. */
export function hasWindow(index, sheet, lineId) {
  const line = index.lines.get(lineId);
  return !!line && (sheet.windows[lineId] || []).length < line.windows;
}

/**
 * What `card` would do on `lineId` of `sheet` (§3): {stations: [ids filled], transfer: value or
 * null, mark: window text}. Free cards fill the one station chosen: use `freeEffect`.
 */
export function lineEffect(index, sheet, code, lineId) {
  const c = cardInfo(code);
  const line = index.lines.get(lineId);
  const out = { stations: [], transfer: null, mark: windowMark(code) };
  if (!c || !line || c.kind === "free") return out;
  const st = line.stations;
  const first = st.findIndex((s) => !sheet.filled.has(s));
  if (first < 0) return out;
  if (c.kind === "number") {
    for (let i = first; i < st.length && out.stations.length < c.n && !sheet.filled.has(st[i]); i++) {
      out.stations.push(st[i]);
    }
  } else if (c.kind === "skip") {
    for (let i = first; i < st.length && out.stations.length < c.n; i++) {
      if (!sheet.filled.has(st[i])) out.stations.push(st[i]);
    }
  } else if (c.kind === "transfer") {
    out.stations.push(st[first]);
    out.transfer = 2 * (index.degree.get(st[first]) || 0);
  }
  return out;
}

/** Lines completed on `sheet` (every station filled). */
export function completeLines(index, sheet) {
  return index.map.lines.filter((l) => l.stations.every((s) => sheet.filled.has(s))).map((l) => l.id);
}

/** Apply one seat's move (a record's move object) with `card` to `sheet`, in place. */
export function applyMove(index, sheet, code, move) {
  if (!move || move.pass) return;
  if (move.station !== undefined) {
    sheet.filled.add(move.station);
    return;
  }
  if (move.line === undefined) return;
  const eff = lineEffect(index, sheet, code, move.line);
  if (!sheet.windows[move.line]) sheet.windows[move.line] = [];
  if (eff.mark !== null) sheet.windows[move.line].push(eff.mark);
  for (const s of eff.stations) sheet.filled.add(s);
  if (eff.transfer !== null && eff.stations.length) sheet.transfers[eff.stations[0]] = eff.transfer;
}

/** §5's penalty for `e` empty stations. */
export function penalty(e) {
  return e <= 10 ? e : 10 + 2 * (e - 10);
}

/** A sheet's score breakdown, as the view's `final` entries. */
export function breakdown(index, sheet) {
  const bonuses = sheet.bonuses.reduce((a, b) => a + b.bonus, 0);
  const transfers = Object.values(sheet.transfers).reduce((a, b) => a + b, 0);
  const empty = index.map.stations.length - sheet.filled.size;
  const pen = penalty(empty);
  return { seat: sheet.seat, bonuses, transfers, empty, penalty: pen, total: bonuses + transfers - pen };
}

/**
 * Rebuild every position of a finished game from its record (§7): positions[i] is the state after
 * i turns: {sheets, lines (as the view's), card (revealed for turn i, or null at the end), turn}.
 */
export function replayPositions(index, record) {
  const n = record.turns.length ? record.turns[0].length : record.seats?.length || 1;
  let sheets = Array.from({ length: n }, (_, p) => emptySheet(index, p));
  const taken = new Map(index.map.lines.map((l) => [l.id, []]));
  const snapshot = (i) => ({
    turn: i,
    card: i < record.cards.length && i < record.turns.length ? record.cards[i] : null,
    sheets: sheets.map(copySheet),
    lines: index.map.lines.map((l) => ({
      line: l.id,
      first_taken: taken.get(l.id).length > 0,
      completed: taken.get(l.id).map((e) => ({ ...e })),
    })),
  });
  const positions = [snapshot(0)];
  record.turns.forEach((moves, i) => {
    const code = record.cards[i];
    const before = sheets.map((s) => new Set(completeLines(index, s)));
    sheets = sheets.map(copySheet);
    moves.forEach((mv, p) => applyMove(index, sheets[p], code, mv));
    const firstTaken = new Map([...taken].map(([k, v]) => [k, v.length > 0]));
    sheets.forEach((sheet, p) => {
      for (const lineId of completeLines(index, sheet)) {
        if (before[p].has(lineId)) continue;
        const line = index.lines.get(lineId);
        const first = !firstTaken.get(lineId);
        sheet.bonuses.push({ line: lineId, bonus: first ? line.bonus[0] : line.bonus[1], first, turn: i });
        taken.get(lineId).push({ seat: p, turn: i, first });
      }
    });
    positions.push(snapshot(i + 1));
  });
  return positions;
}

/** A move object in words: "line C", "station Quay", "pass". */
export function moveWords(index, move) {
  if (!move) return "—";
  if (move.pass) return t("metrox.move_pass");
  if (move.station !== undefined) return t("metrox.move_station", { station: index.stations.get(move.station)?.name || move.station });
  if (move.line !== undefined) return t("metrox.move_line", { line: move.line });
  return JSON.stringify(move);
}
