// View 1: score one hand (POST /v1/hands/score).

import { call } from "./api.js";
import { cardsOf, chips, trumpName } from "./cards.js";
import { renderBreakdown, sectionsOf } from "./breakdown.js";
import { $, clear, clearErrors, el } from "./dom.js";
import { cardsPlace } from "./fields.js";
import { parts, t } from "./i18n.js";
import { showFailure, showProblem } from "./problems.js";
import { record } from "./sheet.js";
import { ruled, rulesetNote, rulesetSections, rulesOf } from "./rulesets.js";

let last = null;

function cardPointer(pointer) {
  const match = /^\/cards\/(\d)$/.exec(pointer);
  if (match) return `hand-card-${match[1]}`;
  if (pointer === "/trump") return "hand-trump";
  if (pointer === "/cards") return "hand-card-0";
  return null;
}

/** After a language switch: a refusal shown in the old language is taken away. */
export function forgetRefusal() {
  if (last && !last.ok) {
    last = null;
    clear($("hand-result"));
  }
}

export function render() {
  if (!last || !last.ok) return; // a refusal stays as shown until the language is switched
  const body = last.body;
  clear($("hand-result")).append(renderBreakdown(body, body.trump, t("hand.result"), rulesOf(body)), rulesetNote(body) || "");
}

/** The lines of a scored hand on the sheet: cards as faces. */
export function scoreLines(body) {
  return [
    t("score", { n: body.score }),
    ...body.combinations.map((c) => [`${t(`combo.${c.type}`)}: `, chips(c.cards), ` = ${c.points}`]),
    ...body.loose.map((l) => [`${t("loose")}: `, chips([l.card]), ` = ${l.points}`]),
  ];
}

export function describe(exchange) {
  const body = exchange.body;
  return {
    title: t("hand.title"),
    lines: [parts("sheet.hand", { cards: chips(body.cards), trump: trumpName(body.trump) }), ...scoreLines(body)],
    sections: ["2.2", ...sectionsOf(body, body.trump, rulesOf(body)), ...rulesetSections(body)],
  };
}

export async function submit(event) {
  event.preventDefault();
  const form = $("hand-form");
  clearErrors(form);
  const read = cardsOf(["hand"]);
  if (!read) {
    last = null;
    clear($("hand-result"));
    return;
  }
  $("hand-result").replaceChildren(el("p", { class: "hint", text: t("working") }));
  const payload = ruled({ cards: read[0], trump: $("hand-trump").value || null });
  try {
    const exchange = await call("POST", "v1/hands/score", payload);
    last = exchange;
    if (exchange.ok) record(exchange, () => describe(exchange));
    else {
      const err = el("p", { class: "error", id: "hand-err", role: "alert" });
      clear($("hand-result")).append(err);
      showProblem(exchange, "hand-err", cardPointer, cardsPlace);
      if (!err.textContent) err.remove();
      return;
    }
  } catch (error) {
    clear($("hand-result")).append(el("p", { class: "error", id: "hand-err", role: "alert" }));
    showFailure("hand-err", error);
    return;
  }
  render();
}
