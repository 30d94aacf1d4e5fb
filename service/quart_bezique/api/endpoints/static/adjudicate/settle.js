// View 4a: settle a round (POST /v1/rounds/settle): payouts and nets, and where the odd chip of a
// split pot went and why. Hands are asked only of the two players left at the showdown: a folded
// player's hand is no part of the settlement (the service refuses it as extra). A verdict is shown
// only while the round it settled is the one in the Betting round view: once the seats, dealer,
// ante, limits or actions change there, the old verdict and its errors are taken away.

import { call } from "./api.js";
import { cardInputs, cardsOf, chips, typedCards } from "./cards.js";
import { renderBreakdown } from "./breakdown.js";
import { roundPayload } from "./betting.js";
import { seatHand } from "./defaults.js";
import { $, clear, clearErrors, el } from "./dom.js";
import { settlePlace } from "./fields.js";
import { list, number, parts, signed, t } from "./i18n.js";
import { showFailure, showProblem } from "./problems.js";
import { sectionLabel } from "./rules.js";
import { record } from "./sheet.js";
import { ruled, rulesetNote, rulesetSections, rulesOf } from "./rulesets.js";

let last = null;
let shown = null;
let note = null;
let asked = null;
let settled = null; // the round (as roundPayload() gives it) of the last answer, as JSON
const kept = new Map();

/** The seats that did not fold: the showdown's two players once the round is over. */
export function standing() {
  const payload = roundPayload();
  const folded = new Set(payload.actions.filter((a) => a.type === "fold").map((a) => a.player));
  return payload.players.filter((seat) => !folded.has(seat));
}

function noteText() {
  return note ? t(note.key, { player: note.player }) : "";
}

/** Take the last answer away when the round in the Betting round view is no longer its round. */
function forgetStale() {
  if (settled === null || JSON.stringify(roundPayload()) === settled) return;
  settled = null;
  last = null;
  clear($("settle-result"));
  clearErrors($("settle-form"));
  $("settle-err").textContent = "";
}

/** Four card inputs for each of the showdown's two players, keeping what was typed; the last
 * answer taken away if its round has changed since. */
export function refreshSeats() {
  forgetStale();
  const now = standing();
  const ask = now.length === 2 ? now : [];
  const signature = `${ask.length}\n${now.join("\n")}`;
  if (signature === asked) return;
  asked = signature;
  (shown || []).forEach((seat, i) => kept.set(seat, typedCards(`st${i}`)));
  const box = clear($("settle-hands"));
  note = now.length === 2 ? null : { key: now.length === 1 ? "settle.no.hands" : "settle.unfinished", player: now[0] };
  if (note) box.append(el("p", { class: "hint", id: "settle-note", text: noteText() }));
  ask.forEach((seat, i) => {
    const inputs = el("div", { class: "card-inputs" });
    box.append(el("fieldset", { class: "seat-hand" }, el("legend", { text: t("settle.hand.of", { player: seat }) }), inputs));
    cardInputs(inputs, `st${i}`);
    const cards = kept.get(seat) || (shown === null ? seatHand(seat) : null);
    if (cards) cards.forEach((card, j) => { $(`st${i}-card-${j}`).value = card; });
  });
  shown = ask;
}

/** After a language switch renamed the example's players: the hands follow their players. */
export function rename(renameSeat) {
  if (shown) shown = shown.map(renameSeat);
  asked = null;
  for (const [seat, cards] of [...kept]) {
    kept.delete(seat);
    kept.set(renameSeat(seat), cards);
  }
  if (note && note.player) note.player = renameSeat(note.player);
  if (settled !== null) {
    // The same round with the example's players renamed: its answer is not stale.
    const round = JSON.parse(settled);
    round.players = round.players.map(renameSeat);
    round.dealer = renameSeat(round.dealer);
    round.actions.forEach((action) => { action.player = renameSeat(action.player); });
    settled = JSON.stringify(round);
  }
}

function pointerInput(pointer) {
  const match = /^\/hands\/([^/]+)(?:\/(\d))?$/.exec(pointer);
  if (match) {
    const seat = shown.indexOf(match[1].replace(/~1/g, "/").replace(/~0/g, "~"));
    if (seat >= 0) return `st${seat}-card-${match[2] || 0}`;
  }
  if (pointer === "/trump") return "settle-trump";
  return null;
}

/** Who got the odd chip: with two winners and an odd pot, the one paid more (rule 10.2). */
export function oddChip(body) {
  if (body.winners.length < 2 || body.pot % body.winners.length === 0) return null;
  const paid = body.players.filter((p) => body.winners.includes(p.player));
  const top = Math.max(...paid.map((p) => p.payout));
  return paid.find((p) => p.payout === top).player;
}

function outcomeLines(body) {
  const lines = [];
  // A tie under tie=carry (docs/rules.md §13.4): nobody is paid, the pot goes to the next round.
  if (body.carried > 0) return [t("settle.carried", { pot: number(body.carried) })];
  if (!body.showdown) lines.push(t("settle.uncontested", { player: body.winners[0], pot: number(body.pot) }));
  else if (body.winners.length === 1) lines.push(t("settle.won", { player: body.winners[0], pot: number(body.pot) }));
  else lines.push(t("settle.split", { players: list(body.winners), pot: number(body.pot) }));
  const odd = oddChip(body);
  if (odd) lines.push(t("settle.odd", { player: odd }));
  else if (body.winners.length > 1) lines.push(t("settle.even"));
  return lines;
}

function sections(body) {
  return [body.showdown ? "10.2" : "10.1", "10.3", ...(body.showdown ? ["8.2"] : ["9.6"])];
}

export function render() {
  const box = clear($("settle-result"));
  [...$("settle-hands").querySelectorAll("legend")].forEach((legend, i) => {
    legend.textContent = t("settle.hand.of", { player: shown[i] });
  });
  if ($("settle-note")) $("settle-note").textContent = noteText();
  if (!last || !last.ok) return;
  const body = last.body;
  const first = body.carried > 0 ? "verdict tie carried" : "verdict win";
  box.append(...outcomeLines(body).map((line, i) => el("p", { class: i === 0 ? first : "odd-chip", text: line })),
    el("p", { class: "sections", text: [...sections(body), ...(body.carried > 0 ? rulesetSections(body) : [])]
      .map((s) => sectionLabel(s)).join("; ") }),
    rulesetNote(body) || "",
    el("table", { class: "payouts" },
      el("caption", { text: t("settle.caption", { pot: number(body.pot) }) }),
      el("thead", {}, el("tr", {}, ["settle.player", "settle.payout", "settle.net"].map((key) => el("th", { scope: "col", text: t(key) })))),
      el("tbody", {}, body.players.map((p) => el("tr", { class: body.winners.includes(p.player) ? "winner" : "" },
        el("th", { scope: "row", text: p.player }),
        el("td", { class: "num", text: number(p.payout) }),
        el("td", { class: `num ${p.net < 0 ? "neg" : p.net > 0 ? "pos" : ""}`.trim(), text: signed(p.net) }))))));
  if (body.showdown) {
    box.append(el("div", { class: "two" }, body.showdown.hands.map((hand) => renderBreakdown(hand, body.showdown.trump, hand.player, rulesOf(body)))));
  }
}

export function describe(exchange) {
  const body = exchange.body;
  return {
    title: t("settle.title"),
    lines: [...outcomeLines(body),
      ...(body.showdown ? body.showdown.hands.map((hand) => parts("sheet.player.hand", { player: hand.player, cards: chips(hand.cards), score: hand.score })) : []),
      ...body.players.map((p) => t("sheet.payout", { player: p.player, payout: number(p.payout), net: signed(p.net) }))],
    sections: ["9.10", ...sections(body), ...(body.showdown ? ["8.1", "5.5"] : []), ...rulesetSections(body)],
  };
}

export async function submit(event) {
  event.preventDefault();
  refreshSeats();
  clearErrors($("settle-form"));
  $("settle-err").textContent = "";
  const payload = roundPayload();
  settled = JSON.stringify(payload);
  payload.trump = $("settle-trump").value || null;
  const read = cardsOf(shown.map((seat, i) => `st${i}`));
  if (!read) {
    last = null;
    render();
    return;
  }
  const hands = {};
  shown.forEach((seat, i) => {
    if (read[i].some(Boolean)) hands[seat] = read[i];
  });
  payload.hands = hands;
  clear($("settle-result")).append(el("p", { class: "hint", text: t("working") }));
  try {
    last = await call("POST", "v1/rounds/settle", ruled(payload));
  } catch (error) {
    last = null;
    showFailure("settle-err", error);
    render();
    return;
  }
  const exchange = last;
  if (exchange.ok) record(exchange, () => describe(exchange));
  else showProblem(exchange, "settle-err", pointerInput, settlePlace);
  render();
}
