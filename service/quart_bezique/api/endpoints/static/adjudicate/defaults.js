// The example the page opens with, in the page's language: the players' names come from the
// catalog (Аня, Боря, Дима in Russian) and the cards are written in the language's notation. A
// language switch renames the example's players and rewrites the cards the page can read, and
// leaves every other name the user typed alone.

import { $ } from "./dom.js";
import { language, t, tIn } from "./i18n.js";
import { display, retype } from "./notation.js";

export const HANDS = {
  hand: ["KS", "QS", "JS", "JC"],
  sd0: ["KH", "QH", "KD", "10D"],
  sd1: ["QS", "JC", "QH", "JD"],
  odds: ["KS", "QS", "JS", "JC"],
};
/** The hands of the example round's showdown, by the seat's position in the names. */
const SEAT_HANDS = { 0: ["KS", "QS", "JS", "JC"], 2: ["QH", "QH", "QD", "9C"] };

function split(text) {
  return text.split(",").map((name) => name.trim()).filter(Boolean);
}

/** The example's three seats in the current language. */
export function names(lang = language()) {
  return split(lang === language() ? t("defaults.names") : tIn(lang, "defaults.names"));
}

/** The example round (seats, dealer, actions) in the current language. */
export function round() {
  const [a, b, c] = names();
  return {
    players: [a, b, c], dealer: c,
    actions: [{ player: a, type: "stake", amount: 5 }, { player: b, type: "fold" }, { player: c, type: "open", amount: 5 }],
  };
}

/** The example hand of a seat, in the page's notation, or null. */
export function seatHand(seat) {
  const index = names().indexOf(seat);
  return index in SEAT_HANDS ? SEAT_HANDS[index].map((code) => display(code, language())) : null;
}

export function fillCards(prefix) {
  (HANDS[prefix] || []).forEach((code, i) => { $(`${prefix}-card-${i}`).value = display(code, language()); });
}

/** A function renaming the example's names of `previous` to those of the current language. */
export function renamer(previous) {
  const before = names(previous);
  const after = names();
  return (name) => {
    const i = before.indexOf(name.trim());
    return i >= 0 && after[i] ? after[i] : name;
  };
}

/** After a switch from `previous`: every name input and every card input in the new language. */
export function retranslateInputs(previous) {
  const rename = renamer(previous);
  $("bet-players").value = $("bet-players").value.split(",").map((name) => rename(name.trim())).join(", ");
  const named = [$("bet-dealer"), ...document.querySelectorAll("#bet-actions [data-field=player], input.player")];
  for (const input of named) input.value = rename(input.value);
  for (const input of document.querySelectorAll("input[list=card-options]")) {
    input.value = retype(input.value, previous, language());
  }
  return rename;
}
