// View 5: the dispute sheet. Every verdict the page receives is recorded here with the exact
// bytes exchanged; the print stylesheet lays the sheet out on one A4 page, whatever view is open.

import { $, clear, el } from "./dom.js";
import { language, t } from "./i18n.js";
import { sectionLabel, uniqueSections } from "./rules.js";

let last = null;
let service = null;

/** Remember the latest verdict; `describe` is called at render time, in the current language. */
export function record(exchange, describe) {
  last = { exchange, describe };
  render();
}

export function setService(info) {
  service = info;
  render();
}

function row(label, value, cls = "") {
  return el("tr", {}, el("th", { scope: "row", text: label }), el("td", { class: cls, text: value }));
}

export function render() {
  const sheet = clear($("sheet"));
  sheet.setAttribute("lang", language());
  if (!last) {
    sheet.append(el("p", { class: "hint", text: t("sheet.empty") }));
    return;
  }
  const { exchange } = last;
  const verdict = last.describe();
  const digest = (value) => value || t("sheet.digest.unavailable");
  sheet.append(
    el("h2", { class: "sheet-title", text: t("sheet.heading", { what: verdict.title }) }),
    el("table", { class: "meta" }, el("tbody", {},
      row(t("sheet.when"), exchange.at),
      row(t("sheet.request"), `${exchange.method} ${exchange.path} → ${exchange.status}`),
      row(t("sheet.request.id"), exchange.requestId || "—", "mono"),
      row(t("sheet.ruleset"), exchange.body?.ruleset || service?.ruleset || "—"),
      row(t("sheet.service"), service ? `${service.service} ${service.version}` : "—"))),
    el("h3", { text: t("sheet.inputs") }),
    el("pre", { class: "mono wrap", text: exchange.requestText || "" }),
    el("h3", { text: t("sheet.verdict") }),
    el("ul", { class: "verdict-lines" }, verdict.lines.map((line) => el("li", { text: line }))),
    el("h3", { text: t("sheet.sections") }),
    el("ul", { class: "section-list" }, uniqueSections(verdict.sections).map((s) => el("li", { text: sectionLabel(s) }))),
    el("p", { class: "hint", text: t("sheet.sections.where") }),
    el("h3", { text: t("sheet.integrity") }),
    el("table", { class: "meta" }, el("tbody", {},
      row(t("sheet.sha.request"), digest(exchange.requestSha), "mono"),
      row(t("sheet.sha.response"), digest(exchange.responseSha), "mono"),
      row(t("sheet.receipt"), exchange.receipt || t("sheet.receipt.none"), exchange.receipt ? "mono wrap" : ""))),
    el("div", { class: "signatures" },
      el("p", { text: `${t("sheet.sign.adjudicator")}: ____________________` }),
      el("p", { text: `${t("sheet.sign.players")}: ____________________` })),
  );
}
