// Cards for people: a card face (rank and suit, red or black) wherever a card is shown, the card
// inputs with completion, and the clickable grid, all in the notation of the page's language.

import { el, $, showError } from "./dom.js";
import { language, t } from "./i18n.js";
import { CODES, SUITS, SYMBOL, display, readCard, split } from "./notation.js";

export { CODES, SUITS, SYMBOL, split };

/** "king of spades" / "король пік". */
export function cardName(code) {
  const { rank, suit } = split(code);
  return t("card.name", { rank: t(`rank.${rank}`), suit: t(`suit.of.${suit}`) });
}

/** "K♠" / "К♠": the card as this page writes it. */
export function shortName(code) {
  return display(code, language());
}

/** A card face: rank over suit symbol, red for hearts and diamonds; its name for screen readers. */
export function chip(code, extra = "") {
  const { suit } = split(code);
  const red = suit === "H" || suit === "D";
  const shown = shortName(code);
  return el("span", { class: `chip ${red ? "red" : "black"} ${extra}`.trim(), title: cardName(code) },
    el("span", { class: "face", "aria-hidden": "true", text: shown }),
    el("span", { class: "sr", text: cardName(code) }));
}

/** Cards as faces in a row, for lines of text ("Рука Т♠ К♠ …"). */
export function chips(codes) {
  return el("span", { class: "chips" }, codes.map((code) => chip(code)));
}

/** Completion for every card input: the page's notation, each with the card's name. */
export function fillCardOptions() {
  $("card-options").replaceChildren(...CODES.map((code) => el("option", { value: shortName(code), label: cardName(code) })));
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

/** The four cards of a form as they are sent: canonical codes for what the page reads, the typed
 * text for the rest (the service explains it); `refused` lists the positions the page refuses. */
export function readCards(prefix) {
  const refused = [];
  const cards = [0, 1, 2, 3].map((i) => {
    const read = readCard($(`${prefix}-card-${i}`).value, language());
    if (read.ambiguous) refused.push(i);
    return read.code || read.raw;
  });
  return { cards, refused };
}

/** The cards of several forms' card rows, or null after marking every card the page refuses
 * (a Latin T before a suit symbol where Т♠ is the ace) next to its input. */
export function cardsOf(prefixes) {
  const read = prefixes.map(readCards);
  read.forEach(({ refused }, n) => {
    for (const i of refused) {
      const id = `${prefixes[n]}-card-${i}`;
      const typed = $(id).value.trim();
      // What to write instead, in the suit typed: "T♥" is Т♥ (the ace) or 10♥ (the ten).
      showError(id, t("card.latin.t", { typed, suit: typed.slice(-1) }));
    }
  });
  return read.some(({ refused }) => refused.length) ? null : read.map(({ cards }) => cards);
}

export function typedCards(prefix) {
  return [0, 1, 2, 3].map((i) => $(`${prefix}-card-${i}`).value.trim());
}

export function trumpName(trump) {
  return trump ? t(`suit.${trump}`) : t("trump.none");
}

export function trumpOptions(select) {
  const chosen = select.value;
  select.replaceChildren(
    el("option", { value: "", text: t("trump.none") }),
    ...SUITS.map((suit) => el("option", { value: suit, text: `${SYMBOL[suit]} ${t(`suit.${suit}`)}` })),
  );
  select.value = chosen;
}

/** The grid of the 24 cards; a click writes the card, as the page shows it, into the next empty
 * input of the hand. */
export function cardGrid(container, prefix) {
  container.replaceChildren(...CODES.map((code) => {
    const button = el("button", { type: "button", class: "grid-card", "data-code": code }, chip(code));
    button.addEventListener("click", () => {
      const inputs = [0, 1, 2, 3].map((i) => $(`${prefix}-card-${i}`));
      const target = inputs.find((input) => input.value.trim() === "") || inputs[3];
      target.value = shortName(code);
      target.dispatchEvent(new Event("input", { bubbles: true }));
    });
    return button;
  }));
}
