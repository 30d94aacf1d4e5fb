// The rules every verdict of the page is asked under: one picker for the whole page, set to a
// preset (classic/1, literal/1) or to a preset with some switches changed ("custom"). The service
// lists its switches and presets (GET /v1/rulesets); the page also knows the two presets of its own
// release, so it works when that call fails. classic/1 unchanged sends no `ruleset` member at all,
// so the page's requests stay byte for byte what they were before rulesets existed; anything else
// sends the preset's name, or {"base": preset, switch: value, ...} with only the switches that
// differ from the base. The choice is kept for the tab, as the language and the view are.

import { call, sha256 } from "./api.js";
import { $, clear, el, showError } from "./dom.js";
import { has, parts, t } from "./i18n.js";

const STORE = "qb-ruleset";
export const DEFAULT = "classic/1";
const CUSTOM = "custom";
const RULES = "docs/rules.md#";

const CLASSIC = { three_aces: 6, coronka: "consecutive", trump_doubles: "pure_trump", tie: "split" };
/** What the page knows without the service: docs/rules.md §13 of this release. */
const BUILT_IN = {
  default: DEFAULT,
  switches: [
    { name: "three_aces", values: [6, 0], default: 6, anchor: `${RULES}s13-1` },
    { name: "coronka", values: ["consecutive", "from_king"], default: "consecutive", anchor: `${RULES}s13-2` },
    { name: "trump_doubles", values: ["pure_trump", "any_trump_card"], default: "pure_trump", anchor: `${RULES}s13-3` },
    { name: "tie", values: ["split", "carry"], default: "split", anchor: `${RULES}s13-4` },
  ],
  presets: [
    { id: DEFAULT, switches: CLASSIC, anchor: `${RULES}s13-5` },
    { id: "literal/1", switches: { three_aces: 0, coronka: "from_king", trump_doubles: "any_trump_card", tie: "carry" },
      anchor: `${RULES}s13-5` },
  ],
};

let known = BUILT_IN;
let base = DEFAULT;
let values = { ...CLASSIC };
const digests = new Map(); // canonical id → SHA-256 hex, from the service or computed here

function switchesList() {
  return known.switches;
}

function preset(id) {
  return known.presets.find((p) => p.id === id) || null;
}

function defaults() {
  return Object.fromEntries(switchesList().map((s) => [s.name, s.default]));
}

function same(a, b) {
  return switchesList().every((s) => a[s.name] === b[s.name]);
}

/** The preset whose values these are (the base first), or null. */
function presetOf(these) {
  const order = [preset(base), ...known.presets].filter(Boolean);
  const found = order.find((p) => same(p.switches, these));
  return found ? found.id : null;
}

/** A service's list the page can use: its default a preset, every preset's values among the
 * switches' values. Anything else is not trusted over the page's own. */
function usable(body) {
  if (!body || !Array.isArray(body.switches) || !Array.isArray(body.presets)) return false;
  const ok = (s) => s && typeof s.name === "string" && Array.isArray(s.values) && s.values.includes(s.default);
  if (!body.switches.length || !body.switches.every(ok)) return false;
  const fits = (p) => p && typeof p.id === "string" && p.switches
    && body.switches.every((s) => s.values.includes(p.switches[s.name]));
  return body.presets.every(fits) && body.presets.some((p) => p.id === body.default);
}

/** The canonical id of switch values: a preset's name, or the default and what differs from it,
 * sorted by name (docs/rules.md §13.6), as the service names it. */
export function idOf(these) {
  const named = known.presets.find((p) => same(p.switches, these));
  if (named) return named.id;
  const start = preset(known.default)?.switches || defaults();
  const changed = switchesList().map((s) => s.name).filter((name) => these[name] !== start[name]).sort();
  return `${known.default}:${changed.map((name) => `${name}=${these[name]}`).join(",")}`;
}

/** The switch values an id names (a preset, or `preset:name=value,...`), or null. */
export function switchesOf(id) {
  if (typeof id !== "string") return null;
  const [name, changes] = id.split(/:(.*)/s);
  const from = preset(name);
  if (!from) return null;
  const these = { ...from.switches };
  for (const change of (changes || "").split(",").filter(Boolean)) {
    const [key, text] = change.split("=");
    const found = switchesList().find((s) => s.name === key);
    const value = found && found.values.find((v) => String(v) === text);
    if (value === undefined) return null;
    these[key] = value;
  }
  return these;
}

/** The values a request's `ruleset` member names (none: the default's), or null. */
function valuesOfMember(member) {
  if (member === undefined || member === null) return preset(known.default)?.switches || defaults();
  if (typeof member === "string") return switchesOf(member);
  if (typeof member !== "object" || Array.isArray(member)) return null;
  const these = switchesOf(member.base ?? known.default);
  if (!these) return null;
  for (const [key, value] of Object.entries(member)) {
    if (key === "base") continue;
    const found = switchesList().find((s) => s.name === key);
    if (!found || !found.values.includes(value)) return null;
    these[key] = value;
  }
  return these;
}

async function digestOf(these) {
  const id = idOf(these);
  if (digests.has(id)) return;
  const keys = Object.keys(these).sort();
  const canonical = JSON.stringify(Object.fromEntries(keys.map((k) => [k, these[k]])));
  const digest = await sha256(new TextEncoder().encode(canonical));
  if (digest && !digests.has(id)) digests.set(id, digest);
}

/** The digest of a ruleset by its id, when the service gave it or the page could compute it. */
export function digestFor(id) {
  return digests.get(id) || null;
}

/** Remember an answer's id and digest (the service's word wins over the page's computation). */
export function learn(body) {
  if (body && typeof body.ruleset === "string" && typeof body.ruleset_sha256 === "string") {
    digests.set(body.ruleset, body.ruleset_sha256);
  }
}

/** The id of the ruleset a request asked for (its `ruleset` member; none: the default), or the
 * member as sent when the page cannot read it. */
export function askedId(requestText) {
  let member;
  try {
    member = JSON.parse(requestText || "{}").ruleset;
  } catch {
    return null;
  }
  const these = valuesOfMember(member);
  return these ? idOf(these) : JSON.stringify(member);
}

/** The `ruleset` member the picker asks for, or undefined for classic/1 unchanged. */
export function member() {
  const named = presetOf(values);
  if (named === DEFAULT) return undefined;
  if (named) return named;
  const from = preset(base).switches;
  const out = { base };
  for (const s of switchesList()) if (values[s.name] !== from[s.name]) out[s.name] = values[s.name];
  return out;
}

/** A request's payload with the picker's ruleset (nothing added for classic/1 unchanged). A new
 * request takes the picker's old refusals away. */
export function ruled(payload) {
  clearRefusal();
  const asked = member();
  return asked === undefined ? payload : { ...payload, ruleset: asked };
}

function save() {
  sessionStorage.setItem(STORE, JSON.stringify({ base, values }));
}

function restore() {
  let saved = null;
  try {
    saved = JSON.parse(sessionStorage.getItem(STORE) || "null");
  } catch {
    saved = null;
  }
  if (!saved || !preset(saved.base) || typeof saved.values !== "object" || !saved.values) return;
  const these = {};
  for (const s of switchesList()) {
    if (!s.values.includes(saved.values[s.name])) return;
    these[s.name] = saved.values[s.name];
  }
  base = saved.base;
  values = these;
}

/** The service's switches and presets if it lists them, else the page's own; the tab's choice. */
export async function load() {
  try {
    const answer = await call("GET", "v1/rulesets");
    if (answer.ok && usable(answer.body)) known = answer.body;
  } catch {
    // the page's own two presets then
  }
  base = preset(known.default) ? known.default : known.presets[0].id;
  values = { ...preset(base).switches };
  for (const p of known.presets) if (typeof p.sha256 === "string") digests.set(p.id, p.sha256);
  restore();
  await Promise.all(known.presets.map((p) => digestOf(p.switches)));
  await digestOf(values);
}

// --- the picker ------------------------------------------------------------------------------

/** A preset's name in words: "Классические", with its version when two share a name. */
function presetName(id) {
  const [name, version] = id.split("/");
  if (!has(`rules.preset.${name}`)) return id;
  const twins = known.presets.filter((p) => p.id.split("/")[0] === name).length;
  return twins > 1 ? `${t(`rules.preset.${name}`)} ${version}` : t(`rules.preset.${name}`);
}

function presetAbout(id) {
  const name = id.split("/")[0];
  return has(`rules.preset.${name}.about`) ? t(`rules.preset.${name}.about`) : "";
}

function valueText(name, value, about = false) {
  const key = `rules.${name}.${value}${about ? ".about" : ""}`;
  return has(key) ? t(key) : about ? "" : String(value);
}

/** The section number (13.2) of an anchor such as docs/rules.md#s13-2, or null. */
function sectionOf(anchor) {
  const match = /#s(\d+)-(\d+)$/.exec(anchor || "");
  return match ? `${match[1]}.${match[2]}` : null;
}

function section(anchor) {
  return sectionOf(anchor) ? `§${sectionOf(anchor)}` : "";
}

/** The sections of docs/rules.md §13 a verdict's ruleset applies beyond rules 1 to 12: its
 * preset's, and those of the switches it changes. None for the default. */
export function rulesetSections(body) {
  const id = body && body.ruleset;
  const these = switchesOf(id);
  if (!these || id === known.default) return [];
  const start = preset(known.default)?.switches || defaults();
  const found = switchesList().filter((s) => these[s.name] !== start[s.name]).map((s) => sectionOf(s.anchor));
  if (preset(id)) found.unshift(sectionOf(preset(id).anchor));
  return found.filter((number) => number && has(`sec.${number}`));
}

function chosen() {
  return presetOf(values) || CUSTOM;
}

/** The picker in the page's language: the preset, each switch with its values in words, the id
 * the verdicts will name. */
export function render() {
  const presetSelect = $("rules-preset");
  const now = chosen();
  presetSelect.replaceChildren(
    ...known.presets.map((p) => el("option", { value: p.id, text: presetName(p.id) })),
    el("option", { value: CUSTOM, disabled: now !== CUSTOM, text: t("rules.preset.custom") }));
  presetSelect.value = now;
  $("rules-preset-about").textContent = now === CUSTOM
    ? t("rules.preset.custom.about", { base: presetName(base) }) : presetAbout(now);
  const box = clear($("rules-switches"));
  for (const s of switchesList()) {
    const id = `rules-${s.name}`;
    const select = el("select", { id, "data-switch": s.name, "aria-describedby": `${id}-about` },
      s.values.map((value) => el("option", { value: String(value), text: valueText(s.name, value) })));
    select.value = String(values[s.name]);
    select.addEventListener("change", () => setSwitch(s.name, select.value));
    box.append(el("div", { class: "rules-switch" },
      el("label", { for: id, text: has(`rules.${s.name}`) ? t(`rules.${s.name}`) : s.name }),
      select,
      el("p", { class: "hint rules-about", id: `${id}-about` },
        valueText(s.name, values[s.name], true), section(s.anchor) ? ` (${section(s.anchor)})` : ""),
      el("span", { class: "err", id: `${id}-err` })));
  }
  $("rules-chosen").textContent = now === CUSTOM ? t("rules.preset.custom") : presetName(now);
  $("rules-summary-id").textContent = idOf(values);
}

function changed() {
  save();
  digestOf(values);
  clearRefusal();
  render();
}

function setSwitch(name, text) {
  const found = switchesList().find((s) => s.name === name);
  const value = found.values.find((v) => String(v) === text);
  if (value === undefined) return;
  values = { ...values, [name]: value };
  changed();
  $(`rules-${name}`).focus();
}

function setPreset(id) {
  if (!preset(id)) {
    render(); // "custom" is not a choice of its own: a switch changed makes the rules custom
    return;
  }
  base = id;
  values = { ...preset(id).switches };
  changed();
  $("rules-preset").focus();
}

export function init() {
  $("rules-preset").addEventListener("change", (event) => setPreset(event.target.value));
  render();
}

// --- refusals of the ruleset -----------------------------------------------------------------

/** Whether a refusal's pointer is about the request's ruleset. */
export function aboutRuleset(pointer) {
  return pointer === "/ruleset" || String(pointer || "").startsWith("/ruleset/");
}

function clearRefusal() {
  const box = $("rules-box");
  if (!box) return;
  for (const span of box.querySelectorAll(".err")) span.textContent = "";
  for (const field of box.querySelectorAll("[aria-invalid]")) field.removeAttribute("aria-invalid");
}

/** Take a refusal shown in another language away (the next request is answered anew). */
export function forgetRefusal() {
  clearRefusal();
}

/** Show an error of a refusal about the ruleset at the picker, in the page's words for the
 * rulesets' codes (the service's own message for anything else), and open the picker. */
export function showRefusal(error) {
  const match = /^\/ruleset\/([^/]+)/.exec(error.pointer || "");
  const field = match && match[1] !== "base" && $(`rules-${match[1]}`) ? `rules-${match[1]}` : "rules-preset";
  const message = error.code && has(`rules.error.${error.code}`) ? t(`rules.error.${error.code}`) : error.message;
  const span = $(`${field}-err`);
  if (!span || span.textContent.split("; ").includes(message)) return;
  showError(field, message);
  $(field).setAttribute("aria-describedby", `${field}-about ${field}-err`); // the value's words too
  $("rules-box").open = true;
}

/** A verdict's ruleset as a line: its id and (when known) its digest, shortened; the full digest
 * is the title, and the sheet's. */
export function rulesetNote(body) {
  const id = body && typeof body.ruleset === "string" ? body.ruleset : null;
  if (!id) return null;
  const digest = body.ruleset_sha256 || digestFor(id);
  const code = el("code", { class: "mono", text: id });
  const short = digest ? el("code", { class: "mono", title: digest, text: `${digest.slice(0, 12)}…` }) : null;
  return el("p", { class: "ruleset-note" },
    parts(digest ? "rules.verdict" : "rules.verdict.nodigest", { id: code, digest: short }));
}

/** The switch values of a verdict's ruleset (its id), classic/1's when it names none. */
export function rulesOf(body) {
  return switchesOf(body && body.ruleset) || { ...CLASSIC };
}
