// The three string catalogs (i18n/ru.json, i18n/uk.json, i18n/en.json) and the chosen language.
// Every visible string goes through t(), so a language switch re-renders the page from data; the
// chosen language is also what the page asks the service to answer in (api.js).

export const LANGS = ["ru", "uk", "en"];
const LOCALES = { ru: "ru-RU", uk: "uk-UA", en: "en-GB" };
const STORE = "qb-lang";
const catalogs = {};
let current = "en";
const listeners = [];

export async function loadCatalogs() {
  await Promise.all(LANGS.map(async (lang) => {
    const response = await fetch(`adjudicate/static/i18n/${lang}.json`, { cache: "no-cache" });
    catalogs[lang] = await response.json();
  }));
  current = initialLanguage();
}

/** The saved choice of this tab, else the browser's first language we have, else English. */
function initialLanguage() {
  const saved = sessionStorage.getItem(STORE);
  if (LANGS.includes(saved)) return saved;
  const wanted = navigator.languages && navigator.languages.length
    ? navigator.languages : [navigator.language || "en"];
  for (const tag of wanted) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (LANGS.includes(base)) return base;
  }
  return "en";
}

export function language() {
  return current;
}

export function setLanguage(lang) {
  if (!LANGS.includes(lang) || lang === current) return;
  const previous = current;
  current = lang;
  sessionStorage.setItem(STORE, lang);
  for (const listener of listeners) listener(lang, previous);
}

/** `listener(lang, previous)` after every switch of language. */
export function onLanguage(listener) {
  listeners.push(listener);
}

/** The string for key in the current language (or in `lang`), with {name} placeholders filled. */
export function t(key, params = {}, lang = current) {
  const text = catalogs[lang]?.[key] ?? catalogs.en?.[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

/** t() as a list of strings and nodes: a placeholder whose value is a DOM node (card faces) keeps
 * the node, so a line can show cards as cards. */
export function parts(key, params = {}) {
  const text = catalogs[current]?.[key] ?? catalogs.en?.[key] ?? key;
  return text.split(/\{(\w+)\}/).map((piece, i) => {
    if (i % 2 === 0) return piece;
    if (!(piece in params)) return `{${piece}}`;
    return params[piece] instanceof Node ? params[piece] : String(params[piece]);
  }).filter((piece) => piece !== "");
}

/** The same as t() in a given language (the defaults of the language being left). */
export function tIn(lang, key) {
  return catalogs[lang]?.[key] ?? key;
}

export function has(key) {
  return key in (catalogs[current] || {});
}

/** The plural form of `key` for the count n: `${key}.one`, `.few`, `.many` or `.other`. */
export function plural(key, n) {
  const form = new Intl.PluralRules(LOCALES[current]).select(n);
  return t(`${key}.${form}`);
}

/** A number written the way the current language writes it (thin groups in ru and uk). */
export function number(value, digits) {
  const options = digits === undefined ? {} : { minimumFractionDigits: digits, maximumFractionDigits: digits };
  return new Intl.NumberFormat(LOCALES[current], options).format(value);
}

/** A net amount with its sign always written: "+3", "−5" (a true minus), "0". */
export function signed(value) {
  return new Intl.NumberFormat(LOCALES[current], { signDisplay: "exceptZero" }).format(value).replace(/^-/, "\u2212");
}

/** Names joined as the language joins them: "Аня и Дима", "Оксана і Тарас", "Ann and Dan". */
export function list(items) {
  return new Intl.ListFormat(LOCALES[current], { style: "long", type: "conjunction" }).format(items);
}

/** A share of 0..100 with up to two decimals that never rounds onto 0 or 100 it is not:
 * 99.95 is "99,95" and 99.999 is "99,99", never "100". */
export function share(value) {
  let shown = Math.round(value * 100) / 100;
  if (shown >= 100 && value < 100) shown = Math.floor(value * 100) / 100;
  if (shown <= 0 && value > 0) shown = Math.ceil(value * 100) / 100;
  return new Intl.NumberFormat(LOCALES[current], { maximumFractionDigits: 2 }).format(shown);
}
