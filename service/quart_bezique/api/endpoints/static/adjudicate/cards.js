// Cards for people: names and short forms in both languages, the inputs with completion, and
// the clickable grid. Parsing stays with the service: what it refuses, it explains.

import { el, $ } from "./dom.js";
import { t } from "./i18n.js";

export const SUITS = ["S", "C", "H", "D"];
export const RANKS = ["A", "K", "Q", "J", "10", "9"];
export const SYMBOL = { S: "♠", C: "♣", H: "♥", D: "♦" };
const RUSSIAN_RANK = { A: "Т", K: "К", Q: "Д", J: "В", 10: "10", 9: "9" };
const RUSSIAN_SUIT = { S: "П", C: "Т", H: "Ч", D: "Б" };
export const CODES = SUITS.flatMap((suit) => RANKS.map((rank) => rank + suit));

export function split(code) {
  return { rank: code.slice(0, -1), suit: code.slice(-1) };
}

export function russianCode(code) {
  const { rank, suit } = split(code);
  return RUSSIAN_RANK[rank] + RUSSIAN_SUIT[suit];
}

/** "king of spades" / "король пик". */
export function cardName(code) {
  const { rank, suit } = split(code);
  return t("card.name", { rank: t(`rank.${rank}`), suit: t(`suit.of.${suit}`) });
}

/** "K♠" / "К♠": the rank as the language writes it, then the suit symbol. */
export function shortName(code) {
  const { rank, suit } = split(code);
  return t(`rank.short.${rank}`) + SYMBOL[suit];
}

/** A card as a chip: the short form shown, the full name for screen readers and tooltips. */
export function chip(code, extra = "") {
  const { suit } = split(code);
  const red = suit === "H" || suit === "D";
  return el("span", { class: `chip ${red ? "red" : "black"} ${extra}`.trim(), title: cardName(code) },
    el("span", { "aria-hidden": "true", text: shortName(code) }),
    el("span", { class: "sr", text: cardName(code) }));
}

/** Completion for every card input: Latin codes and Russian codes, each with its name. */
export function fillCardOptions() {
  const list = $("card-options");
  list.replaceChildren(...CODES.flatMap((code) => [
    el("option", { value: code, label: `${shortName(code)} ${cardName(code)}` }),
    el("option", { value: russianCode(code), label: `${shortName(code)} ${cardName(code)}` }),
  ]));
}

/** Four labelled card inputs with an error slot each, ids `${prefix}-card-${i}`. */
export function cardInputs(container, prefix) {
  container.replaceChildren();
  for (let i = 0; i < 4; i += 1) {
    const id = `${prefix}-card-${i}`;
    container.append(el("div", { class: "card-input" },
      el("label", { for: id, "data-i18n": "card.label", "data-n": String(i + 1), text: t("card.label", { n: i + 1 }) }),
      el("input", { id, list: "card-options", autocomplete: "off", spellcheck: "false", autocapitalize: "characters", size: "4" }),
      el("span", { class: "err", id: `${id}-err` })));
  }
}

export function readCards(prefix) {
  return [0, 1, 2, 3].map((i) => $(`${prefix}-card-${i}`).value.trim());
}

export function trumpOptions(select) {
  const chosen = select.value;
  select.replaceChildren(
    el("option", { value: "", text: t("trump.none") }),
    ...SUITS.map((suit) => el("option", { value: suit, text: `${SYMBOL[suit]} ${t(`suit.${suit}`)}` })),
  );
  select.value = chosen;
}

/** The grid of the 24 cards; a click writes the card into the next empty input of the hand. */
export function cardGrid(container, prefix) {
  container.replaceChildren(...CODES.map((code) => {
    const button = el("button", { type: "button", class: "grid-card", "data-code": code }, chip(code));
    button.addEventListener("click", () => {
      const inputs = [0, 1, 2, 3].map((i) => $(`${prefix}-card-${i}`));
      const target = inputs.find((input) => input.value.trim() === "") || inputs[3];
      target.value = code;
      target.dispatchEvent(new Event("input", { bubbles: true }));
    });
    return button;
  }));
}
