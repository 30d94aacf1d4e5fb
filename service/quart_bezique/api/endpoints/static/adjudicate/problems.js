// Refusals shown where they belong: each of a problem document's errors[] is placed next to the
// input its JSON pointer names; what names no input goes to the form's own message line, one
// line per error. A form that sent several requests shows the errors of all of them at once, each
// message once.
//
// The service answers in the page's language, and its messages say what is wrong themselves: a
// rule's refusal is a whole sentence ("торговля не закончена: сейчас очередь игрока Дима"), which
// is shown alone; a validation message is about its field ("обязательное поле"), so where it has
// no input box next to it, the line names the field (and the section of the page that holds it).
// The problem's title or the page's name for its code is shown only when there is no message.

import { $, showError } from "./dom.js";
import { has, language, t } from "./i18n.js";
import { aboutRuleset, showRefusal } from "./rulesets.js";

function errorsOf(exchange) {
  const problem = exchange.body || {};
  // A validation problem's messages are about a field; its detail is "<pointer>: <message>".
  const aboutField = problem.code === "VALIDATION_ERROR";
  if (Array.isArray(problem.errors) && problem.errors.length) {
    return problem.errors.map((error) => ({
      pointer: error.pointer || "", message: error.message || "", code: error.code, aboutField,
    }));
  }
  return [{ pointer: "", message: problem.detail || (exchange.body ? "" : exchange.text || ""), aboutField: false }];
}

/** The problem's name, for when it has no message of its own. */
function headline(exchange) {
  const problem = exchange.body || {};
  return problem.code && has(`code.${problem.code}`) ? t(`code.${problem.code}`) : (problem.title || `HTTP ${exchange.status}`);
}

function sentence(text) {
  return text ? text.charAt(0).toLocaleUpperCase(language()) + text.slice(1) : text;
}

/** One error as a line of its own. `placeOf(pointer)` gives `{field, where}` or null. */
function lineOf(error, exchange, placeOf) {
  const message = error.message.trim();
  if (!message) return headline(exchange);
  const place = error.pointer && placeOf ? placeOf(error.pointer) : null;
  if (error.aboutField) {
    if (!place) return error.pointer ? t("field.error", { field: headline(exchange), message }) : sentence(message);
    const field = place.where ? t("field.in", { field: place.field, where: place.where }) : place.field;
    return t("field.error", { field, message });
  }
  return place && place.where ? t("error.where", { message: sentence(message), where: place.where }) : sentence(message);
}

/** Every error of a refusal as a line, as the form's message line shows it (for the sheet). */
export function problemLines(exchange, placeOf) {
  return [...new Set(errorsOf(exchange).map((error) => lineOf(error, exchange, placeOf)))];
}

/** Explain non-2xx answers. `inputFor(pointer)` gives the id of the input a pointer names in the
 * view shown; `placeOf(pointer)` names what it points at, for errors with no input there. */
export function showProblems(exchanges, formErrorId, inputFor, placeOf) {
  const failed = exchanges.filter((exchange) => !exchange.ok);
  const denied = failed.find((exchange) => exchange.status === 401);
  if (denied) {
    // A key that was sent and refused is not the same trouble as no key at all.
    $(formErrorId).textContent = t(denied.keySent ? "error.key.refused" : "error.unauthorized");
    if (denied.keySent) $("key-status").textContent = t("key.refused");
    $("api-key").focus();
    return;
  }
  const placed = new Set();
  const lines = [];
  for (const exchange of failed) {
    for (const error of errorsOf(exchange)) {
      if (aboutRuleset(error.pointer)) {
        // The one picker of the page, not a field of this form: shown there, and named here.
        showRefusal(error);
        if (!lines.includes(t("rules.refused"))) lines.push(t("rules.refused"));
        continue;
      }
      const id = error.message.trim() ? inputFor(error.pointer) : null;
      if (id && placed.has(`${id}\n${error.message}`)) continue;
      if (id && showError(id, error.message)) {
        placed.add(`${id}\n${error.message}`);
        continue;
      }
      const line = lineOf(error, exchange, placeOf);
      if (!lines.includes(line)) lines.push(line);
    }
  }
  if (lines.length) $(formErrorId).textContent = lines.join("\n");
}

export function showProblem(exchange, formErrorId, inputFor, placeOf) {
  showProblems([exchange], formErrorId, inputFor, placeOf);
}

export function showFailure(formErrorId, error) {
  $(formErrorId).textContent = t("error.network", { message: String(error && error.message || error) });
}
