// View 5: the dispute sheet. Every verdict the page receives is recorded here with the exact
// bytes sent; the print stylesheet lays the sheet out on one A4 page, whatever view is open. Its
// one request digest is the signed receipt's (of the request's canonical form), and the receipt
// is printed as text and as a QR code, so an auditor can check it against the service's key.
//
// The sheet is the record of one exchange, and a record does not change after the fact: its
// verdict is written down when the answer arrives, in the words shown then (the service's own
// sentences included), and the whole sheet stays in the language the verdict was asked and given
// in, which it names. Switching the page's language later leaves it as it is; a note outside the
// sheet, in the page's language, says so.

import { $, clear, el } from "./dom.js";
import { language, t as tNow } from "./i18n.js";
import { qrSvg } from "./qr.js";
import { claims } from "./receipt.js";
import { sectionLabel, uniqueSections } from "./rules.js";
import { askedId, digestFor, learn } from "./rulesets.js";

let last = null;
let service = null;
let lang = null; // the language of the recorded exchange, while rendering the sheet

/** The sheet's own words, in the language of its exchange. */
function t(key, params = {}) {
  return tNow(key, params, lang || language());
}

/** Record the latest verdict: `describe()` is called now, in the language of the exchange. */
export function record(exchange, describe) {
  learn(exchange.body);
  last = { exchange, lang: language(), verdict: describe() };
  render();
}

/** A recorded line, copied (its card faces are nodes, and a node is shown in one place only). */
function copy(part) {
  if (Array.isArray(part)) return part.map(copy);
  return part instanceof Node ? part.cloneNode(true) : part;
}

export function setService(info) {
  service = info;
  render();
}

function row(label, value, cls = "") {
  return el("tr", {}, el("th", { scope: "row", text: label }), el("td", { class: cls }, value));
}

function integrity(exchange) {
  const signed = claims(exchange.receipt);
  const digest = signed && signed.request_sha256;
  const response = exchange.responseSha || t("sheet.digest.unavailable");
  const same = signed && exchange.responseSha && signed.response_sha256 === exchange.responseSha;
  const rows = [
    row(t("sheet.sha.request"), digest || t("sheet.sha.request.none"), digest ? "mono wrap digest" : "digest"),
    row(t("sheet.sha.response"), same ? `${response} (${t("sheet.sha.response.same")})` : response, "mono wrap"),
    row(t("sheet.receipt"), exchange.receipt || t("sheet.receipt.none"), exchange.receipt ? "mono wrap receipt" : ""),
  ];
  const table = el("table", { class: "meta" }, el("tbody", {}, rows));
  if (!exchange.receipt) return [table];
  return [table, el("figure", { class: "qr-box" }, qrSvg(exchange.receipt, t("sheet.receipt.qr")),
    el("figcaption", { text: t("sheet.receipt.qr") }))];
}

export function render() {
  const sheet = clear($("sheet"));
  const kept = $("sheet-kept");
  lang = last ? last.lang : language();
  sheet.setAttribute("lang", lang);
  kept.hidden = !last || last.lang === language();
  kept.textContent = kept.hidden ? "" : tNow("sheet.kept", { in: tNow(`lang.in.${last.lang}`) });
  if (!last) {
    sheet.append(el("p", { class: "hint", text: t("sheet.empty") }));
    return;
  }
  const { exchange, verdict } = last;
  // The ruleset the verdict names, or for a refusal the one its request asked for; its digest as
  // the service gave it, else as the page knows it (a preset's, or computed from the values).
  const ruleset = exchange.body?.ruleset || askedId(exchange.requestText) || service?.ruleset || "—";
  const digest = exchange.body?.ruleset_sha256 || digestFor(ruleset) || "—";
  sheet.append(
    el("h2", { class: "sheet-title", text: t("sheet.heading", { what: verdict.title }) }),
    el("table", { class: "meta" }, el("tbody", {},
      row(t("sheet.when"), exchange.at, "mono"),
      row(t("sheet.request"), `${exchange.method} ${exchange.path} → ${exchange.status}`, "mono"),
      row(t("sheet.request.id"), exchange.requestId || "—", "mono"),
      row(t("sheet.ruleset"), ruleset, "mono"),
      row(t("sheet.ruleset.sha"), digest, "mono wrap ruleset-sha"),
      row(t("sheet.service"), service ? `${service.service} ${service.version}` : "—", "mono"),
      row(t("sheet.language"), [t(`lang.name.${lang}`), exchange.language
        ? el("span", { class: "mono", text: ` (Content-Language: ${exchange.language})` }) : null]))),
    el("h3", { text: t("sheet.inputs") }),
    el("pre", { class: "mono wrap", text: exchange.requestText || "" }),
    el("h3", { text: t("sheet.verdict") }),
    el("ul", { class: "verdict-lines" }, verdict.lines.map((line) => el("li", {}, copy(line)))),
    el("h3", { text: t("sheet.sections") }),
    el("ul", { class: "section-list" }, uniqueSections(verdict.sections).map((s) => el("li", { text: sectionLabel(s, lang) }))),
    el("p", { class: "hint", text: t("sheet.sections.where") }),
    el("h3", { text: t("sheet.integrity") }),
    ...integrity(exchange),
    el("div", { class: "signatures" },
      el("p", { text: `${t("sheet.sign.adjudicator")}: ____________________` }),
      el("p", { text: `${t("sheet.sign.players")}: ____________________` })),
  );
}
