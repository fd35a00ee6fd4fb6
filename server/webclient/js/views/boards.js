// Boards as tables: one's own board during play is built in play.js; these are
// the read-only boards of results, replays and analyses. A scored board's row
// and column totals are buttons: hovering or focusing one lights the cards of
// that line that scored and lists how (fifteens, pairs, runs, flush, nobs).

import { h } from "../dom.js";
import { cardFace, cardsText, cardName, rankText, suitSymbol } from "../cards.js";
import { CELLS } from "../store.js";
import { fold } from "./ui.js";

const COLS = "abcd";
const LINE_CELLS = {
  r: (i) => [0, 1, 2, 3].map((c) => i * 4 + c),
  c: (i) => [0, 1, 2, 3].map((r) => r * 4 + i),
};

function cellText(name, card, mark) {
  const shown = card ? `${rankText(card)}${suitSymbol(card)}, ${cardName(card)}, ${name}` : `${name}, empty`;
  return shown + (mark === "differs" ? ", differs" : mark === "expert" ? ", the expert's cell" : "");
}

/**
 * A 4x4 board of cards (read-only), as a table: a row of column letters, then
 * each row with its number. ``rowTotals``/``colTotals`` frame it when given;
 * ``line`` (as {kind, index, scoring}) lights one line; ``onLine(kind, index)``
 * makes each total a button that shows its line.
 */
export function staticGrid(cells, { label, rowTotals, colTotals, highlight, marks, line, onLine } = {}) {
  const lit = line ? new Set(LINE_CELLS[line.kind](line.index)) : null;
  const total = (kind, index, value) => {
    const words = `${kind === "r" ? "row" : "column"} ${kind === "r" ? index + 1 : COLS[index]}: ${value} points`;
    const active = line && line.kind === kind && line.index === index;
    if (!onLine) return h("span", { class: "total", role: "cell" }, h("span", { "aria-hidden": "true" }, String(value)), h("span", { class: "visually-hidden" }, words));
    return h("span", { class: "total", role: "cell" }, h("button", {
      type: "button", class: `line-total ${active ? "active" : ""}`.trim(), "aria-label": `${value}, ${words}, show how`,
      "aria-pressed": active ? "true" : "false", dataset: { key: `${label}-${kind}${index}` },
      onmouseenter: () => onLine(kind, index), onfocus: () => onLine(kind, index), onclick: () => onLine(kind, index),
    }, String(value)));
  };
  const rows = [h("div", { class: "grid-row head", role: "row" },
    h("span", { class: "corner", role: "columnheader" }, h("span", { class: "visually-hidden" }, "row")),
    [...COLS].map((c) => h("span", { class: "col-label", role: "columnheader" }, c)),
    rowTotals ? h("span", { class: "corner", role: "columnheader" }, h("span", { class: "visually-hidden" }, "points")) : null)];
  for (let r = 0; r < 4; r++) {
    rows.push(h("div", { class: "grid-row", role: "row" },
      h("span", { class: "row-label", role: "rowheader" }, String(r + 1)),
      [0, 1, 2, 3].map((c) => {
        const index = r * 4 + c;
        const card = cells[index];
        const name = CELLS[index];
        const classes = ["cell", "static", card ? "filled" : "empty"];
        if (highlight === name) classes.push("last");
        const mark = marks ? marks[name] : null;
        if (mark) classes.push(mark);
        if (lit) classes.push(lit.has(index) ? (line.scoring.has(card) ? "scored" : "in-line") : "dim");
        return h("span", { class: classes.join(" "), role: "cell" },
          card ? cardFace(card, { "aria-hidden": "true", role: null, title: null }) : null,
          h("span", { class: "visually-hidden" }, cellText(name, card, mark)));
      }),
      rowTotals ? total("r", r, rowTotals[r]) : null));
  }
  if (colTotals) {
    rows.push(h("div", { class: "grid-row foot", role: "row" },
      h("span", { class: "corner", role: "rowheader" }, h("span", { class: "visually-hidden" }, "columns")),
      colTotals.map((t, i) => total("c", i, t)),
      rowTotals ? h("span", { class: "corner", role: "cell" }) : null));
  }
  return h("div", { class: "board static-board", role: "table", "aria-label": label || "board" }, rows);
}

function items(label, groups, points) {
  if (!points) return null;
  return h("li", {}, h("strong", {}, `${label} ${points}`), groups.length ? ": " + groups.map((g) => cardsText(g)).join(", ") : "");
}

/** What one line scored: fifteens, pairs, runs, flush, nobs, each with its cards. */
function howList(hand) {
  const p = hand.points;
  return hand.total
    ? h("ul", { class: "items" },
      items("fifteens", hand.fifteens, p.fifteens),
      items("pairs", hand.pairs, p.pairs),
      items("runs", hand.runs, p.runs),
      items("flush", hand.flush.length ? [hand.flush] : [], p.flush),
      p.nobs ? h("li", {}, h("strong", {}, `nobs ${p.nobs}`), ": ", cardsText([hand.nobs])) : null)
    : h("p", { class: "items none" }, "nothing");
}

/** One row or column, itemized. */
export function handScore(title, hand) {
  return h("div", { class: "hand" },
    h("p", { class: "hand-head" }, h("span", {}, title), " ", h("span", { class: "hand-cards" }, cardsText(hand.hand), " + ", cardsText([hand.starter])),
      " ", h("strong", { class: "hand-total" }, `${hand.total}`)),
    howList(hand));
}

/** The cards of a line that take part in some combination that scored. */
function scoringCards(hand) {
  const used = new Set();
  for (const group of [...hand.fifteens, ...hand.pairs, ...hand.runs, hand.flush]) for (const c of group) used.add(c);
  if (hand.nobs) used.add(hand.nobs);
  return used;
}

/** A finished board: grid with row and column totals (each shows how it scored), then every line itemized. */
export function scoredBoard(ctx, board, { me, pace, key } = {}) {
  const s = board.score;
  const you = me && board.player.id === me.id;
  const time = pace === "race" ? ` · ${(board.time_used_ms / 1000).toFixed(1)} s used` : "";
  const id = `${key || "board"}-${board.player.id}`;
  const shown = ctx.field(`line-${id}`, null);
  const hand = shown ? (shown[0] === "r" ? s.rows : s.columns)[Number(shown.slice(1))] : null;
  const line = hand ? { kind: shown[0], index: Number(shown.slice(1)), scoring: scoringCards(hand) } : null;
  const onLine = (kind, index) => {
    if (ctx.field(`line-${id}`, null) === `${kind}${index}`) return;
    ctx.setField(`line-${id}`, `${kind}${index}`);
    ctx.render();
  };
  const title = line ? `${line.kind === "r" ? "Row" : "Column"} ${line.kind === "r" ? line.index + 1 : COLS[line.index]}` : null;
  return h("article", { class: `result-board ${you ? "mine" : ""}`, "aria-label": `${board.player.name}: rank ${board.rank}, ${s.total} points` },
    h("h3", {}, h("span", { class: "rank" }, `#${board.rank}`), " ", board.player.name,
      board.player.bot ? h("span", { class: "tag" }, "bot") : null, you ? h("span", { class: "tag" }, "you") : null,
      " — ", h("strong", {}, `${s.total} points`), s.win ? h("span", { class: "tag win", title: "61 or more: the solitaire's win; between players the rank decides" }, "61+") : null, time),
    staticGrid(board.cells, { label: `${board.player.name}'s board`, rowTotals: s.rows.map((r) => r.total), colTotals: s.columns.map((c) => c.total), line, onLine }),
    h("div", { class: "how", role: "status" }, hand
      ? [h("p", { class: "hand-head" }, h("strong", {}, `${title}: ${hand.total}`), " ", h("span", { class: "hand-cards" }, cardsText(hand.hand), " + ", cardsText([hand.starter]))), howList(hand)]
      : h("p", { class: "help" }, "Tap, point at or focus a row's or a column's total to see how it scored.")),
    fold(ctx, `itemized-${id}`, "Itemized score", [
      s.heels ? h("p", {}, `Heels (the starter is a jack): ${s.heels}`) : null,
      h("div", { class: "hands" },
        s.rows.map((r, i) => handScore(`Row ${i + 1}`, r)),
        s.columns.map((c, i) => handScore(`Column ${COLS[i]}`, c)))], { cls: "itemized" }));
}

export function tieRule(pace) {
  return pace === "race"
    ? "Ranked by total score, then by less time used; boards equal on both share a rank."
    : "Ranked by total score; equal totals share a rank (1, 1, 3).";
}

/** The deal check: every check listed, with how it was computed. */
/** The checks that failed, named: "Failed: the seed matches its commitment". */
function failedChecks(verification) {
  const failed = verification.checks.filter((c) => !c.ok).map((c) => c.label);
  return failed.length ? `Failed: ${failed.join("; ")}` : "No check could be made";
}

export function verificationPanel(verification, provider, ctx, key = "checks") {
  if (!verification) return null;
  if (verification.pending) return h("section", { class: "verify pending", role: "status" }, "Checking the deal…");
  const ok = verification.ok;
  return h("section", { class: `verify ${ok ? "ok" : "bad"}`, role: "status", "aria-label": "Deal check" },
    h("p", { class: "verdict" }, ok ? "✔ deal verified" : "✖ DEAL NOT VERIFIED"),
    verification.roundPending ? h("p", { class: "help" }, `The table's secrets are checked against round ${verification.roundPending}'s secret once the round is over and the server reveals it.`) : null,
    h("p", { class: "help" }, ok
      ? "Your browser recomputed the seed from the server's revealed secret and every contribution, checked it against the commitments shown before the first card, and dealt the 17 cards again itself."
      : `${failedChecks(verification)}: the deal shown is not the one committed to.`),
    fold(ctx, key, `${verification.checks.length} checks (${provider === "webcrypto" ? "WebCrypto" : "JavaScript SHA-256, this page has no WebCrypto"})`,
      h("ul", {}, verification.checks.map((c) => h("li", { class: c.ok ? "pass" : "fail" }, c.ok ? "✔ " : "✖ ", c.label)))));
}
