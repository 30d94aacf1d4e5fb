// The page's own card notation and its way back to the API's canonical codes (AS, 10H...).
// The page shows a card as its rank in the page's language and a suit symbol (Т♠ in Russian and
// Ukrainian, A♠ in English); whatever it shows, in any of its languages, it must take back, so
// such spellings are turned into canonical codes here before they are sent. The service's rule
// stays as it is: it refuses a Cyrillic Т before a suit symbol, which looks like the Latin T (ten).

export const SUITS = ["S", "C", "H", "D"];
export const RANKS = ["A", "K", "Q", "J", "10", "9"];
export const SYMBOL = { S: "♠", C: "♣", H: "♥", D: "♦" };
export const CODES = SUITS.flatMap((suit) => RANKS.map((rank) => rank + suit));

const FROM_SYMBOL = { "♠": "S", "♣": "C", "♥": "H", "♦": "D" };
const CYRILLIC_RANK = { "Т": "A", "К": "K", "Д": "Q", "В": "J" };
const CYRILLIC_SUIT = { "П": "S", "Т": "C", "К": "C", "Ч": "H", "Б": "D" };
const LATIN_RANK = { A: "A", K: "K", Q: "Q", J: "J", T: "10" };
const LATIN_SUIT = { S: "S", C: "C", H: "H", D: "D" };
const CYRILLIC_SHORT = { A: "Т", K: "К", Q: "Д", J: "В" };

export function split(code) {
  return { rank: code.slice(0, -1), suit: code.slice(-1) };
}

/** The card as the page shows it in `lang`: "Т♠" (ru, uk) or "A♠" (en). */
export function display(code, lang) {
  const { rank, suit } = split(code);
  const shown = lang === "en" ? rank : CYRILLIC_SHORT[rank] || rank;
  return shown + SYMBOL[suit];
}

/** What the page does with a typed card in the page of `lang`:
 * {code} a canonical code; {ambiguous: true} a Latin T before a suit symbol in a page where Т♠
 * is the ace (the page refuses it itself); {raw} anything else, sent as typed for the service to
 * accept or explain. */
export function readCard(typed, lang) {
  const text = typed.trim();
  const upper = text.toUpperCase();
  const match = /^(10|9|.)(.)$/u.exec(upper);
  if (!match) return { raw: text };
  const [, rank, suit] = match;
  const digits = rank === "10" || rank === "9" ? rank : null;
  if (suit in FROM_SYMBOL) {
    if (rank === "T") return lang === "en" ? { code: `10${FROM_SYMBOL[suit]}` } : { ambiguous: true, raw: text };
    const r = digits || CYRILLIC_RANK[rank] || (rank in LATIN_RANK ? LATIN_RANK[rank] : null);
    return r ? { code: r + FROM_SYMBOL[suit] } : { raw: text };
  }
  if (suit in CYRILLIC_SUIT) {
    const r = digits || CYRILLIC_RANK[rank];
    return r ? { code: r + CYRILLIC_SUIT[suit] } : { raw: text };
  }
  if (suit in LATIN_SUIT) {
    const r = digits || LATIN_RANK[rank];
    return r ? { code: r + LATIN_SUIT[suit] } : { raw: text };
  }
  return { raw: text };
}

/** A typed card in the notation of `lang`, if the page can read it; else the text unchanged. */
export function retype(typed, lang, to) {
  const read = readCard(typed, lang);
  return read.code ? display(read.code, to) : typed;
}
