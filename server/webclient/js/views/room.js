// A room: the seats before the match, the game (one's grid, the card to place,
// the clocks, everyone's progress, the series), and the results with the deal
// checked. Spectators see the same room without a board of their own.

import { h } from "../dom.js";
import { cardFace, cardName } from "../cards.js";
import { provider } from "../crypto.js";
import { CELLS, cellIndex, freshContribution } from "../store.js";
import { scoredBoard, tieRule, verificationPanel } from "./boards.js";

const COLS = "abcd";
const NEIGHBOURS = CELLS.map((_, i) => {
  const r = Math.floor(i / 4), c = i % 4, out = [];
  for (let dr = -1; dr <= 1; dr++) for (let dc = -1; dc <= 1; dc++) {
    if ((dr || dc) && r + dr >= 0 && r + dr < 4 && c + dc >= 0 && c + dc < 4) out.push((r + dr) * 4 + c + dc);
  }
  return out;
});

let announcedTurn = null;
let announcedResult = null;
let typed = "";
let typedAt = 0;
let current = null; // the ctx of the room view being shown, for the keyboard handler

export function roomView(ctx) {
  const { store } = ctx;
  current = ctx;
  const wanted = ctx.route[1];
  const room = store.room;
  if (!room || room.id !== wanted) {
    return h("main", { id: "main" }, h("h1", {}, "Room"),
      h("p", {}, "You are not in this room. "),
      h("div", { class: "actions" },
        h("button", { type: "button", class: "primary", onclick: () => joinById(ctx, wanted, false) }, "Take a seat"),
        h("button", { type: "button", onclick: () => ctx.go(`#/watch/${encodeURIComponent(wanted)}`) }, "Watch"),
        h("a", { href: "#/" }, "Back to the lobby")));
  }
  const match = store.match;
  const body = !match ? waitingRoom(ctx) : match.result ? results(ctx) : playing(ctx);
  return h("main", { id: "main", class: "room" }, roomHeader(ctx), body);
}

async function joinById(ctx, roomId, spectate) {
  const contribution = freshContribution();
  try {
    await ctx.request({ type: "join_room", room_id: roomId, spectate, contribution }, ["room_state"]);
    if (!spectate) ctx.store.contribution = contribution;
    ctx.render();
  } catch { /* shown */ }
}

function terms(room) {
  const clock = room.pace === "lockstep" ? `${room.card_clock_ms / 1000} s a card` : `${room.deal_clock_ms / 1000} s for the deal`;
  const length = room.deals > 1 ? `, best of ${room.deals}` : "";
  return `${room.pace}, ${clock}${length}${room.rated ? ", rated" : ""}${room.visibility === "private" ? ", private" : ""}`;
}

function roomHeader(ctx) {
  const { store } = ctx;
  const room = store.room;
  const tid = store.tournamentOfRoom(room.id);
  const t = tid ? store.tournament.get(tid).info : null;
  const table = t ? t.tables.find((x) => x.room_id === room.id) : null;
  return h("header", { class: "room-head" },
    h("h1", {}, room.name),
    h("p", { class: "terms" }, terms(room), store.spectating ? " · you are watching" : ""),
    t ? h("p", {}, h("a", { href: `#/t/${encodeURIComponent(t.id)}` }, `Tournament ${t.name}`), ` — round ${t.round}${table ? `, table ${table.number}` : ""}`) : null,
    seriesLine(ctx),
    leaveButton(ctx));
}

function seriesLine(ctx) {
  const { store } = ctx;
  const room = store.room;
  const series = (store.match && store.match.result && store.match.result.series) || room.series;
  if (!series || series.best_of <= 1) return null;
  const me = store.me;
  const st = series.standings;
  let score = st.map((s) => `${s.player.name} ${s.deals_won}`).join(" – ");
  const mine = st.find((s) => s.player.id === me.id);
  if (mine && st.length === 2) {
    const other = st.find((s) => s.player.id !== me.id);
    const lead = mine.deals_won - other.deals_won;
    score = lead > 0 ? `you lead ${mine.deals_won}–${other.deals_won}` : lead < 0 ? `you trail ${mine.deals_won}–${other.deals_won}` : `level ${mine.deals_won}–${other.deals_won}`;
    if (series.finished) {
      score = !series.winner ? `a drawn series ${mine.deals_won}–${other.deals_won}`
        : series.winner.id === me.id ? `you won the series ${mine.deals_won}–${other.deals_won}` : `${series.winner.name} won the series ${other.deals_won}–${mine.deals_won}`;
    }
  } else if (series.finished) {
    score = series.winner ? `${series.winner.name} won the series (${score})` : `a drawn series (${score})`;
  }
  return h("p", { class: "series", "aria-label": "Series" }, `Deal ${series.deal} of ${series.best_of} — ${score}`);
}

function leaveButton(ctx) {
  const { store } = ctx;
  const room = store.room;
  const playing = room.status === "playing" && !store.spectating;
  const label = store.spectating ? "Stop watching" : playing ? "Resign" : room.status === "finished" ? "Back to the lobby" : "Leave the room";
  return h("button", { type: "button", class: playing ? "danger" : "", dataset: { key: "leave" }, onclick: async () => {
    if (playing) {
      const ok = await ctx.confirm(room.deals > 1 || room.rated
        ? "Resign? Leaving now forfeits the series: it counts as lost and the server plays your remaining cards."
        : "Resign? Leaving now forfeits the match: the server plays your remaining cards.", "Resign");
      if (!ok) return;
    }
    const tid = store.tournamentOfRoom(room.id);
    try {
      await ctx.request({ type: "leave_room", room_id: room.id }, ["left"]);
    } catch { /* shown */ }
    store.leaveRoomLocally();
    ctx.go(tid ? `#/t/${encodeURIComponent(tid)}` : "#/");
  } }, label);
}

// --- before the match ----------------------------------------------------------

function waitingRoom(ctx) {
  const { store } = ctx;
  const room = store.room;
  const mySeat = room.players.find((s) => s.player.id === store.me.id);
  const creator = store.isCreator();
  const link = room.invite_code
    ? `${location.origin}/#/join/${encodeURIComponent(room.invite_code)}`
    : `${location.origin}/#/play/${encodeURIComponent(room.id)}`;
  const seats = [];
  for (let i = 0; i < room.seats; i++) {
    const seat = room.players.find((s) => s.seat === i);
    seats.push(h("li", { class: seat ? "taken" : "free" },
      h("span", { class: "seat-no" }, `Seat ${i + 1}`), " ",
      seat ? [h("span", { class: "name" }, seat.player.name),
        seat.player.bot ? h("span", { class: "tag" }, "bot") : null,
        seat.player.id === room.creator.id ? h("span", { class: "tag" }, "creator") : null,
        " ", h("span", { class: seat.ready ? "ok" : "muted" }, seat.ready ? "✔ ready" : "not ready"),
        seat.connected ? null : h("span", { class: "warn" }, " ✖ disconnected")]
        : h("span", { class: "muted" }, "empty")));
  }
  return h("section", { class: "card-panel waiting-room" },
    h("h2", {}, "Waiting for players"),
    h("ol", { class: "seats" }, seats),
    h("div", { class: "share" },
      h("label", { for: "room-link" }, room.invite_code ? `Invite link (code ${room.invite_code})` : "Link to this room"),
      h("input", { id: "room-link", readonly: true, value: link, onfocus: (e) => e.target.select() }),
      navigator.clipboard ? h("button", { type: "button", class: "small", onclick: () => navigator.clipboard.writeText(link).then(() => store.notice("Link copied.")) }, "Copy") : null),
    h("div", { class: "actions" },
      mySeat ? h("button", { type: "button", class: mySeat.ready ? "" : "primary", dataset: { key: "ready" }, "aria-pressed": mySeat.ready ? "true" : "false",
        onclick: () => ctx.request({ type: "ready", room_id: room.id, ready: !mySeat.ready }, ["room"]) }, mySeat.ready ? "Not ready" : "Ready") : null,
      creator ? h("button", { type: "button", dataset: { key: "start" }, onclick: () => ctx.request({ type: "start", room_id: room.id }) }, "Start now") : null,
      creator && !room.rated && room.players.length < room.seats ? [
        h("label", { for: "bot-strategy", class: "visually-hidden" }, "Bot strategy"),
        h("select", { id: "bot-strategy", dataset: { key: "bot-strategy" }, onchange: (e) => ctx.setField("bot-strategy", e.target.value) },
          ["expert", "greedy", "random", "fallback"].map((s) => h("option", { value: s, selected: ctx.field("bot-strategy", "expert") === s }, `${s} bot`))),
        h("button", { type: "button", dataset: { key: "add-bot" }, onclick: () => ctx.request({ type: "add_bot", room_id: room.id, strategy: ctx.field("bot-strategy", "expert") }) }, "Add a bot")] : null),
    h("p", { class: "help" }, "The match starts when every seat is taken and everyone is ready, or when the creator starts it."),
    commitmentLine(room.server_commitment, "The server has committed to its secret"));
}

function commitmentLine(value, what) {
  if (!value) return null;
  return h("p", { class: "commitment" }, `${what}: `, h("code", { title: value }, value.slice(0, 16) + "…"));
}

// --- the game --------------------------------------------------------------------

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

function place(ctx, name, dropped = 0) {
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

function myGrid(ctx) {
  const { store } = ctx;
  const match = store.match;
  const legal = legalCells(match);
  let cursor = ctx.field("cursor", null);
  if (!cursor || (match.card && !legal.has(cursor) && legal.size)) cursor = cursor && legal.has(cursor) ? cursor : match.legal[0] || cursor || "a1";
  const last = match.placements.length ? match.placements.reduce((a, b) => (a.turn > b.turn ? a : b)).cell : null;
  const rows = [h("div", { class: "grid-row head", "aria-hidden": "true" }, h("span", { class: "corner" }), [...COLS].map((c) => h("span", { class: "col-label" }, c)))];
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
      const label = card ? `${name}: ${cardName(card)}` : `${name}: empty${isLegal ? ", you can place here" : ""}`;
      cells.push(h("button", {
        type: "button", class: classes.join(" "), "aria-label": label,
        tabindex: name === cursor ? "0" : "-1", "aria-disabled": isLegal ? null : "true",
        dataset: { key: `cell-${name}`, cell: name },
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
        ondragover: (e) => { if (isLegal) { e.preventDefault(); e.currentTarget.classList.add("drop"); } },
        ondragleave: (e) => e.currentTarget.classList.remove("drop"),
        ondrop: (e) => { e.preventDefault(); place(ctx, name); },
      }, card ? cardFace(card) : match.pending === name && match.card ? cardFace(match.card, { class: "ghost" }) : h("span", { class: "cell-name", "aria-hidden": "true" }, name)));
    }
    rows.push(h("div", { class: "grid-row", role: "row" }, h("span", { class: "row-label", "aria-hidden": "true" }, String(r + 1)), cells));
  }
  return h("div", { class: "board mine", role: "group", "aria-label": "Your board: arrows move, Enter places, or type a cell such as b3", "aria-describedby": "place-help" }, rows);
}

function clocks(ctx) {
  const { store } = ctx;
  const match = store.match;
  const items = [];
  if (match.pace === "lockstep") {
    const at = match.deadlineAt || match.roundDeadlineAt;
    if (at) items.push(h("p", { class: "clock-line" }, match.card ? "Card clock " : "This card's clock ", h("span", { class: "clock", dataset: { deadline: at }, role: "timer" })));
  } else {
    const at = match.deadlineAt || match.roundDeadlineAt;
    if (at) items.push(h("p", { class: "clock-line" }, "Deal clock ", h("span", { class: "clock", dataset: { deadline: at }, role: "timer" })));
  }
  return items;
}

function progressList(ctx) {
  const { store } = ctx;
  const match = store.match;
  const room = store.room;
  const progress = match.progress;
  const turn = progress ? progress.turn : match.turn || 1;
  return h("section", { class: "progress", "aria-labelledby": "progress-h" },
    h("h2", { id: "progress-h" }, "Players"),
    h("ul", {}, room.players.map((seat) => {
      const id = seat.player.id;
      const placed = progress ? progress.placed[id] || 0 : 0;
      const connected = progress && id in progress.connected ? progress.connected[id] : seat.connected;
      let state;
      if (match.result || placed >= 16) state = ["done", "■ done"];
      else if (!connected) state = ["away", "✖ disconnected"];
      else if (match.pace === "lockstep") state = placed >= turn ? ["placed", "✔ placed"] : ["thinking", "… thinking"];
      else state = ["thinking", "… playing"];
      return h("li", { class: `player ${state[0]} ${id === store.me.id ? "me" : ""}` },
        h("span", { class: "name" }, seat.player.name, id === store.me.id ? " (you)" : "",
          seat.player.bot ? h("span", { class: "tag" }, "bot") : null),
        h("meter", { min: 0, max: 16, value: placed, "aria-label": `${seat.player.name}: ${placed} of 16 placed` }),
        h("span", { class: "count" }, `${placed}/16`), h("span", { class: "state" }, state[1]));
    })));
}

function playing(ctx) {
  const { store } = ctx;
  const match = store.match;
  if (match.card && announcedTurn !== `${match.match_id}/${match.turn}`) {
    announcedTurn = `${match.match_id}/${match.turn}`;
    ctx.announce(`Card ${match.turn} of 16: ${cardName(match.card)}. ${match.legal.length} cells you can use.`);
  }
  const placedCount = match.placements.length;
  const error = ctx.field("place-error", "");
  const toPlace = store.spectating ? null : h("section", { class: "to-place", "aria-labelledby": "to-place-h" },
    h("h2", { id: "to-place-h" }, match.card ? `Card ${match.turn} of 16` : placedCount >= 16 ? "Your board is full" : "Waiting for the next card"),
    match.card
      ? h("div", { class: "next-card", draggable: "true",
        ondragstart: (e) => { e.dataTransfer.setData("text/plain", match.card); e.dataTransfer.effectAllowed = "move"; },
      },
        cardFace(match.card, { class: "big" }), h("span", { class: "card-name" }, cardName(match.card)))
      : h("p", { class: "muted" }, placedCount >= 16 ? "The others are finishing; the starter is turned when every board is full." : "Everyone places the same card; the next one comes when all have placed it or the clock runs out."),
    clocks(ctx),
    error ? h("p", { class: "error", role: "alert" }, error) : null,
    h("p", { id: "place-help", class: "help" }, "Click or tap a highlighted cell, drag the card onto it, or use the arrow keys and Enter, or type the cell (b3)."));
  const commitments = h("p", { class: "commitment" }, `Deal ${match.deal}${match.best_of > 1 ? ` of ${match.best_of}` : ""} · deal commitment `,
    h("code", { title: match.seed_commitment }, (match.seed_commitment || "").slice(0, 16) + "…"),
    match.server_commitment ? [" · server commitment ", h("code", { title: match.server_commitment }, match.server_commitment.slice(0, 16) + "…")] : null);
  return h("div", { class: "play" },
    store.spectating
      ? h("section", { class: "card-panel" }, h("h2", {}, "Watching"), h("p", {}, "Boards stay hidden until the deal is over: you see how many cards each player has placed."), clocks(ctx))
      : h("div", { class: "board-wrap" }, myGrid(ctx)),
    h("div", { class: "side" }, toPlace, progressList(ctx), commitments));
}

// --- results ---------------------------------------------------------------------

function results(ctx) {
  const { store } = ctx;
  const match = store.match;
  const result = match.result;
  const room = store.room;
  const series = result.series;
  const next = store.nextDealAt && series && !series.finished ? h("p", { class: "next-deal", role: "status" }, "The next deal starts in ", h("span", { class: "clock", dataset: { deadline: store.nextDealAt } })) : null;
  const ratings = store.ratings ? ratingLines(store) : null;
  const seated = !store.spectating;
  const over = !series || series.finished;
  const wants = room.rematch || [];
  const v = match.verification;
  if (v && !v.pending && announcedResult !== result.match_id) {
    announcedResult = result.match_id;
    const mine = result.boards.find((b) => b.player.id === store.me.id);
    ctx.announce(`${mine ? `Results: you are ranked ${mine.rank} of ${result.boards.length} with ${mine.score.total} points. ` : "Results are in. "}${v.ok ? "Deal verified." : "The deal was NOT verified."}`);
  }
  return h("div", { class: "results" },
    h("section", { class: "card-panel result-head" },
      h("h2", {}, "Results"),
      h("p", {}, "Starter ", cardFace(result.starter), " ", cardName(result.starter)),
      h("p", { class: "help" }, tieRule(match.pace)),
      (result.ranking || []).map((note) => h("p", { class: "rank-note", role: "status" }, note.text)),
      series && series.finished && (series.best_of > 1 || series.standings.some((s) => s.forfeited)) ? h("p", { class: "series-end" }, h("strong", {}, seriesEnd(series, store))) : null,
      next,
      ratings,
      verificationPanel(match.verification, provider()),
      h("div", { class: "actions" },
        h("a", { class: "button", href: `#/match/${encodeURIComponent(result.match_id)}` }, "Replay and analysis"),
        room.origin === "daily" ? h("a", { class: "button primary", href: "#/daily" }, "Today's standings") : null,
        seated && over && room.can_rematch ? h("button", { type: "button", class: wants.includes(store.me.id) ? "" : "primary", dataset: { key: "rematch" }, onclick: () => {
          const want = !wants.includes(store.me.id);
          const contribution = freshContribution();
          ctx.request({ type: "rematch", room_id: room.id, want, contribution }).then(() => { if (want) store.contribution = contribution; }, () => {});
          if (want) store.contribution = contribution;
        } }, wants.includes(store.me.id) ? "Withdraw the rematch offer" : wants.length ? "Accept the rematch" : "Offer a rematch") : null,
        wants.length ? h("span", { class: "muted" }, `Rematch wanted by: ${room.players.filter((s) => wants.includes(s.player.id)).map((s) => s.player.name).join(", ")}`) : null)),
    series && series.best_of > 1 ? seriesTable(series) : null,
    h("div", { class: "boards" }, result.boards.map((b) => scoredBoard(b, { me: store.me, pace: match.pace }))));
}

/** The end of a series as the server decided it: "ada resigned — you win the
series 2–1" (its players who left are its `forfeited` standings). */
function seriesEnd(series, store) {
  const me = store.me && store.me.id;
  const standings = series.standings;
  const gone = standings.filter((s) => s.forfeited).map((s) => (s.player.id === me ? "you" : s.player.name));
  const winner = series.winner;
  const first = winner && standings.find((s) => s.player.id === winner.id);
  const rival = first && standings.find((s) => s !== first);
  const who = winner ? (winner.id === me ? "you win" : `${winner.name} wins`) : "";
  const score = first && rival && series.best_of > 1 ? ` the series ${first.deals_won}–${rival.deals_won}` : "";
  const won = winner ? `${who}${score}` : series.aborted ? "aborted: rated for nobody" : "a draw";
  return gone.length && !series.aborted ? `${gone.join(", ")} resigned — ${won}` : won;
}

function seriesTable(series) {
  return h("section", { class: "card-panel" }, h("h2", {}, `Series, best of ${series.best_of}`),
    h("table", {}, h("thead", {}, h("tr", {}, ["Player", "Deals won", "Points", "Time used", ""].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, series.standings.map((s) => h("tr", {}, h("td", {}, s.player.name), h("td", {}, String(s.deals_won)), h("td", {}, String(s.points)),
        h("td", {}, `${(s.time_used_ms / 1000).toFixed(1)} s`), h("td", {}, s.forfeited ? "forfeited" : series.winner && series.winner.id === s.player.id ? "winner" : ""))))));
}

function ratingLines(store) {
  return h("ul", { class: "ratings" }, store.ratings.changes.map((c) => {
    const d = c.after - c.before;
    return h("li", {}, `${c.player.id === store.me.id ? "Your rating" : c.player.name + "'s rating"} ${c.before} → ${c.after} (${d >= 0 ? "+" : ""}${d})${c.provisional ? ", provisional" : ""}`);
  }));
}

// --- typing a cell ----------------------------------------------------------------

document.addEventListener("keydown", (e) => {
  const ctx = current;
  if (!ctx || ctx.route[0] !== "room" || !ctx.store.match || !ctx.store.match.card) return;
  const target = e.target;
  if (target && (target.tagName === "INPUT" || target.tagName === "SELECT" || target.tagName === "TEXTAREA")) return;
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const key = e.key.toLowerCase();
  const now = Date.now();
  if (now - typedAt > 2000) typed = "";
  if (/^[a-d]$/.test(key)) {
    typed = key;
    typedAt = now;
    ctx.setField("place-error", `typed ${key}: now a row, 1 to 4`);
    ctx.render();
  } else if (/^[1-4]$/.test(key) && typed.length === 1) {
    const name = typed + key;
    typed = "";
    place(ctx, name);
  } else if (key === "escape" && typed) {
    typed = "";
    ctx.setField("place-error", "");
    ctx.render();
  }
});
