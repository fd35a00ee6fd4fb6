// Boards as grids: one's own board during play is built in room.js; these are
// the read-only boards of results, replays and analyses, with the itemized
// score of every row and column.

import { h } from "../dom.js";
import { cardFace, cardsText, cardName } from "../cards.js";
import { CELLS } from "../store.js";

const COLS = "abcd";

/** A 4x4 board of cards (read-only). ``rowTotals``/``colTotals`` frame it when given. */
export function staticGrid(cells, { label, rowTotals, colTotals, highlight, marks } = {}) {
  const rows = [];
  rows.push(h("div", { class: "grid-row head", "aria-hidden": "true" }, h("span", { class: "corner" }),
    [...COLS].map((c) => h("span", { class: "col-label" }, c)), rowTotals ? h("span", { class: "corner" }) : null));
  for (let r = 0; r < 4; r++) {
    rows.push(h("div", { class: "grid-row", role: "row" },
      h("span", { class: "row-label", "aria-hidden": "true" }, String(r + 1)),
      [0, 1, 2, 3].map((c) => {
        const index = r * 4 + c;
        const card = cells[index];
        const name = CELLS[index];
        const classes = ["cell", "static", card ? "filled" : "empty"];
        if (highlight === name) classes.push("last");
        if (marks && marks[name]) classes.push(marks[name]);
        return h("span", { class: classes.join(" "), role: "gridcell", "aria-label": `${name}: ${card ? cardName(card) : "empty"}` },
          card ? cardFace(card) : null);
      }),
      rowTotals ? h("span", { class: "total", "aria-label": `row ${r + 1}: ${rowTotals[r]} points` }, String(rowTotals[r])) : null));
  }
  if (colTotals) {
    rows.push(h("div", { class: "grid-row foot" }, h("span", { class: "corner" }),
      colTotals.map((t, i) => h("span", { class: "total", "aria-label": `column ${COLS[i]}: ${t} points` }, String(t))),
      rowTotals ? h("span", { class: "corner" }) : null));
  }
  return h("div", { class: "board static-board", role: "grid", "aria-label": label || "board" }, rows);
}

function items(label, groups, points) {
  if (!points) return null;
  return h("li", {}, h("strong", {}, `${label} ${points}`), groups.length ? ": " + groups.map((g) => cardsText(g)).join(", ") : "");
}

/** One row or column, itemized: fifteens, pairs, runs, flush, nobs. */
export function handScore(title, hand) {
  const p = hand.points;
  return h("div", { class: "hand" },
    h("p", { class: "hand-head" }, h("span", {}, title), " ", h("span", { class: "hand-cards" }, cardsText(hand.hand), " + ", cardsText([hand.starter])),
      " ", h("strong", { class: "hand-total" }, `${hand.total}`)),
    hand.total
      ? h("ul", { class: "items" },
        items("fifteens", hand.fifteens, p.fifteens),
        items("pairs", hand.pairs, p.pairs),
        items("runs", hand.runs, p.runs),
        items("flush", hand.flush.length ? [hand.flush] : [], p.flush),
        p.nobs ? h("li", {}, h("strong", {}, `nobs ${p.nobs}`), ": ", cardsText([hand.nobs])) : null)
      : h("p", { class: "items none" }, "nothing"));
}

/** A finished board: grid with row and column totals, then every line itemized. */
export function scoredBoard(board, { me, pace, open = false } = {}) {
  const s = board.score;
  const you = me && board.player.id === me.id;
  const time = pace === "race" ? ` · ${(board.time_used_ms / 1000).toFixed(1)} s used` : "";
  return h("article", { class: `result-board ${you ? "mine" : ""}`, "aria-label": `${board.player.name}: rank ${board.rank}, ${s.total} points` },
    h("h3", {}, h("span", { class: "rank" }, `#${board.rank}`), " ", board.player.name,
      board.player.bot ? h("span", { class: "tag" }, "bot") : null, you ? h("span", { class: "tag" }, "you") : null,
      " — ", h("strong", {}, `${s.total} points`), s.win ? h("span", { class: "tag win" }, "61+ WIN") : null, time),
    staticGrid(board.cells, { label: `${board.player.name}'s board`, rowTotals: s.rows.map((r) => r.total), colTotals: s.columns.map((c) => c.total) }),
    h("details", { class: "itemized", open },
      h("summary", {}, "Itemized score"),
      s.heels ? h("p", {}, `Heels (the starter is a jack): ${s.heels}`) : null,
      h("div", { class: "hands" },
        s.rows.map((r, i) => handScore(`Row ${i + 1}`, r)),
        s.columns.map((c, i) => handScore(`Column ${COLS[i]}`, c)))));
}

export function tieRule(pace) {
  return pace === "race"
    ? "Ranked by total score, then by less time used; boards equal on both share a rank."
    : "Ranked by total score; equal totals share a rank (1, 1, 3).";
}

/** The deal check: every check listed, with how it was computed. */
export function verificationPanel(verification, provider) {
  if (!verification) return null;
  if (verification.pending) return h("section", { class: "verify pending", role: "status" }, "Checking the deal…");
  const ok = verification.ok;
  return h("section", { class: `verify ${ok ? "ok" : "bad"}`, role: "status", "aria-label": "Deal check" },
    h("p", { class: "verdict" }, ok ? "✔ deal verified" : "✖ DEAL NOT VERIFIED"),
    verification.roundPending ? h("p", { class: "help" }, `The table's secrets are checked against round ${verification.roundPending}'s secret once the round is over and the server reveals it.`) : null,
    h("p", { class: "help" }, ok
      ? "Your browser recomputed the seed from the server's revealed secret and every contribution, checked it against the commitments shown before the first card, and dealt the 17 cards again itself."
      : "At least one check failed: the cards were not the ones committed to."),
    h("details", {}, h("summary", {}, `${verification.checks.length} checks (${provider === "webcrypto" ? "WebCrypto" : "JavaScript SHA-256, this page has no WebCrypto"})`),
      h("ul", {}, verification.checks.map((c) => h("li", { class: c.ok ? "pass" : "fail" }, c.ok ? "✔ " : "✖ ", c.label)))));
}
