// The page's words: one catalogue per language (GET /i18n/<lang>.json, merged by the gateway from
// web/i18n/<lang>/*.json and every game's games/<kind>/web/i18n/<lang>.json). Page code never holds
// a sentence: it calls t("some.key", {name: "Ada", count: 3}).
//
// Stable API (other modules rely on it):
//   LANGUAGES                 the languages offered, e.g. ["en", "hu", "fr", "es"]
//   await initI18n()          choose (saved choice, else navigator.languages, else "en"), load,
//                             set <html lang>, translate the static markup; call once at start
//   t(key, params)            the text of `key`; `{name}` placeholders filled from `params`; a
//                             plural entry ({one, other, ...}) is chosen by params.count (else
//                             by the one number its text shows) with Intl.PluralRules; numbers
//                             in params are formatted for the language
//   has(key)                  whether the catalogue has `key` (for keys built from data)
//   lang()                    the language in use
//   await setLanguage(code)   switch (remembered in localStorage), re-translate the static markup
//                             and tell onLanguageChange listeners
//   onLanguageChange(fn)      fn(code) after each switch
//   formatNumber(n, options), formatDate(date, options), formatList(items)   Intl, in the language
//   translateStatic(root)     fill elements marked data-i18n="key" (text) and
//                             data-i18n-attr="attr:key;attr:key" (attributes) under `root`
// A key missing from the catalogue shows as the key itself (and a console warning), never as
// another language's text: the catalogue tests then name it.

export const LANGUAGES = ["en", "hu", "fr", "es"];
const STORAGE_KEY = "setting.language";

let current = "en";
let messages = {};
let plurals = new Intl.PluralRules("en");
const listeners = new Set();
const warned = new Set();

/** The language to start in: the one saved, else the first of the browser's we offer. */
export function preferredLanguage() {
  try {
    const saved = localStorage.getItem(STORAGE_KEY);
    if (LANGUAGES.includes(saved)) return saved;
  } catch {
    /* storage unavailable */
  }
  for (const tag of navigator.languages?.length ? navigator.languages : [navigator.language || ""]) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return "en";
}

async function load(code) {
  const res = await fetch(`/i18n/${code}.json`, { headers: { Accept: "application/json" } });
  if (!res.ok) throw new Error(`catalogue ${code}: HTTP ${res.status}`);
  return res.json();
}

async function use(code) {
  messages = await load(code);
  current = code;
  plurals = new Intl.PluralRules(code);
  document.documentElement.lang = code;
  translateStatic(document);
}

export async function initI18n() {
  const wanted = preferredLanguage();
  try {
    await use(wanted);
  } catch (err) {
    if (wanted === "en") throw err;
    console.warn(`language ${wanted} not available (${err.message}); using English`);
    await use("en");
  }
}

export async function setLanguage(code) {
  if (!LANGUAGES.includes(code)) throw new Error(`unknown language ${code}`);
  await use(code);
  try {
    localStorage.setItem(STORAGE_KEY, code);
  } catch {
    /* the choice lasts as long as the page */
  }
  for (const fn of listeners) fn(code);
}

export function onLanguageChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export const lang = () => current;

export const has = (key) => Object.prototype.hasOwnProperty.call(messages, key);

function fill(text, params) {
  return text.replace(/\{(\w+)\}/g, (m, name) => {
    if (!(name in params)) return m;
    const v = params[name];
    return typeof v === "number" ? formatNumber(v) : String(v ?? "");
  });
}

/** The number a plural entry without params.count is about: the one number among the params
 *  its "other" text shows ({d} in "{d} days"); 0 when there is none. */
function pluralNumber(entry, params) {
  const used = [...String(entry.other ?? "").matchAll(/\{(\w+)\}/g)].map((m) => params[m[1]]);
  const numbers = used.filter((v) => typeof v === "number");
  return numbers.length === 1 ? numbers[0] : 0;
}

export function t(key, params = {}) {
  let entry = has(key) ? messages[key] : undefined;
  if (entry === undefined) {
    if (!warned.has(key)) {
      warned.add(key);
      console.warn(`i18n: no "${key}" in the ${current} catalogue`);
    }
    return key;
  }
  if (typeof entry === "object") {
    const n = Number(params.count ?? pluralNumber(entry, params));
    entry = entry[plurals.select(n)] ?? entry.other;
  }
  return fill(String(entry), params);
}

export function formatNumber(n, options) {
  return new Intl.NumberFormat(current, options).format(n);
}

export function formatDate(date, options = { dateStyle: "medium", timeStyle: "short" }) {
  return new Intl.DateTimeFormat(current, options).format(date instanceof Date ? date : new Date(date));
}

export function formatList(items, type = "conjunction") {
  return new Intl.ListFormat(current, { style: "long", type }).format(items.map(String));
}

export function translateStatic(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of el.dataset.i18nAttr.split(";")) {
      const [attr, key] = pair.split(":").map((s) => s.trim());
      if (attr && key) el.setAttribute(attr, t(key));
    }
  }
}
