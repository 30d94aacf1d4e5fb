// Refusals shown where they belong: each of a problem document's errors[] is placed next to the
// input its JSON pointer names; what names no input goes to the form's own message line. A form
// that sent several requests shows the errors of all of them at once, each message once.

import { $, showError } from "./dom.js";
import { t, has } from "./i18n.js";

function errorsOf(exchange) {
  const problem = exchange.body || {};
  return Array.isArray(problem.errors) && problem.errors.length
    ? problem.errors.map((error) => ({ ...error, code: error.code || problem.code }))
    : [{ pointer: "", code: problem.code, message: problem.detail || exchange.text }];
}

function titleOf(exchange) {
  const problem = exchange.body || {};
  return problem.code && has(`code.${problem.code}`) ? t(`code.${problem.code}`) : (problem.title || `HTTP ${exchange.status}`);
}

/** Explain non-2xx answers. `inputFor(pointer)` gives the id of the input a pointer names. */
export function showProblems(exchanges, formErrorId, inputFor) {
  const failed = exchanges.filter((exchange) => !exchange.ok);
  const denied = failed.find((exchange) => exchange.status === 401);
  if (denied) {
    // A key that was sent and refused is not the same trouble as no key at all.
    $(formErrorId).textContent = t(denied.keySent ? "error.key.refused" : "error.unauthorized");
    if (denied.keySent) $("key-status").textContent = t("key.refused");
    $("api-key").focus();
    return;
  }
  const seen = new Set();
  const rest = [];
  const titles = [];
  for (const exchange of failed) {
    for (const error of errorsOf(exchange)) {
      const known = error.code && has(`code.${error.code}`) ? `${t(`code.${error.code}`)}: ` : "";
      const message = `${known}${error.message}`;
      const id = inputFor(error.pointer || "");
      if (seen.has(`${id}\n${message}`)) continue;
      seen.add(`${id}\n${message}`);
      if (!id || !showError(id, message)) {
        rest.push(message);
        if (!titles.includes(titleOf(exchange))) titles.push(titleOf(exchange));
      }
    }
  }
  if (rest.length) $(formErrorId).textContent = `${titles.join("; ")}. ${rest.join(" ")}`;
}

export function showProblem(exchange, formErrorId, inputFor) {
  showProblems([exchange], formErrorId, inputFor);
}

export function showFailure(formErrorId, error) {
  $(formErrorId).textContent = t("error.network", { message: String(error && error.message || error) });
}
