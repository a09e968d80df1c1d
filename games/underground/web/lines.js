// The lines as the server gives them, for drawing (issue 31.2: the rules live in Python only).
// The line colours and each seat's lines come from GET /api/meta's `constants` (games/underground/
// rules.py) and the view's seats; the map is indexed for drawing; each rail takes the lane of its
// section in the order laid. Nothing here scores or judges a rail: what a rail would score comes
// with its legal move (`preview`), what each rail scored and where each score came from with the
// view (`rail_gains`, `seats[i].score_from`), a finished game's positions from GET /positions.

/** The game's constants from GET /api/meta, fetched once when this module loads (every module
 *  that draws a line imports it, so none draws before they came). {} if the catalogue failed:
 *  lines are then grey, and nothing else goes wrong. */
const CONSTANTS = await fetch("/api/meta", { headers: { Accept: "application/json" } })
  .then((r) => (r.ok ? r.json() : null))
  .then((meta) => meta?.games?.find((g) => g.game === "underground")?.constants || {})
  .catch((err) => {
    console.warn("underground: no line colours from /api/meta", err);
    return {};
  });

/** The CSS colour of a line colour's name (the Underground's own colours). */
export function lineHex(colour) {
  return CONSTANTS.line_hex?.[colour] || "#888";
}

/** Each seat's line colours: the view's own, or the server's table for `players` seats. */
export function seatLines(view, players = 2) {
  const seats = view?.seats?.map((s) => s.colours || []);
  return seats?.length ? seats : CONSTANTS.seat_colours?.[String(players)] || [];
}

/** The seat whose line `colour` is (-1: nobody's), from `seatLines`. */
export function ownerOf(lines, colour) {
  return lines.findIndex((cs) => cs.includes(colour));
}

/** Dash patterns, one per line a seat holds (solid, long dashes, dots, dash-dot): lines of one
 *  seat never look alike without their colours; seats differ by their symbol. */
export const LINE_DASHES = ["", "8 3", "2.2 2.2", "8 2.5 2.2 2.5"];

/** The dash pattern of `colour`'s line: its place among its owner's lines ("" = solid). */
export function lineDash(lines, colour) {
  const owner = ownerOf(lines, colour);
  return owner < 0 ? "" : LINE_DASHES[lines[owner].indexOf(colour)] || "";
}

export const secKey = (a, b) => (a < b ? `${a}|${b}` : `${b}|${a}`);

/** The map JSON (§1, POST /api/rules {"op": "map"}) with look-ups for drawing. */
export class MapIndex {
  constructor(map) {
    this.map = map;
    this.stations = map.stations;
    this.byId = new Map(map.stations.map((s) => [s.id, s]));
    this.sections = map.sections.map((s, i) => ({ ...s, i, key: secKey(s.a, s.b) }));
    this.byKey = new Map(this.sections.map((s) => [s.key, s]));
    this.neighbours = new Map(map.stations.map((s) => [s.id, []]));
    for (const s of this.sections) {
      this.neighbours.get(s.a)?.push(s.b);
      this.neighbours.get(s.b)?.push(s.a);
    }
  }

  name(id) {
    return this.byId.get(id)?.name || id;
  }
}

/** Which lane of its section each rail takes: the order the rails were laid there. */
export class Lanes {
  constructor(rails = []) {
    this.slots = new Map(); // section key -> [colour, ...] in the order laid
    this.counts = new Map(); // colour -> rails of it
    for (const r of rails) {
      const key = secKey(r.a, r.b);
      if (!this.slots.has(key)) this.slots.set(key, []);
      this.slots.get(key).push(r.colour);
      this.counts.set(r.colour, (this.counts.get(r.colour) || 0) + 1);
    }
  }

  slotOf(a, b, colour) {
    return (this.slots.get(secKey(a, b)) || []).indexOf(colour);
  }

  used(a, b) {
    return (this.slots.get(secKey(a, b)) || []).length;
  }

  railCount(colour) {
    return this.counts.get(colour) || 0;
  }
}
