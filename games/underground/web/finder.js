// Pick a station by typing its name (issue 19): a combobox (WAI-ARIA 1.2 pattern: an input with
// a list box it controls) that offers only the stations that can be chosen now, so a rail can be
// laid without hitting a dot on a small screen. The page says what is legal; this only filters.

import { html } from "/kit.js";

const MAX_SHOWN = 12;

/** Lower case without accents, for matching what was typed ("Kings" finds "King's Cross"). */
const fold = (s) => String(s).normalize("NFD").replace(/[\u0300-\u036f]/g, "").replace(/[^a-z0-9 ]/gi, "").toLowerCase();

export class Finder {
  /**
   * parent: where it goes; label: its visible label; options(): [{id, name, note}] the legal
   * choices now; onPick(id): one was chosen; prefix: a unique id prefix.
   */
  constructor(parent, { label, options, onPick, prefix = "finder" }) {
    this.options = options;
    this.onPick = onPick;
    this.shown = [];
    this.active = -1;
    this.root = html("div", { className: "ug-finder" }, parent);
    this.label = html("label", { for: `${prefix}-input`, className: "ug-finder-label" }, this.root, label);
    this.input = html("input", {
      id: `${prefix}-input`,
      type: "text",
      className: "ug-finder-input",
      role: "combobox",
      autocomplete: "off",
      autocapitalize: "off",
      spellcheck: "false",
      "aria-autocomplete": "list",
      "aria-expanded": "false",
      "aria-controls": `${prefix}-list`,
    }, this.root);
    this.list = html("ul", { id: `${prefix}-list`, className: "ug-finder-list", role: "listbox", "aria-label": label, hidden: true }, this.root);
    this.prefix = prefix;
    this.input.addEventListener("input", () => this.#open());
    this.input.addEventListener("focus", () => this.#open());
    this.input.addEventListener("blur", () => setTimeout(() => this.#close(), 150));
    this.input.addEventListener("keydown", (ev) => this.#key(ev));
    // pointerdown, not click: the input keeps its focus (and a phone its keyboard)
    this.list.addEventListener("pointerdown", (ev) => {
      const li = ev.target.closest("[role=option]");
      if (!li) return;
      ev.preventDefault();
      this.#pick(li.dataset.id);
    });
  }

  set placeholder(text) {
    this.input.placeholder = text;
  }

  set hidden(on) {
    this.root.hidden = on;
    if (on) this.#close();
  }

  /** The legal choices changed: show the new ones if the list is open. */
  refresh() {
    if (document.activeElement === this.input) this.#open();
  }

  #open() {
    const q = fold(this.input.value.trim());
    const all = this.options();
    const hits = q
      ? all
          .map((o) => ({ o, at: fold(o.name).indexOf(q) }))
          .filter((h) => h.at >= 0)
          .sort((a, b) => (a.at !== 0) - (b.at !== 0) || a.o.name.localeCompare(b.o.name))
          .map((h) => h.o)
      : [...all].sort((a, b) => (b.first ? 1 : 0) - (a.first ? 1 : 0) || a.name.localeCompare(b.name));
    this.shown = hits.slice(0, MAX_SHOWN);
    this.active = this.shown.length ? 0 : -1;
    this.list.replaceChildren();
    this.shown.forEach((o, i) => {
      const li = html("li", { id: `${this.prefix}-opt-${o.id}`, role: "option", className: "ug-finder-option", "data-id": o.id, "aria-selected": "false" }, this.list);
      html("span", { className: "ug-finder-name" }, li, o.name);
      if (o.note) html("span", { className: "ug-finder-note" }, li, o.note);
      if (i === this.active) li.setAttribute("aria-selected", "true");
    });
    const open = this.shown.length > 0 && document.activeElement === this.input;
    this.list.hidden = !open;
    this.input.setAttribute("aria-expanded", String(open));
    this.#mark();
  }

  #close() {
    this.list.hidden = true;
    this.input.setAttribute("aria-expanded", "false");
    this.input.removeAttribute("aria-activedescendant");
  }

  #mark() {
    const items = this.list.querySelectorAll("[role=option]");
    items.forEach((li, i) => li.setAttribute("aria-selected", String(i === this.active)));
    const on = items[this.active];
    if (on && !this.list.hidden) {
      this.input.setAttribute("aria-activedescendant", on.id);
      on.scrollIntoView?.({ block: "nearest" });
    } else this.input.removeAttribute("aria-activedescendant");
  }

  #key(ev) {
    if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
      ev.preventDefault();
      if (this.list.hidden) this.#open();
      const n = this.shown.length;
      if (!n) return;
      this.active = (this.active + (ev.key === "ArrowDown" ? 1 : -1) + n) % n;
      this.#mark();
    } else if (ev.key === "Enter") {
      if (this.active >= 0 && this.shown[this.active]) {
        ev.preventDefault();
        this.#pick(this.shown[this.active].id);
      }
    } else if (ev.key === "Escape") {
      if (!this.list.hidden) {
        ev.preventDefault();
        ev.stopPropagation();
        this.#close();
      } else this.input.value = "";
    }
  }

  #pick(id) {
    this.input.value = "";
    this.onPick(id);
    if (document.activeElement === this.input) this.#open();
    else this.#close();
  }
}
