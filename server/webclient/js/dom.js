// A small DOM builder. Text always goes in as text nodes (textContent), never
// as HTML: a name, a room name or any other string from another player can
// only ever be shown, not run. No function here takes markup.

/**
 * h("button", {class: "primary", onclick: fn, "aria-label": "..."}, "text", child, [more])
 * Attributes: "class", "dataset" (object), "on<event>" handlers, booleans
 * (true sets, false/null/undefined leaves out), anything else as a string.
 */
export function h(tag, attrs, ...children) {
  const el = tag.startsWith("svg:")
    ? document.createElementNS("http://www.w3.org/2000/svg", tag.slice(4))
    : document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === false || value === null || value === undefined) continue;
    if (key.startsWith("on") && typeof value === "function") {
      on(el, key.slice(2), value);
    } else if (key === "dataset") {
      for (const [k, v] of Object.entries(value)) el.dataset[k] = String(v);
    } else if (key === "value" && "value" in el) {
      el.value = String(value);
    } else if (key === "checked" || key === "selected" || key === "disabled") {
      el[key] = Boolean(value);
    } else {
      el.setAttribute(key, value === true ? "" : String(value));
    }
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

// An element's handlers are kept in ``el.handlers``, behind one listener per kind
// of event, so that a redraw can keep a field being typed in (see ``adopt``).
function on(el, type, handler) {
  if (!el.handlers) el.handlers = {};
  if (!(type in el.handlers)) {
    el.addEventListener(type, (event) => {
      const current = el.handlers[type];
      if (current) current(event);
    });
  }
  el.handlers[type] = handler;
}

/**
 * Put ``kept`` where ``fresh`` stands in a new drawing, with ``fresh``'s attributes
 * and handlers: a field being typed in keeps its caret, its selection and what is
 * being composed across a redraw (a new element would lose them, and a key typed
 * over a selection would be added to the text instead of replacing it).
 */
export function adopt(kept, fresh) {
  for (const { name } of [...kept.attributes]) {
    if (!fresh.hasAttribute(name)) kept.removeAttribute(name);
  }
  for (const { name, value } of fresh.attributes) {
    if (kept.getAttribute(name) !== value) kept.setAttribute(name, value);
  }
  for (const type of Object.keys(kept.handlers || {})) kept.handlers[type] = null;
  for (const [type, handler] of Object.entries(fresh.handlers || {})) on(kept, type, handler);
  kept.disabled = fresh.disabled;
  fresh.replaceWith(kept);
}

/** Replace every child of ``el``. */
export function fill(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

/** Form controls hold state in properties that isEqualNode does not compare. */
function controlsAlike(a, b) {
  const x = a.querySelectorAll ? a.querySelectorAll("input, select, textarea, option") : [];
  const y = b.querySelectorAll ? b.querySelectorAll("input, select, textarea, option") : [];
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) {
    if (x[i].value !== y[i].value || x[i].checked !== y[i].checked || x[i].selected !== y[i].selected) return false;
  }
  return !a.matches || !a.matches("input, select, textarea, option")
    || (a.value === b.value && a.checked === b.checked && a.selected === b.selected);
}

/** ``kept`` stays where ``fresh`` was drawn alike: it takes ``fresh``'s handlers, all the way down. */
function takeHandlers(kept, fresh) {
  if (kept.nodeType !== 1) return;
  for (const type of Object.keys(kept.handlers || {})) kept.handlers[type] = null;
  for (const [type, handler] of Object.entries(fresh.handlers || {})) on(kept, type, handler);
  for (let i = 0; i < kept.children.length; i++) takeHandlers(kept.children[i], fresh.children[i]);
}

function sameAttributes(a, b) {
  if (a.nodeType !== 1 || b.nodeType !== 1 || a.tagName !== b.tagName || a.attributes.length !== b.attributes.length) return false;
  for (const { name, value } of a.attributes) if (b.getAttribute(name) !== value) return false;
  return !a.matches("input, select, textarea, option") || (a.value === b.value && a.checked === b.checked);
}

/**
 * Draw ``fresh``'s children into ``el``, keeping what is drawn alike: a child the
 * same as before stays (so the browser lays out, and focus leaves, only what
 * changed), taking the new drawing's handlers; a child that differs only inside
 * is patched the same way, ``depth`` levels down; anything else is replaced.
 * The page is still drawn whole from its model each time: this only spares the
 * browser the work of what did not change.
 */
export function patch(el, fresh, depth = 4) {
  const olds = [...el.childNodes];
  const news = [...fresh.childNodes];
  if (olds.length !== news.length || depth <= 0) {
    el.replaceChildren(...news);
    return;
  }
  for (let i = 0; i < olds.length; i++) {
    const old = olds[i], next = news[i];
    if (old.isEqualNode(next) && controlsAlike(old, next)) takeHandlers(old, next);
    else if (depth > 1 && sameAttributes(old, next)) {
      for (const type of Object.keys(old.handlers || {})) old.handlers[type] = null;
      for (const [type, handler] of Object.entries(next.handlers || {})) on(old, type, handler);
      patch(old, next, depth - 1);
    } else old.replaceWith(next);
  }
}

export const svg = (tag, attrs, ...children) => h("svg:" + tag, attrs, ...children);

/** "1:05" from milliseconds. */
export function clock(ms) {
  if (ms === null || ms === undefined) return "";
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

export function when(ms) {
  if (!ms) return "";
  const d = new Date(ms);
  return d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}
