// Small pieces every view uses: fold-outs whose state is part of the page's
// model (so a redraw never closes one), tables that stack on a phone, a
// region that pans sideways with a visible cue, and the server's bot levels as
// a player reads them.

import { h } from "../dom.js";

/**
 * A <details> fold-out kept open or closed by the page's model (``ctx.field(key)``),
 * not by the element: the page is redrawn from the model at any moment (an
 * update from the server), and an element opened by a click and then replaced
 * would come back closed. A click, a tap, Enter or Space on the summary flips
 * the field and redraws; a fold-out opened another way (find in page) is
 * written back by its toggle event. ``content`` may be a function: drawn only when open.
 */
export function fold(ctx, key, summary, content, { open = false, cls = "" } = {}) {
  const isOpen = Boolean(ctx.field(`fold-${key}`, open));
  return h("details", { class: `fold ${cls}`.trim(), open: isOpen, dataset: { fold: key },
    ontoggle: (e) => {
      if (e.target.open !== Boolean(ctx.field(`fold-${key}`, open))) ctx.setField(`fold-${key}`, e.target.open);
    } },
  h("summary", { dataset: { key: `fold-${key}` }, onclick: (e) => {
    e.preventDefault(); // the model decides, and the redraw shows it
    ctx.setField(`fold-${key}`, !isOpen);
    ctx.render();
  } }, summary),
  isOpen ? (typeof content === "function" ? content() : content) : null);
}

/**
 * A table that stacks on a narrow screen: each row becomes a block whose cells
 * are labelled by their column's title (``data-label``), so no column is cut
 * off at the right edge. ``columns``: [{title, num, hidden}] (``hidden``: the
 * title is for assistive technology only); ``rows``: [{cells, attrs}].
 */
export function dataTable({ cls = "", caption = null, columns, rows }) {
  return h("table", { class: `stack ${cls}`.trim() },
    caption ? h("caption", { class: "visually-hidden" }, caption) : null,
    h("thead", {}, h("tr", {}, columns.map((c) => h("th", { scope: "col", class: c.num ? "num" : null },
      c.hidden ? h("span", { class: "visually-hidden" }, c.title) : c.title)))),
    h("tbody", {}, rows.map((row) => h("tr", row.attrs || {}, row.cells.map((cell, i) => {
      const c = columns[i];
      return h("td", { class: [c.num ? "num" : "", c.hidden ? "bare" : ""].join(" ").trim() || null,
        dataset: { label: c.hidden ? "" : c.title } }, h("span", { class: "cell-value" }, cell));
    })))));
}

/** A region wider than the screen: it pans (by touch, mouse or the arrow keys once
focused) and says so, with a cue at its edge while more is hidden. */
export function panning(label, content) {
  return h("div", { class: "pan", role: "region", tabindex: "0", "aria-label": `${label} (scrolls sideways)`,
    onscroll: (e) => edgeCue(e.currentTarget) },
  content);
}

/** Mark a panning region whose content runs past its right or left edge. */
export function edgeCue(el) {
  el.classList.toggle("more-right", el.scrollLeft + el.clientWidth < el.scrollWidth - 2);
  el.classList.toggle("more-left", el.scrollLeft > 2);
}

// --- the server's bots ------------------------------------------------------------

/** A server that predates the ladder plays these (protocol.md, add_bot). */
const OLD_LEVELS = [
  { name: "random", title: "random", rating: null, description: "any legal cell" },
  { name: "greedy", title: "greedy", rating: null, description: "the cell worth most now" },
  { name: "expert", title: "expert", rating: null, description: "searches ahead" },
];

/** The levels the server's bots play, weakest first (its ``bots`` message). */
export function botLevels(store) {
  return store.bots && store.bots.levels.length ? store.bots.levels : OLD_LEVELS;
}

/** "Level 3 casual, 1250", for a picker (short: a select box must not cut it). */
export function levelLabel(level, plural = false) {
  const number = level.level ? `Level ${level.level}` : level.name;
  return `${number} ${level.title}${plural ? " bots" : ""}${level.rating != null ? `, ${level.rating}` : ""}`;
}

/** The level called ``name`` (or one of its aliases: ``expert``, ``greedy``, ``random``). */
export function findLevel(store, name) {
  return botLevels(store).find((l) => l.name === name || (l.aliases || []).includes(name)) || null;
}

/** A select of the server's bot levels, each by name and rating. */
export function levelSelect(ctx, id, fallback, { label = "Bot level", plural = false, visible = false } = {}) {
  const levels = botLevels(ctx.store);
  const chosen = findLevel(ctx.store, ctx.field(id, fallback)) || levels[levels.length - 1];
  return [
    h("label", { for: id, class: visible ? null : "visually-hidden" }, label),
    h("select", { id, dataset: { key: id }, onchange: (e) => ctx.setField(id, e.target.value) },
      levels.map((l) => h("option", { value: l.name, selected: l === chosen }, levelLabel(l, plural)))),
  ];
}

/** A tournament's format as the server names it (format_title), to begin a phrase. */
export function formatName(t) {
  const title = t.format_title || t.format;
  return title.charAt(0).toUpperCase() + title.slice(1);
}

/** "1 game", "3 games". */
export function count(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}
