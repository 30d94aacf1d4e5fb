// View 2: two hands side by side (POST /v1/showdown): the winner or a tie, both breakdowns, and
// hands that no six-deck shoe can hold together explained.

import { call } from "./api.js";
import { cardsOf, chips, trumpName } from "./cards.js";
import { renderBreakdown, sectionsOf } from "./breakdown.js";
import { $, clear, clearErrors, el } from "./dom.js";
import { showdownPlace } from "./fields.js";
import { parts, plural, t } from "./i18n.js";
import { problemLines, showFailure, showProblem } from "./problems.js";
import { sectionLabel } from "./rules.js";
import { record } from "./sheet.js";
import { ruled, rulesetNote, rulesetSections, rulesOf } from "./rulesets.js";

let last = null;

function pointerInput(pointer) {
  let match = /^\/hands\/([01])\/cards\/(\d)$/.exec(pointer);
  if (match) return `sd${match[1]}-card-${match[2]}`;
  match = /^\/hands\/([01])\/(player|cards)$/.exec(pointer);
  if (match) return match[2] === "player" ? `sd-player-${match[1]}` : `sd${match[1]}-card-0`;
  if (pointer === "/trump") return "showdown-trump";
  return null;
}

function verdictText(body) {
  const score = body.hands[0].score;
  return body.tie ? t("showdown.tie", { score, points: plural("unit.points", score) })
    : t("showdown.winner", { player: body.winner });
}

/** After a language switch: a refusal shown in the old language is taken away. */
export function forgetRefusal() {
  if (last && !last.ok) last = null;
  render();
}

export function render() {
  const box = clear($("showdown-result"));
  if (!last) return;
  if (!last.ok) {
    if (last.body && last.body.code === "SHOE_EXCEEDED") {
      box.append(el("div", { class: "explain", role: "note" },
        el("p", { text: t("showdown.shoe") }),
        el("p", { class: "sections", text: [sectionLabel("1.7"), sectionLabel("8.3")].join("; ") })));
    }
    return;
  }
  const body = last.body;
  box.append(el("p", { class: `verdict ${body.tie ? "tie" : "win"}`, text: verdictText(body) }),
    el("p", { class: "sections", text: [sectionLabel("8.1"), sectionLabel("8.2")].join("; ") }),
    rulesetNote(body) || "",
    el("div", { class: "two" }, body.hands.map((hand) => el("div", {
      class: hand.player === body.winner ? "winner-box" : "",
    }, renderBreakdown(hand, body.trump, hand.player, rulesOf(body))))));
}

export function describe(exchange) {
  const body = exchange.body;
  return {
    title: t("showdown.title"),
    lines: [
      ...body.hands.map((hand) => parts("sheet.player.hand", { player: hand.player, cards: chips(hand.cards), score: hand.score })),
      t("sheet.trump", { trump: trumpName(body.trump) }),
      verdictText(body),
    ],
    sections: ["2.2", "8.1", "8.2", "8.3", ...body.hands.flatMap((hand) => sectionsOf(hand, body.trump, rulesOf(body))),
      ...rulesetSections(body)],
  };
}

function describeRefusal(exchange) {
  const body = exchange.body || {};
  return {
    title: t("showdown.title"),
    lines: [...problemLines(exchange, showdownPlace), body.code === "SHOE_EXCEEDED" ? t("showdown.shoe") : ""].filter(Boolean),
    sections: body.code === "SHOE_EXCEEDED" ? ["1.7", "8.3"] : ["2.2", "2.4"],
  };
}

export async function submit(event) {
  event.preventDefault();
  clearErrors($("showdown-form"));
  $("showdown-err").textContent = "";
  const read = cardsOf(["sd0", "sd1"]);
  if (!read) {
    last = null;
    clear($("showdown-result"));
    return;
  }
  const payload = ruled({
    trump: $("showdown-trump").value || null,
    hands: [0, 1].map((i) => ({ player: $(`sd-player-${i}`).value.trim(), cards: read[i] })),
  });
  try {
    last = await call("POST", "v1/showdown", payload);
  } catch (error) {
    showFailure("showdown-err", error);
    return;
  }
  const exchange = last;
  if (exchange.ok) record(exchange, () => describe(exchange));
  else {
    if (exchange.status !== 401) record(exchange, () => describeRefusal(exchange));
    showProblem(exchange, "showdown-err", pointerInput, showdownPlace);
  }
  render();
}
