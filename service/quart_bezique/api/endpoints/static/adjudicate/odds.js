// View 4b: a hand's odds against the rest of the shoe (POST /v1/hands/odds): win, tie and loss
// as a bar, the exact counts, and the percentile.

import { call } from "./api.js";
import { cardsOf, chips, trumpName } from "./cards.js";
import { $, clear, clearErrors, el } from "./dom.js";
import { cardsPlace } from "./fields.js";
import { number, parts, plural, share, t } from "./i18n.js";
import { showFailure, showProblem } from "./problems.js";
import { sectionLabel } from "./rules.js";
import { record } from "./sheet.js";
import { ruled, rulesetNote, rulesetSections } from "./rulesets.js";

let last = null;

function pointerInput(pointer) {
  const match = /^\/cards\/(\d)$/.exec(pointer);
  if (match) return `odds-card-${match[1]}`;
  if (pointer === "/trump") return "odds-trump";
  if (pointer === "/opponents") return "odds-opponents";
  return null;
}

const percent = (x) => `${share(x * 100)} %`;

function summary(body) {
  return t("odds.summary", { score: body.score, points: plural("unit.points", body.score), n: body.opponents });
}

function outcome(body, key, count) {
  const exact = body[count] === null ? "" : ` (${number(body[count])} ${t("odds.of")} ${number(body.total)})`;
  return `${t(`odds.${key}`)}: ${percent(body[key])}${exact}`;
}

export function render() {
  const box = clear($("odds-result"));
  if (!last || !last.ok) return;
  const body = last.body;
  const bar = el("div", { class: "bar", role: "img", "aria-label": ["win", "tie", "loss"].map((k) => `${t(`odds.${k}`)} ${percent(body[k])}`).join(", ") },
    ...["win", "tie", "loss"].map((key) => {
      const part = el("span", { class: `bar-${key}` });
      part.style.width = `${(body[key] * 100).toFixed(3)}%`;
      return part;
    }));
  box.append(
    el("p", { class: "score", text: summary(body) }),
    bar,
    el("ul", { class: "odds" },
      el("li", { class: "win", text: outcome(body, "win", "wins") }),
      el("li", { class: "tie", text: outcome(body, "tie", "ties") }),
      el("li", { class: "loss", text: outcome(body, "loss", "losses") })),
    el("p", { text: t("odds.percentile", { p: share(body.percentile) }) }),
    el("p", { class: "hint", text: body.exact ? t("odds.exact", { remaining: body.remaining })
      : t("odds.estimate", { samples: number(body.samples), seed: body.seed, se: number(body.standard_error, 4) }) }),
    el("p", { class: "sections", text: ["12.2", "12.3", body.exact ? "12.4" : "12.5", "12.6"].map((s) => sectionLabel(s)).join("; ") }),
    rulesetNote(body) || "");
}

export function describe(exchange) {
  const body = exchange.body;
  return {
    title: t("odds.title"),
    lines: [
      parts("sheet.hand", { cards: chips(body.cards), trump: trumpName(body.trump) }),
      summary(body),
      outcome(body, "win", "wins"), outcome(body, "tie", "ties"), outcome(body, "loss", "losses"),
      t("odds.percentile", { p: share(body.percentile) }),
    ],
    sections: ["12.2", "12.3", body.exact ? "12.4" : "12.5", "12.6", ...rulesetSections(body)],
  };
}

export async function submit(event) {
  event.preventDefault();
  clearErrors($("odds-form"));
  $("odds-err").textContent = "";
  const read = cardsOf(["odds"]);
  if (!read) {
    last = null;
    clear($("odds-result"));
    return;
  }
  const payload = ruled({ cards: read[0], trump: $("odds-trump").value || null, opponents: Number($("odds-opponents").value) });
  clear($("odds-result")).append(el("p", { class: "hint", text: t("working") }));
  try {
    last = await call("POST", "v1/hands/odds", payload);
  } catch (error) {
    showFailure("odds-err", error);
    return;
  }
  const exchange = last;
  if (exchange.ok) record(exchange, () => describe(exchange));
  else showProblem(exchange, "odds-err", pointerInput, cardsPlace);
  render();
}
