// Calls to the service's /v1 API, keeping everything a dispute sheet must show: the exact bytes
// sent and received, their SHA-256 digests, the request id and the signed receipt if any. Every
// call asks for the page's chosen language, so the service explains refusals in it.

import { language } from "./i18n.js";

const KEY = "qb-api-key";
let refused = null;

export function apiKey() {
  return sessionStorage.getItem(KEY) || "";
}

export function setApiKey(value) {
  if (value) sessionStorage.setItem(KEY, value);
  else sessionStorage.removeItem(KEY);
}

/** Whether the service answered 401 to the key now set (a wrong key, not a missing one). */
export function keyRefused() {
  return Boolean(apiKey()) && refused === apiKey();
}

export async function sha256(bytes) {
  if (!bytes || !globalThis.crypto?.subtle) return null; // digests need a secure context
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** One exchange: method and path relative to the service root, payload sent as compact JSON. */
export async function call(method, path, payload) {
  const headers = { Accept: "application/json", "Accept-Language": language() };
  const key = apiKey();
  if (key) headers.Authorization = `Bearer ${key}`;
  let requestText = null;
  let requestBytes = null;
  if (payload !== undefined) {
    requestText = JSON.stringify(payload);
    requestBytes = new TextEncoder().encode(requestText);
    headers["Content-Type"] = "application/json";
  }
  const response = await fetch(path, {
    method, headers, body: requestBytes, cache: "no-store", credentials: "omit",
  });
  if (key) refused = response.status === 401 ? key : null;
  const responseBytes = await response.arrayBuffer();
  const text = new TextDecoder().decode(responseBytes);
  let body = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  const [requestSha, responseSha] = await Promise.all([sha256(requestBytes), sha256(responseBytes)]);
  return {
    method,
    path: "/" + path,
    status: response.status,
    ok: response.ok,
    keySent: Boolean(key),
    body,
    text,
    requestText,
    requestSha,
    responseSha,
    requestId: response.headers.get("X-Request-ID"),
    receipt: response.headers.get("Verdict-Receipt"),
    language: response.headers.get("Content-Language"),
    at: new Date().toISOString(),
  };
}
