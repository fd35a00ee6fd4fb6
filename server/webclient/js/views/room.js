// A room: the seats before the match, then the game (play.js for a seated
// player, watch.js for a spectator), then the results (results.js) with the
// deal checked.

import { h } from "../dom.js";
import { freshContribution } from "../store.js";
import { place, playing as playScreen } from "./play.js";
import { watching } from "./watch.js";
import { results } from "./results.js";
import { seriesOutcome } from "./outcome.js";
import { botLevels, findLevel, levelLabel, levelSelect } from "./ui.js";

let typed = "";
let typedAt = 0;
let current = null; // the ctx of the room view being shown, for the keyboard handler
// Cells typed while no card could be placed (the last one not yet answered, or the
// next card not yet dealt): placed in order as the cards come, so that a burst of
// keys ("a1b1c1d1") loses none. Cleared by Escape, a refused cell, or the deal's end.
let queued = [];
let draining = false;

export function roomView(ctx) {
  const { store } = ctx;
  current = ctx;
  if (!draining) {
    draining = true;
    store.addEventListener("change", () => queueMicrotask(drain));
  }
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
  const body = !match ? waitingRoom(ctx) : match.result ? results(ctx) : store.spectating ? watching(ctx) : playScreen(ctx);
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
  const series = (store.match && store.match.result && store.match.result.series) || store.room.series;
  const text = seriesOutcome(series, store.spectating ? null : store.me);
  return text ? h("p", { class: "series", "aria-label": "Series" }, text) : null;
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
        seat.player.bot ? h("span", { class: "tag" }, botTag(store, seat.player)) : null,
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
      mySeat ? h("button", { type: "button", class: mySeat.ready ? "" : "primary", dataset: { key: "ready", focusFirst: "" }, "aria-pressed": mySeat.ready ? "true" : "false",
        onclick: () => ctx.request({ type: "ready", room_id: room.id, ready: !mySeat.ready }, ["room"]) }, mySeat.ready ? "Not ready" : "Ready") : null,
      creator ? h("button", { type: "button", dataset: { key: "start" }, onclick: () => ctx.request({ type: "start", room_id: room.id }) }, "Start now") : null,
      creator && !room.rated && room.players.length < room.seats ? [
        levelSelect(ctx, "bot-strategy", store.bots ? store.bots.quickplay_bot : "expert"),
        h("button", { type: "button", dataset: { key: "add-bot" }, onclick: () => {
          const level = findLevel(store, ctx.field("bot-strategy", store.bots ? store.bots.quickplay_bot : "expert")) || botLevels(store).at(-1);
          ctx.request({ type: "add_bot", room_id: room.id, strategy: level.name });
        } }, "Add a bot")] : null),
    h("p", { class: "help" }, "The match starts when every seat is taken and everyone is ready, or when the creator starts it."),
    commitmentLine(room.server_commitment, "The server has committed to its secret"));
}

/** "bot", or the level and rating of a server bot (its id names the level asked for). */
function botTag(store, player) {
  const asked = /^bot-(.+)-\d+$/.exec(player.id);
  const level = asked ? findLevel(store, asked[1]) : null;
  return level ? `bot · ${levelLabel(level)}` : "bot";
}

function commitmentLine(value, what) {
  if (!value) return null;
  return h("p", { class: "commitment" }, `${what}: `, h("code", { title: value }, value.slice(0, 16) + "…"));
}

// --- typing a cell ----------------------------------------------------------------

/** The next queued cell, once a card can be placed. */
function drain() {
  const ctx = current;
  if (!queued.length || !ctx) return;
  const match = ctx.store.match;
  if (ctx.route[0] !== "room" || !match || match.result || ctx.store.spectating) {
    queued = [];
    return;
  }
  if (!match.card || match.pending) return;
  place(ctx, queued.shift());
  if (!match.pending) queued = []; // refused (the reason is shown): the rest was planned on it
}

function typedCell(ctx, name) {
  const match = ctx.store.match;
  if (match.card && !match.pending && !queued.length) {
    place(ctx, name);
    return;
  }
  queued.push(name);
  ctx.setField("place-error", `${queued.join(", ")}: placed as the cards come`);
  ctx.render();
}

document.addEventListener("keydown", (e) => {
  const ctx = current;
  const match = ctx && ctx.store.match;
  if (!ctx || ctx.route[0] !== "room" || !match || match.result || ctx.store.spectating) return;
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
    typedCell(ctx, name);
  } else if (key === "escape" && (typed || queued.length)) {
    typed = "";
    queued = [];
    ctx.setField("place-error", "");
    ctx.render();
  }
});
