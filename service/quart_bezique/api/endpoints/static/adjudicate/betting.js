// View 3: a betting round as an editable list of actions, judged step by step. The service
// answers POST /v1/betting/validate with `trace: true` with the state after each accepted action,
// so the timeline is one call (and one more for the state before any action); it stops at the
// first illegal action. A violation is told in the service's own sentence when the service answered
// in the page's language (it names the offender and the amounts), else in the page's words for its
// reason code.

import { call } from "./api.js";
import { $, clear, clearErrors, el } from "./dom.js";
import { language, number, t } from "./i18n.js";
import { round } from "./defaults.js";
import { roundPlace } from "./fields.js";
import { showFailure, showProblems } from "./problems.js";
import { REASON_SECTIONS, sectionLabel } from "./rules.js";
import { record } from "./sheet.js";
import { ruled, rulesetNote } from "./rulesets.js";

export const TYPES = ["stake", "fold", "top_up", "open"];
let timeline = null;

function amountOf(id) {
  const text = $(id).value.trim();
  if (text === "") return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : text;
}

export function seats() {
  return $("bet-players").value.split(",").map((s) => s.trim()).filter(Boolean);
}

/** The round's setup and actions as the API takes them (optional limits left out). */
export function roundPayload() {
  const payload = { players: seats(), dealer: $("bet-dealer").value.trim(), ante: amountOf("bet-ante") };
  const min = amountOf("bet-min");
  const max = amountOf("bet-max");
  if (min !== undefined) payload.minimum_stake = min;
  if (max !== undefined) payload.maximum_stake = max;
  payload.actions = [...$("bet-actions").querySelectorAll("tr")].map((row, i) => {
    const action = { player: $(`act-${i}-player`).value.trim(), type: $(`act-${i}-type`).value };
    const amount = amountOf(`act-${i}-amount`);
    if (action.type !== "fold" && amount !== undefined) action.amount = amount;
    return action;
  });
  return payload;
}

function typeOptions(select) {
  const chosen = select.value;
  select.replaceChildren(...TYPES.map((type) => el("option", { value: type, text: t(`action.${type}`) })));
  select.value = chosen || "stake";
}

function renumber() {
  [...$("bet-actions").querySelectorAll("tr")].forEach((row, i) => {
    const fields = row.querySelectorAll("[data-field]");
    row.querySelector("th").textContent = String(i + 1);
    for (const field of fields) {
      const name = field.dataset.field;
      field.id = `act-${i}-${name}`;
      const label = row.querySelector(`label[data-for="${name}"]`);
      if (label) label.setAttribute("for", field.id);
      const err = row.querySelector(`.err[data-for="${name}"]`);
      if (err) err.id = `act-${i}-${name}-err`;
    }
    row.querySelector("button").setAttribute("aria-label", t("betting.remove.n", { n: i + 1 }));
  });
}

function addRow(action = { player: "", type: "stake" }) {
  const cell = (name, control) => el("td", {},
    el("label", { class: "sr", "data-for": name, text: t(`betting.${name === "type" ? "type" : name}`) }),
    control, el("span", { class: "err", "data-for": name }));
  const type = el("select", { "data-field": "type" });
  typeOptions(type);
  type.value = action.type;
  const amount = el("input", { "data-field": "amount", type: "number", min: "1", step: "1", value: action.amount ?? "" });
  const sync = () => { amount.disabled = type.value === "fold"; };
  type.addEventListener("change", sync);
  sync();
  const remove = el("button", { type: "button", class: "remove", text: "×" });
  const row = el("tr", {},
    el("th", { scope: "row" }),
    cell("player", el("input", { "data-field": "player", list: "seat-options", value: action.player, autocomplete: "off" })),
    cell("type", type),
    cell("amount", amount),
    el("td", {}, remove));
  remove.addEventListener("click", () => { row.remove(); renumber(); });
  $("bet-actions").append(row);
  renumber();
}

export function init() {
  const example = round();
  $("bet-players").value = example.players.join(", ");
  $("bet-dealer").value = example.dealer;
  for (const action of example.actions) addRow(action);
  $("bet-add").addEventListener("click", () => {
    addRow();
    $(`act-${$("bet-actions").rows.length - 1}-player`).focus();
  });
  $("betting-form").addEventListener("submit", submit);
  document.body.append(el("datalist", { id: "seat-options" }));
  $("bet-players").addEventListener("input", fillSeats);
  fillSeats();
}

function fillSeats() {
  $("seat-options").replaceChildren(...seats().map((seat) => el("option", { value: seat })));
}

export function retranslate() {
  fillSeats();
  for (const select of $("bet-actions").querySelectorAll("select")) typeOptions(select);
  for (const label of $("bet-actions").querySelectorAll("label[data-for]")) {
    label.textContent = t(`betting.${label.dataset.for}`);
  }
  renumber();
  render();
}

function pointerInput(pointer) {
  const match = /^\/actions\/(\d+)(?:\/(player|type|amount))?$/.exec(pointer);
  if (match) return `act-${match[1]}-${match[2] || "player"}`;
  const setup = { "/players": "bet-players", "/dealer": "bet-dealer", "/ante": "bet-ante",
    "/minimum_stake": "bet-min", "/maximum_stake": "bet-max" };
  if (pointer in setup) return setup[pointer];
  if (/^\/players\/\d+$/.test(pointer)) return "bet-players";
  return null;
}

/** The service's own sentence for a violation (asked in the page's language, it names the
 * offender and the amounts); the page's words for the code if the answer is in another language. */
function reasonText(error, spoken) {
  return spoken === language() && error.message ? error.message : t(`reason.${error.code}`);
}

export function actionText(action) {
  const amount = action.amount === undefined ? "" : ` ${number(action.amount)}`;
  return t("action.by", { player: action.player, action: t(`action.${action.type}`) + amount });
}

// The largest amount the service counts exactly (2^53 - 1): a stake ceiling that is only this
// bound less the pot is no rule of the table, and is shown as no upper limit.
const MAX_MONEY = 9007199254740991;

export function legalText(legal, pot = 0) {
  if (legal.type === "fold") return t("legal.fold");
  if (legal.type === "stake") {
    if (legal.max === null || legal.max + pot >= MAX_MONEY) return t("legal.stake_from", { min: number(legal.min) });
    return t("legal.stake", { min: number(legal.min), max: number(legal.max) });
  }
  return t(`legal.${legal.type}`, { amount: number(legal.amount) });
}

function stateCells(state) {
  const who = state.players.map((p) => `${p.player} ${number(p.contributed)}${p.folded ? ` (${t("state.folded")})` : ""}`).join(", ");
  let next = state.to_act ?? "—";
  if (state.top_up_pending) next = `${next} (${t("state.owes")})`;
  return [t(`phase.${state.phase}`), number(state.pot), state.current_stake === null ? "—" : number(state.current_stake), next, who];
}

export function describeVerdict(body, payload, spoken) {
  const lines = [
    t("sheet.round", { players: payload.players.join(", "), dealer: payload.dealer, ante: payload.ante }),
    ...payload.actions.map((a, i) => `${i + 1}. ${actionText(a)}`),
  ];
  const sections = ["9.1", "9.2", "9.10"];
  if (body.valid) lines.push(t("betting.valid", { phase: t(`phase.${body.state.phase}`), pot: number(body.state.pot) }));
  else {
    lines.push(t("betting.illegal", { n: body.error.index + 1, reason: reasonText(body.error, spoken) }));
    sections.push("9.11", ...REASON_SECTIONS[body.error.code] || []);
  }
  return { title: t("betting.title"), lines, sections };
}

// The timeline's columns after the step's number: the class of their cells and their heading.
const COLUMNS = [["action", "timeline.action"], ["phase", "timeline.phase"], ["pot", "timeline.pot"],
  ["stake", "timeline.stake"], ["next", "timeline.next"], ["players", "timeline.players"]];

/** The timeline: a table from a tablet up; on a phone the stylesheet stacks each step into a block
 * of its own (its number and action, then "Stage: … · Pot: …", then who paid what), each value
 * after its heading (data-label). The roles keep it a table for screen readers, whatever it looks
 * like. */
function timelineTable(steps) {
  const rows = steps.map((step) => el("tr", { class: step.illegal ? "illegal" : "", role: "row" },
    el("th", { scope: "row", role: "rowheader", class: step.index === 0 ? "step" : "step n",
      text: step.index === 0 ? t("timeline.start") : String(step.index) }),
    [step.action ? actionText(step.action) : t("timeline.antes"), ...stateCells(step.state)]
      .map((text, i) => el("td", { class: COLUMNS[i][0], "data-label": t(COLUMNS[i][1]), role: "cell", text }))));
  return el("table", { class: "timeline", role: "table" },
    el("caption", { text: t("timeline.caption") }),
    el("thead", { role: "rowgroup" }, el("tr", { role: "row" },
      el("th", { scope: "col", role: "columnheader", text: "#" }),
      COLUMNS.map(([, key]) => el("th", { scope: "col", role: "columnheader", text: t(key) })))),
    el("tbody", { role: "rowgroup" }, rows));
}

export function render() {
  const box = clear($("betting-result"));
  if (!timeline) return;
  box.append(timelineTable(timeline.steps));
  const verdict = timeline.verdict;
  if (verdict && !verdict.valid) {
    const code = verdict.error.code;
    box.append(el("div", { class: "explain illegal-box", role: "note" },
      el("p", { class: "verdict lose", text: t("betting.illegal", { n: verdict.error.index + 1, reason: reasonText(verdict.error, timeline.spoken) }) }),
      el("p", { class: "sections", text: ["9.11", ...REASON_SECTIONS[code] || []].map((s) => sectionLabel(s)).join("; ") }),
      el("p", { text: verdict.state.legal_actions.length
        ? t("betting.alternatives", { player: verdict.state.to_act ?? "—" }) : t("betting.none") }),
      el("ul", {}, verdict.state.legal_actions.map((legal) => el("li", { text: legalText(legal, verdict.state.pot) })))),
      rulesetNote(verdict) || "");
  } else if (verdict) {
    box.append(el("p", { class: "verdict win", text: t("betting.valid", { phase: t(`phase.${verdict.state.phase}`), pot: number(verdict.state.pot) }) }),
      el("p", { class: "sections", text: ["9.10", "9.7"].map((s) => sectionLabel(s)).join("; ") }),
      rulesetNote(verdict) || "");
  }
}

export async function submit(event) {
  event.preventDefault();
  clearErrors($("betting-form"));
  $("betting-err").textContent = "";
  const payload = roundPayload();
  timeline = { steps: [], verdict: null };
  clear($("betting-result")).append(el("p", { class: "hint", text: t("working") }));
  try {
    // Two calls: the state before any action, and the whole sequence with its trace (the state
    // after each accepted action, up to the first illegal one).
    const [start, exchange] = await Promise.all([
      call("POST", "v1/betting/validate", ruled({ ...payload, actions: [] })),
      call("POST", "v1/betting/validate", ruled({ ...payload, trace: true })),
    ]);
    if (!start.ok || !exchange.ok) {
      showProblems([start, exchange], "betting-err", pointerInput, (pointer) => roundPlace(pointer));
      timeline = null;
    } else {
      const body = exchange.body;
      timeline.steps.push({ index: 0, action: undefined, state: start.body.state });
      body.trace.forEach((state, i) => {
        timeline.steps.push({ index: i + 1, action: payload.actions[i], state });
      });
      if (!body.valid) {
        const k = body.error.index;
        timeline.steps.push({ index: k + 1, action: payload.actions[k], state: body.state, illegal: true });
      }
      timeline.verdict = body;
      timeline.spoken = exchange.language;
      const sent = { ...payload, trace: true };
      record(exchange, () => describeVerdict(body, sent, exchange.language));
    }
  } catch (error) {
    showFailure("betting-err", error);
    timeline = null;
  }
  render();
}
