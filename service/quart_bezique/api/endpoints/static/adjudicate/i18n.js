// The two string catalogs (i18n/en.json, i18n/ru.json) and the current language.
// Every visible string goes through t(), so a language switch re-renders the page from data.

const LANGS = ["ru", "en"];
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
  if (!LANGS.includes(lang)) return;
  current = lang;
  sessionStorage.setItem(STORE, lang);
  for (const listener of listeners) listener(lang);
}

export function onLanguage(listener) {
  listeners.push(listener);
}

/** The string for key in the current language, with {name} placeholders filled. */
export function t(key, params = {}) {
  const text = catalogs[current]?.[key] ?? catalogs.en?.[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

export function has(key) {
  return key in (catalogs[current] || {});
}

/** A number written the way the current language writes it (thin groups in Russian). */
export function number(value, digits) {
  const options = digits === undefined ? {} : { minimumFractionDigits: digits, maximumFractionDigits: digits };
  return new Intl.NumberFormat(current === "ru" ? "ru-RU" : "en-GB", options).format(value);
}
