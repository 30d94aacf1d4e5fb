// Refusals shown where they belong: each of a problem document's errors[] is placed next to the
// input its JSON pointer names; what names no input goes to the form's own message line.

import { $, showError } from "./dom.js";
import { t, has } from "./i18n.js";

/** Explain a non-2xx answer. `inputFor(pointer)` gives the id of the input a pointer names. */
export function showProblem(exchange, formErrorId, inputFor) {
  const problem = exchange.body || {};
  if (exchange.status === 401) {
    $(formErrorId).textContent = t("error.unauthorized");
    $("api-key").focus();
    return;
  }
  const errors = Array.isArray(problem.errors) && problem.errors.length
    ? problem.errors : [{ pointer: "", message: problem.detail || exchange.text }];
  const rest = [];
  for (const error of errors) {
    const code = error.code || problem.code;
    const known = code && has(`code.${code}`) ? `${t(`code.${code}`)}: ` : "";
    const message = `${known}${error.message}`;
    const id = inputFor(error.pointer || "");
    if (!id || !showError(id, message)) rest.push(message);
  }
  if (rest.length) {
    const title = problem.code && has(`code.${problem.code}`) ? t(`code.${problem.code}`) : (problem.title || `HTTP ${exchange.status}`);
    $(formErrorId).textContent = `${title}. ${rest.join(" ")}`;
  }
}

export function showFailure(formErrorId, error) {
  $(formErrorId).textContent = t("error.network", { message: String(error && error.message || error) });
}
