// What a refusal's JSON pointer names, in people's words: "Анте", "Сумма действия 2", with the
// section of the page that holds it when that is not the view shown ("раздел «Торговля»"). Used
// for a refusal that has no input box next to which it can be shown.

import { t } from "./i18n.js";

const n = (match, group = 1) => Number(match[group]) + 1;
const unescape = (token) => token.replace(/~1/g, "/").replace(/~0/g, "~");

/** The round's setup and actions, as the Betting round view asks for them. */
const ROUND = [
  [/^\/players$/, () => t("field.players")],
  [/^\/players\/(\d+)$/, (m) => t("field.seat", { n: n(m) })],
  [/^\/dealer$/, () => t("betting.dealer")],
  [/^\/ante$/, () => t("betting.ante")],
  [/^\/minimum_stake$/, () => t("field.minimum_stake")],
  [/^\/maximum_stake$/, () => t("field.maximum_stake")],
  [/^\/actions$/, () => t("betting.actions")],
  [/^\/actions\/(\d+)$/, (m) => t("field.action", { n: n(m) })],
  [/^\/actions\/(\d+)\/player$/, (m) => t("field.action.player", { n: n(m) })],
  [/^\/actions\/(\d+)\/type$/, (m) => t("field.action.type", { n: n(m) })],
  [/^\/actions\/(\d+)\/amount$/, (m) => t("field.action.amount", { n: n(m) })],
];

/** One hand's cards (Hand and Odds views). */
const CARDS = [
  [/^\/cards$/, () => t("field.cards")],
  [/^\/cards\/(\d+)$/, (m) => t("card.label", { n: n(m) })],
  [/^\/trump$/, () => t("trump.label")],
  [/^\/opponents$/, () => t("odds.opponents")],
];

/** Two hands side by side (Showdown view). */
const SHOWDOWN = [
  [/^\/hands$/, () => t("field.hands")],
  [/^\/hands\/(\d+)(?:\/cards)?$/, (m) => t("field.hand", { n: n(m) })],
  [/^\/hands\/(\d+)\/player$/, (m) => t("field.hand.player", { n: n(m) })],
  [/^\/hands\/(\d+)\/cards\/(\d+)$/, (m) => t("field.hand.card", { n: n(m), m: n(m, 2) })],
  [/^\/trump$/, () => t("trump.label")],
];

/** The showdown players' hands, by name (Settlement view). */
const SETTLE = [
  [/^\/hands$/, () => t("field.hands")],
  [/^\/hands\/([^/]+)(?:\/\d+)?$/, (m) => t("settle.hand.of", { player: unescape(m[1]) })],
  [/^\/trump$/, () => t("trump.label")],
];

function named(table, pointer) {
  for (const [pattern, name] of table) {
    const match = pattern.exec(pointer);
    if (match) return name(match);
  }
  return null;
}

/** `{field, where}` for a pointer of a round (where: null in the Betting round view itself). */
export function roundPlace(pointer, elsewhere = false) {
  const field = named(ROUND, pointer);
  if (!field) return null;
  return { field, where: elsewhere ? t("where.view", { view: t("nav.betting") }) : null };
}

export function cardsPlace(pointer) {
  const field = named(CARDS, pointer);
  return field ? { field, where: null } : null;
}

export function showdownPlace(pointer) {
  const field = named(SHOWDOWN, pointer);
  return field ? { field, where: null } : null;
}

/** The Settlement view: its own hands and trump, and the round it takes from the Betting round view. */
export function settlePlace(pointer) {
  const field = named(SETTLE, pointer);
  return field ? { field, where: null } : roundPlace(pointer, true);
}
