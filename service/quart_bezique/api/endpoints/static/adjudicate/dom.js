// Small DOM helpers: elements are built with textContent only (never innerHTML), so nothing the
// service or the user sends can become markup.

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") node.className = value;
    else if (name === "text") node.textContent = value;
    else node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function $(id) {
  return document.getElementById(id);
}

export function clear(node) {
  node.replaceChildren();
  return node;
}

/** Empty every inline error message of a form (the spans with class "err"). */
export function clearErrors(root) {
  for (const span of root.querySelectorAll(".err")) span.textContent = "";
  for (const input of root.querySelectorAll("[aria-invalid]")) input.removeAttribute("aria-invalid");
}

/** Put a message next to the input it is about, marking the input invalid for assistive tech. */
export function showError(inputId, message) {
  const span = $(`${inputId}-err`);
  const input = $(inputId);
  if (input) {
    input.setAttribute("aria-invalid", "true");
    input.setAttribute("aria-describedby", `${inputId}-err`);
  }
  if (!span) return false;
  span.textContent = span.textContent ? `${span.textContent}; ${message}` : message;
  return true;
}
