// The deal being played, from a seated player's side: one's grid (an ARIA
// grid: arrows move, Enter places, a cell's name typed anywhere places there),
// each row's and column's points so far, the card to place (click or tap a
// cell, or drag the card onto one with a mouse, a finger or a pen), the clocks
// and everyone's progress.

import { h } from "../dom.js";
import { cardFace, cardName, rankText, suitSymbol } from "../cards.js";
import { boardSoFar } from "../scoring.js";
import { CELLS, cellIndex } from "../store.js";

export const COLS = "abcd";
const NEIGHBOURS = CELLS.map((_, i) => {
  const r = Math.floor(i / 4), c = i % 4, out = [];
  for (let dr = -1; dr <= 1; dr++) for (let dc = -1; dc <= 1; dc++) {
    if ((dr || dc) && r + dr >= 0 && r + dr < 4 && c + dc >= 0 && c + dc < 4) out.push((r + dr) * 4 + c + dc);
  }
  return out;
});
const LANDS_MS = 1500; // a placement this recent lands with a short animation (js/motion.js)

let announcedTurn = null;

function legalCells(match) {
  return new Set(match.legal || []);
}

function whyNot(match, name) {
  const i = cellIndex(name);
  if (i < 0) return `${name} is not a cell (a1 to d4)`;
  if (match.cells[i]) return `${name} already holds ${cardName(match.cells[i])}`;
  if (!match.card) return "there is no card to place right now";
  if (!match.cells.some(Boolean)) return null;
  if (!NEIGHBOURS[i].some((n) => match.cells[n])) return `${name} does not touch a placed card`;
  return null;
}

/** Place the card waiting on ``name`` (refused here first if the cell cannot take it). */
export function place(ctx, name, dropped = 0) {
  const { store } = ctx;
  const match = store.match;
  const room = store.room;
  if (!match || !match.card || match.pending) return;
  const reason = legalCells(match).has(name) ? null : whyNot(match, name) || `${name} is not a legal cell`;
  if (reason) {
    ctx.setField("place-error", reason);
    ctx.announce(reason);
    ctx.render();
    return;
  }
  ctx.setField("place-error", "");
  match.pending = name;
  ctx.setField("cursor", name);
  const turn = match.turn;
  ctx.request({ type: "place", room_id: room.id, turn, cell: name }, ["placed"]).catch((error) => {
    match.pending = null;
    const waiting = store.match === match && match.turn === turn && !match.placements.some((p) => p.turn === turn);
    if (error.again && waiting && dropped < 3) {
      // Dropped by the server, and the room_state just received shows the turn
      // still waiting (not placed, not past): send it again.
      place(ctx, name, dropped + 1);
      return;
    }
    if (!error.again || waiting) ctx.setField("place-error", error.reason || error.code);
    ctx.render();
  });
  ctx.render();
}

function moveCursor(name, key) {
  let c = COLS.indexOf(name[0]), r = Number(name[1]) - 1;
  if (key === "ArrowLeft") c = Math.max(0, c - 1);
  if (key === "ArrowRight") c = Math.min(3, c + 1);
  if (key === "ArrowUp") r = Math.max(0, r - 1);
  if (key === "ArrowDown") r = Math.min(3, r + 1);
  if (key === "Home") c = 0;
  if (key === "End") c = 3;
  return COLS[c] + (r + 1);
}

/** What a cell shows, then what it is: "K♠, king of spades, a1" or "a1, empty, you can place here". */
function cellLabel(name, card, { legal, last }) {
  const shown = card ? `${rankText(card)}${suitSymbol(card)}, ${cardName(card)}, ${name}` : `${name}, empty`;
  return shown + (legal ? ", you can place here" : "") + (last ? ", placed last" : "");
}

function soFar(points, label) {
  return h("span", { class: "so-far", role: "gridcell" },
    h("span", { "aria-hidden": "true" }, points === null ? "" : String(points)),
    points === null ? null : h("span", { class: "visually-hidden" }, `${label}: ${points} so far`));
}

function myGrid(ctx) {
  const { store } = ctx;
  const match = store.match;
  const legal = legalCells(match);
  let cursor = ctx.field("cursor", null);
  if (!cursor || (match.card && !legal.has(cursor) && legal.size)) cursor = cursor && legal.has(cursor) ? cursor : match.legal[0] || cursor || "a1";
  const lastPlaced = match.placements.length ? match.placements.reduce((a, b) => (a.turn > b.turn ? a : b)) : null;
  const last = lastPlaced ? lastPlaced.cell : null;
  const landing = lastPlaced && Date.now() - (match.placedAt[lastPlaced.turn] || 0) < LANDS_MS ? lastPlaced : null;
  const points = boardSoFar(match.cells);
  const filled = (indices) => indices.some((i) => match.cells[i]);
  const rows = [h("div", { class: "grid-row head", role: "row" },
    h("span", { class: "corner", role: "columnheader" }, h("span", { class: "visually-hidden" }, "row")),
    [...COLS].map((c) => h("span", { class: "col-label", role: "columnheader" }, c)),
    h("span", { class: "corner so-far-head", role: "columnheader", title: "points so far, without the starter" }, "pts"))];
  for (let r = 0; r < 4; r++) {
    const cells = [];
    for (let c = 0; c < 4; c++) {
      const i = r * 4 + c;
      const name = CELLS[i];
      const card = match.cells[i];
      const isLegal = Boolean(match.card) && legal.has(name);
      const classes = ["cell", card ? "filled" : "empty"];
      if (isLegal) classes.push("legal");
      if (match.pending === name) classes.push("pending");
      if (last === name) classes.push("last");
      cells.push(h("span", { role: "gridcell", class: "cell-slot" }, h("button", {
        type: "button", class: classes.join(" "), "aria-label": cellLabel(name, card, { legal: isLegal, last: last === name }),
        tabindex: name === cursor ? "0" : "-1", "aria-disabled": isLegal ? null : "true",
        dataset: { key: `cell-${name}`, cell: name, ...(landing && landing.cell === name ? { land: `${match.match_id}/${landing.turn}` } : {}),
          ...(name === cursor ? { focusFirst: "" } : {}) },
        onclick: () => place(ctx, name),
        onkeydown: (e) => {
          if (["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End"].includes(e.key)) {
            e.preventDefault();
            const next = moveCursor(name, e.key);
            ctx.setField("cursor", next);
            document.querySelector(`[data-cell="${next}"]`)?.focus();
            for (const b of document.querySelectorAll("button.cell")) b.tabIndex = b.dataset.cell === next ? 0 : -1;
          }
        },
      }, card ? cardFace(card, { "aria-hidden": "true", role: null, title: null })
        : match.pending === name && match.card ? cardFace(match.card, { class: "ghost", "aria-hidden": "true", role: null, title: null })
          : h("span", { class: "cell-name", "aria-hidden": "true" }, name))));
    }
    const row = [0, 1, 2, 3].map((c) => r * 4 + c);
    rows.push(h("div", { class: "grid-row", role: "row" }, h("span", { class: "row-label", role: "rowheader" }, String(r + 1)), cells,
      soFar(filled(row) ? points.rows[r] : null, `row ${r + 1}`)));
  }
  rows.push(h("div", { class: "grid-row foot", role: "row" },
    h("span", { class: "corner", role: "rowheader" }, h("span", { class: "visually-hidden" }, "columns so far")),
    [0, 1, 2, 3].map((c) => soFar(filled([0, 1, 2, 3].map((r) => r * 4 + c)) ? points.columns[c] : null, `column ${COLS[c]}`)),
    h("span", { class: "corner", role: "gridcell" })));
  return h("div", { class: "board mine", role: "grid", "aria-label": "Your board", "aria-describedby": "place-help",
    "aria-rowcount": "6", "aria-colcount": "6" }, rows);
}

// --- dragging the card onto a cell: one way for a mouse, a finger and a pen ------

function cellUnder(x, y) {
  const el = document.elementFromPoint(x, y);
  const cell = el && el.closest ? el.closest("button.cell") : null;
  return cell && cell.classList.contains("legal") ? cell : null;
}

function startDrag(ctx, e) {
  if (e.pointerType === "mouse" && e.button !== 0) return;
  const source = e.currentTarget;
  const from = { x: e.clientX, y: e.clientY };
  const rect = source.getBoundingClientRect();
  let ghost = null;
  let over = null;
  const move = (ev) => {
    const dx = ev.clientX - from.x, dy = ev.clientY - from.y;
    if (!ghost && Math.hypot(dx, dy) < 6) return;
    if (!ghost) {
      ghost = source.cloneNode(true);
      ghost.classList.add("drag-ghost");
      ghost.setAttribute("aria-hidden", "true");
      document.body.append(ghost);
    }
    // The stylesheet allows no inline style attribute; a position set through the
    // CSSOM is not one.
    ghost.style.transform = `translate(${rect.left + dx}px, ${rect.top + dy}px)`;
    const cell = cellUnder(ev.clientX, ev.clientY);
    if (cell !== over) {
      if (over) over.classList.remove("drop");
      if (cell) cell.classList.add("drop");
      over = cell;
    }
  };
  const end = (ev) => {
    source.removeEventListener("pointermove", move);
    source.removeEventListener("pointerup", end);
    source.removeEventListener("pointercancel", end);
    if (ghost) ghost.remove();
    if (over) over.classList.remove("drop");
    const cell = ghost && ev.type === "pointerup" ? cellUnder(ev.clientX, ev.clientY) : null;
    if (cell) place(ctx, cell.dataset.cell);
  };
  source.setPointerCapture(e.pointerId);
  source.addEventListener("pointermove", move);
  source.addEventListener("pointerup", end);
  source.addEventListener("pointercancel", end);
}

// --- clocks and progress ----------------------------------------------------------------

function clocks(match) {
  const at = match.deadlineAt || match.roundDeadlineAt;
  if (!at) return null;
  const what = match.pace === "lockstep" ? (match.card ? "Card clock " : "This card's clock ") : "Deal clock ";
  return h("p", { class: "clock-line" }, what, h("span", { class: "clock", dataset: { deadline: at }, role: "timer" }));
}

/** Each seated player: how many cards placed, thinking or done, and the clock running for it. */
export function playersPanel(ctx) {
  const { store } = ctx;
  const match = store.match;
  const room = store.room;
  const progress = match.progress;
  const turn = progress ? progress.turn : match.turn || 1;
  const deadline = match.roundDeadlineAt || match.deadlineAt;
  return h("section", { class: "progress", "aria-labelledby": "progress-h" },
    h("h2", { id: "progress-h" }, "Players"),
    h("ul", {}, room.players.map((seat) => {
      const id = seat.player.id;
      const placed = progress ? progress.placed[id] || 0 : 0;
      const connected = progress && id in progress.connected ? progress.connected[id] : seat.connected;
      let state;
      let running = false;
      if (match.result || placed >= 16) state = ["done", "■ done"];
      else if (!connected) { state = ["away", "✖ disconnected"]; running = true; }
      else if (match.pace === "lockstep") {
        running = placed < turn;
        state = running ? ["thinking", "… thinking"] : ["placed", "✔ placed"];
      } else { state = ["thinking", "… playing"]; running = true; }
      const me = store.me && id === store.me.id;
      return h("li", { class: `player ${state[0]} ${me ? "me" : ""}` },
        h("span", { class: "name" }, seat.player.name, me ? " (you)" : "",
          seat.player.bot ? h("span", { class: "tag" }, "bot") : null),
        h("meter", { min: 0, max: 16, value: placed, "aria-label": `${seat.player.name}: ${placed} of 16 placed` }),
        h("span", { class: "count" }, `${placed}/16`), h("span", { class: "state" }, state[1]),
        h("span", { class: "player-clock" }, running && deadline && !match.result
          ? h("span", { class: "clock", role: "timer", "aria-label": `${seat.player.name}'s clock`, dataset: { deadline } }) : ""));
    })));
}

export function commitments(match) {
  return h("p", { class: "commitment" }, `Deal ${match.deal}${match.best_of > 1 ? ` of ${match.best_of}` : ""} · deal commitment `,
    h("code", { title: match.seed_commitment }, (match.seed_commitment || "").slice(0, 16) + "…"),
    match.server_commitment ? [" · server commitment ", h("code", { title: match.server_commitment }, match.server_commitment.slice(0, 16) + "…")] : null);
}

/** A seated player's screen while the deal is played. */
export function playing(ctx) {
  const { store } = ctx;
  const match = store.match;
  if (match.card && announcedTurn !== `${match.match_id}/${match.turn}`) {
    announcedTurn = `${match.match_id}/${match.turn}`;
    ctx.announce(`Card ${match.turn} of 16: ${cardName(match.card)}. ${match.legal.length} cells you can use.`);
  }
  const placedCount = match.placements.length;
  const error = ctx.field("place-error", "");
  const toPlace = h("section", { class: "to-place", "aria-labelledby": "to-place-h" },
    h("h2", { id: "to-place-h" }, match.card ? `Card ${match.turn} of 16` : placedCount >= 16 ? "Your board is full" : "Waiting for the next card"),
    match.card
      ? h("div", { class: "next-card", onpointerdown: (e) => startDrag(ctx, e) },
        cardFace(match.card, { class: "big" }), h("span", { class: "card-name" }, cardName(match.card)))
      : h("p", { class: "muted" }, placedCount >= 16 ? "The others are finishing; the starter is turned when every board is full." : "Everyone places the same card; the next one comes when all have placed it or the clock runs out."),
    clocks(match),
    error ? h("p", { class: "error", role: "alert" }, error) : null,
    h("p", { id: "place-help", class: "help" }, "Click or tap a highlighted cell, drag the card onto it, or use the arrow keys and Enter, or type the cell (b3). Each row and column shows its points so far, without the starter."));
  return h("div", { class: "play" },
    h("div", { class: "board-wrap" }, myGrid(ctx)),
    h("div", { class: "side" }, toPlace, playersPanel(ctx), commitments(match)));
}
