// Which sections of the rules specification (docs/rules.md, ruleset classic/1) each part of a
// verdict applies. The page shows them as "§4.3 Marriage": the number is stable for ever.

import { t } from "./i18n.js";

export const COMBINATION_SECTIONS = {
  three_of_a_kind: ["4.1"],
  four_of_a_kind: ["4.2", "5.1"],
  marriage: ["4.3"],
  bezique: ["4.4"],
  double_bezique: ["4.5", "5.3"],
  coronka: ["4.6"],
};

export const REASON_SECTIONS = {
  UNKNOWN_PLAYER: ["9.9"],
  ROUND_OVER: ["9.7"],
  NOT_YOUR_TURN: ["9.2"],
  TOP_UP_REQUIRED: ["9.4"],
  STAKE_BELOW_MINIMUM: ["9.3"],
  STAKE_BELOW_PREVIOUS: ["9.3"],
  STAKE_ABOVE_MAXIMUM: ["9.3"],
  NO_TOP_UP_OWED: ["9.4"],
  WRONG_TOP_UP_AMOUNT: ["9.4"],
  OPEN_NOT_ALLOWED: ["9.5"],
  WRONG_OPEN_AMOUNT: ["9.5"],
  POT_LIMIT_EXCEEDED: ["9.8"],
};

/** "§4.3 Marriage" in the current language (or in `lang`). */
export function sectionLabel(number, lang) {
  return `§${number} ${t(`sec.${number}`, {}, lang)}`;
}

export function uniqueSections(list) {
  return [...new Set(list)].sort((a, b) => {
    const [a1, a2] = a.split(".").map(Number);
    const [b1, b2] = b.split(".").map(Number);
    return a1 - b1 || (a2 || 0) - (b2 || 0);
  });
}
