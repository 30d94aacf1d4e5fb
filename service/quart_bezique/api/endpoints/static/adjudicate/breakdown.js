// A scored hand as people read it: the four cards with each combination's cards marked, a table
// of combinations (doubled ones marked) and loose cards, each with the rule section it applies.

import { chip, split } from "./cards.js";
import { el } from "./dom.js";
import { t } from "./i18n.js";
import { COMBINATION_SECTIONS, sectionLabel } from "./rules.js";

const CLASSIC = { trump_doubles: "pure_trump" };

/** A combination is doubled when the game has a trump and all its cards are trumps (rule 6.2),
 * or, under the switch trump_doubles=any_trump_card (docs/rules.md §13.3), any one of them. */
export function isDoubled(combination, trump, rules = CLASSIC) {
  if (!trump) return false;
  const trumps = (code) => split(code).suit === trump;
  if (rules.trump_doubles === "any_trump_card") return combination.cards.some(trumps);
  return combination.type !== "bezique" && combination.cards.every(trumps);
}

/** Which of the hand's positions each combination uses: copies are told apart, and a card is
 * shared (bezique with coronka, rule 5.2) only when no unused copy is left. */
export function positions(cards, combinations) {
  const used = new Set();
  return combinations.map((combination) => {
    const mine = [];
    for (const code of combination.cards) {
      const free = cards.findIndex((c, i) => c === code && !mine.includes(i) && !used.has(i));
      const any = cards.findIndex((c, i) => c === code && !mine.includes(i));
      mine.push(free >= 0 ? free : any);
    }
    mine.forEach((i) => used.add(i));
    return mine;
  });
}

export function sectionsOf(result, trump, rules = CLASSIC) {
  const found = ["5.5"];
  for (const combination of result.combinations) {
    found.push(...COMBINATION_SECTIONS[combination.type] || []);
    if (isDoubled(combination, trump, rules)) found.push("6.2");
  }
  if (result.loose.length) found.push("5.4", "3.1");
  if (result.loose.some((loose) => trump && split(loose.card).suit === trump)) found.push("6.1");
  return found;
}

function combinationName(combination) {
  const name = t(`combo.${combination.type}`);
  return combination.type === "coronka" ? t("combo.coronka.of", { name, n: combination.cards.length }) : name;
}

export function renderBreakdown(result, trump, heading, rules = CLASSIC) {
  const marks = positions(result.cards, result.combinations);
  const handRow = el("div", { class: "hand-row", role: "list", "aria-label": t("hand.cards") },
    result.cards.map((code, i) => {
      const inCombos = marks.map((list, n) => (list.includes(i) ? n + 1 : 0)).filter(Boolean);
      return el("span", { role: "listitem", class: `hand-card ${inCombos.length ? `mark mark-${inCombos[0]}` : "loose"}` },
        chip(code),
        inCombos.length
          ? el("sup", { class: "combo-refs", text: inCombos.join(",") })
          : el("sup", { class: "combo-refs", text: "·" }));
    }));

  const rows = result.combinations.map((combination, n) => {
    const doubled = isDoubled(combination, trump, rules);
    const sections = [...COMBINATION_SECTIONS[combination.type] || [], ...(doubled ? ["6.2"] : [])];
    return el("tr", { class: `mark-${n + 1}` },
      el("td", { text: String(n + 1) }),
      el("td", { text: combinationName(combination) }),
      el("td", {}, combination.cards.map((code) => chip(code))),
      el("td", { class: "num" }, String(combination.points),
        doubled ? el("span", { class: "badge", text: t("doubled") }) : null),
      el("td", { class: "sections", text: sections.map((s) => sectionLabel(s)).join("; ") }));
  });
  const looseRows = result.loose.map((loose) => {
    const doubled = Boolean(trump) && split(loose.card).suit === trump;
    return el("tr", { class: "loose-row" },
      el("td", { text: "·" }),
      el("td", { text: t("loose") }),
      el("td", {}, chip(loose.card)),
      el("td", { class: "num" }, String(loose.points),
        doubled ? el("span", { class: "badge", text: t("doubled") }) : null),
      el("td", { class: "sections", text: [doubled ? "6.1" : "3.1", "5.4"].map((s) => sectionLabel(s)).join("; ") }));
  });

  const table = el("table", { class: "breakdown" },
    el("caption", { text: t("breakdown.caption") }),
    el("thead", {}, el("tr", {},
      el("th", { scope: "col", text: "#" }),
      el("th", { scope: "col", text: t("breakdown.part") }),
      el("th", { scope: "col", text: t("breakdown.cards") }),
      el("th", { scope: "col", text: t("breakdown.points") }),
      el("th", { scope: "col", text: t("breakdown.rule") }))),
    el("tbody", {}, rows, looseRows,
      rows.length + looseRows.length === 0
        ? el("tr", {}, el("td", { colspan: "5", text: t("breakdown.nothing") })) : null),
    el("tfoot", {}, el("tr", {},
      el("th", { scope: "row", colspan: "3", text: t("breakdown.total") }),
      el("td", { class: "num total", text: String(result.score) }),
      el("td", { class: "sections", text: sectionLabel("5.5") }))));

  return el("div", { class: "breakdown-box" },
    heading ? el("h3", { text: heading }) : null,
    el("p", { class: "score", text: t("score", { n: result.score }) }),
    trump ? el("p", { class: "trump-note", text: t("trump.is", { suit: t(`suit.${trump}`) }) }) : null,
    handRow,
    table);
}
