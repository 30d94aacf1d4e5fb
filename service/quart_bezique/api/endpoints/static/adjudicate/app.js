// The page's entry point: loads the catalogs, wires the views, the language switch and the key.

import { apiKey, call, keyRefused, setApiKey } from "./api.js";
import * as betting from "./betting.js";
import { cardGrid, cardInputs, fillCardOptions, trumpOptions } from "./cards.js";
import { fillCards, names, retranslateInputs } from "./defaults.js";
import { $, clearErrors } from "./dom.js";
import * as hand from "./hand.js";
import { LANGS, language, loadCatalogs, onLanguage, setLanguage, t } from "./i18n.js";
import * as odds from "./odds.js";
import * as rulesets from "./rulesets.js";
import * as settle from "./settle.js";
import * as sheet from "./sheet.js";
import * as showdown from "./showdown.js";

const VIEWS = ["hand", "showdown", "betting", "settle", "sheet"];

function translateStatic() {
  document.documentElement.lang = language();
  document.title = t("title");
  for (const node of document.querySelectorAll("[data-i18n]")) {
    node.textContent = t(node.dataset.i18n, { n: node.dataset.n });
  }
  $("views-nav").setAttribute("aria-label", t("nav.label"));
  $("lang-group").setAttribute("aria-label", t("lang.label"));
  for (const select of document.querySelectorAll(".trump-select")) trumpOptions(select);
  fillCardOptions();
  cardGrid($("card-grid"), "hand");
  for (const lang of LANGS) $(`lang-${lang}`).setAttribute("aria-pressed", String(language() === lang));
  keyStatus();
}

/** Refusals are the service's words in the language they were asked in: a language switch takes
 * them away (the next request is answered in the new language). */
function clearRefusals() {
  for (const form of document.querySelectorAll("main form")) clearErrors(form);
  for (const line of document.querySelectorAll("main p.err")) line.textContent = "";
  hand.forgetRefusal();
  rulesets.forgetRefusal();
  showdown.forgetRefusal();
}

function keyStatus() {
  $("key-status").textContent = !apiKey() ? t("key.unset") : keyRefused() ? t("key.refused") : t("key.set");
}

function show(view) {
  for (const name of VIEWS) {
    $(`view-${name}`).hidden = name !== view;
    const button = document.querySelector(`[data-view="${name}"]`);
    if (name === view) button.setAttribute("aria-current", "page");
    else button.removeAttribute("aria-current");
  }
  if (view === "settle") settle.refreshSeats();
  sessionStorage.setItem("qb-view", view);
}

async function main() {
  await loadCatalogs();
  await rulesets.load();
  for (const container of document.querySelectorAll("[data-cards]")) {
    cardInputs(container, container.dataset.cards);
    fillCards(container.dataset.cards);
  }
  names().slice(0, 2).forEach((name, i) => { $(`sd-player-${i}`).value = name; });
  betting.init();
  translateStatic();
  rulesets.init();
  settle.refreshSeats();
  sheet.render();

  for (const lang of LANGS) $(`lang-${lang}`).addEventListener("click", () => setLanguage(lang));
  onLanguage((lang, previous) => {
    settle.rename(retranslateInputs(previous));
    clearRefusals();
    translateStatic();
    rulesets.render();
    hand.render();
    showdown.render();
    betting.retranslate();
    settle.refreshSeats();
    settle.render();
    odds.render();
    sheet.render();
  });
  $("key-form").addEventListener("submit", (event) => {
    event.preventDefault();
    setApiKey($("api-key").value.trim());
    $("api-key").value = "";
    keyStatus();
  });
  $("key-forget").addEventListener("click", () => { setApiKey(""); keyStatus(); });
  for (const button of document.querySelectorAll("[data-view]")) {
    button.addEventListener("click", () => show(button.dataset.view));
  }
  $("hand-form").addEventListener("submit", hand.submit);
  $("showdown-form").addEventListener("submit", showdown.submit);
  $("settle-form").addEventListener("submit", settle.submit);
  $("odds-form").addEventListener("submit", odds.submit);
  $("sheet-print").addEventListener("click", () => window.print());
  show(VIEWS.includes(sessionStorage.getItem("qb-view")) ? sessionStorage.getItem("qb-view") : "hand");

  try {
    const index = await call("GET", ".");
    if (index.ok) sheet.setService(index.body);
  } catch {
    // the sheet then shows "—" for the service version
  }
  document.body.dataset.ready = "true";
}

main().catch((error) => {
  const box = document.getElementById("server-error");
  box.hidden = false;
  box.textContent = String(error);
});
