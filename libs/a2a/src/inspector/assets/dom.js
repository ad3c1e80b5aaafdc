// What the page's modules share of the DOM.

/** The page's element of that id. */
export const $ = (id) => document.getElementById(id);

/** An element with text content (never HTML: everything shown comes from the agent or the user). */
export function element(tag, text, attributes = {}) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  return node;
}

/** A task state as shown: `TASK_STATE_COMPLETED` → `COMPLETED`. */
export const shortState = (value) => (value ?? '').replace(/^TASK_STATE_/, '');
