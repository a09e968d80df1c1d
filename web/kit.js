// The page kit (issue 20.4): everything of the shell a board module may use, in one place. A board
// module (games/<kind>/web/*.js) imports only from "/kit.js", "/i18n.js" (its words) and files of
// its own folder ("./board.js"); it never reaches into the shell's other files, which may change
// with the shell. tests/test_page_kit.py holds every board module to that, and this list to what
// they use: a name the boards no longer need leaves the kit.
//
// What the kit holds (see each file for the details):
//   drawing       svg, html, ensureStylesheet, reducedMotion                          (dom.js)
//   seats         seatGlyph, seatGlyphName, seatSymbol, seatBadge, SAFE_SHADES, seatLabel
//   moving        confirmMoves, confirmToggle (the "Confirm moves" choice), cursorKey,
//                 cursorStep and nearestInDirection (the keyboard cursor), lastSeen and saveLastSeen (what
//                 changed since the viewer's last move)
//   the move log  MoveLog, moverWords, aiForPerson, tableEntries
//   maps          MapView (pan and zoom by the viewBox), segmentDistance              (mapview.js)
//   words         registerParamWords (a game's words for its refusals' values)       (words.js)
//   hints         signedValue: a hint's value as every hint list writes it, "+12", "−3.5", "0",
//                 as the shell's hint explanation does                                (dom.js)

export {
  MoveLog,
  SAFE_SHADES,
  aiForPerson,
  confirmMoves,
  confirmToggle,
  cursorKey,
  cursorStep,
  ensureStylesheet,
  html,
  lastSeen,
  moverWords,
  nearestInDirection,
  reducedMotion,
  saveLastSeen,
  seatBadge,
  seatGlyph,
  seatGlyphName,
  seatSymbol,
  signedValue,
  svg,
  tableEntries,
} from "./dom.js";
export { MapView, segmentDistance } from "./mapview.js";
export { seatLabel } from "./panel.js";
export { registerParamWords } from "./words.js";
