// What a signed receipt says, read in the page: a receipt is a compact JWS whose payload is
// base64url JSON. The page shows the receipt's own request digest (of the request's canonical
// form, which is what the receipt signs) rather than a digest of the bytes it happened to send.

/** The receipt's claims, or null when there is no receipt or it cannot be read. */
export function claims(receipt) {
  const parts = String(receipt || "").split(".");
  if (parts.length !== 3) return null;
  try {
    const base64 = parts[1].replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(parts[1].length / 4) * 4, "=");
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const payload = JSON.parse(new TextDecoder().decode(bytes));
    return payload && typeof payload === "object" ? payload : null;
  } catch {
    return null;
  }
}
