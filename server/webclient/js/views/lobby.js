// The lobby, game first: play the computer (the server's ladder of levels, each
// with its rating, one click to a game), quick match, today's daily deal and the
// tournaments on now; then the custom game (custom.js) folded away, the public
// rooms and who is online.

import { h } from "../dom.js";
import { freshContribution } from "../store.js";
import { customGame, joinRoom } from "./custom.js";
import { botLevels, count, dataTable, fold, formatName } from "./ui.js";

export function lobbyView(ctx) {
  const { store } = ctx;
  return h("main", { id: "main", class: "lobby" },
    h("h1", { tabindex: "-1" }, "Play"),
    store.queue || store.challenges.size ? waitingBox(ctx) : null,
    h("div", { class: "hero" }, computerSection(ctx), quickMatchSection(ctx), dailySection(ctx), tournamentsSection(ctx)),
    myTournaments(ctx),
    fold(ctx, "custom", h("span", { class: "fold-title" }, "Custom game",
      h("span", { class: "help" }, " — a room with every option, quick play's options, an invite code, a challenge")), () => customGame(ctx), { cls: "card-panel custom" }),
    h("div", { class: "columns" }, roomsSection(ctx), onlineSection(ctx)));
}

// --- the four ways to a game ---------------------------------------------------------

/** One step to a game against a bot: a private 2-seat room, the bot, start (as the terminal client does). */
export async function playComputer(ctx, level) {
  const { store } = ctx;
  const contribution = freshContribution();
  let roomId = null;
  try {
    const state = await ctx.request({ type: "create_room", name: `${store.me.name} vs ${level.title || level.name}`.slice(0, 40),
      visibility: "private", seats: 2, contribution }, ["room_state"]);
    roomId = state.room.id;
    store.contribution = contribution;
    await ctx.request({ type: "add_bot", room_id: roomId, strategy: level.name });
    await ctx.request({ type: "start", room_id: roomId });
    ctx.go(`#/room/${encodeURIComponent(roomId)}`);
  } catch {
    // shown; a half-made room is not left behind
    if (roomId) ctx.request({ type: "leave_room", room_id: roomId }, ["left"]).then(() => store.leaveRoomLocally(), () => {});
  }
}

function computerSection(ctx) {
  const levels = botLevels(ctx.store);
  return h("section", { class: "card-panel action computer", "aria-labelledby": "computer-h" },
    h("h2", { id: "computer-h" }, "Play the computer"),
    h("p", { class: "help" }, "One deal against the level you pick, 30 s a card. Each level's rating is its strength measured against the others."),
    h("ul", { class: "ladder" }, levels.map((level) => h("li", {},
      h("button", { type: "button", class: "level", dataset: { key: `vs-${level.name}` }, title: level.description || null,
        onclick: () => playComputer(ctx, level) },
      h("span", { class: "level-name" }, level.level ? `Level ${level.level}` : level.name),
      h("span", { class: "level-title" }, h("span", { class: "visually-hidden" }, " "), level.title),
      h("span", { class: "level-rating" }, level.rating != null ? [h("span", { class: "visually-hidden" }, ", rated "), String(level.rating)] : ""))))));
}

const QUICK = [
  { key: "quick-1", label: "1 deal", pace: "lockstep", deals: 1, what: "lockstep" },
  { key: "quick-3", label: "Best of 3", pace: "lockstep", deals: 3, what: "lockstep" },
  { key: "quick-race", label: "Race", pace: "race", deals: 1, what: "1 deal, one clock" },
];

function quickMatchSection(ctx) {
  const { store } = ctx;
  const guest = store.me.guest;
  const go = (q) => {
    const botAfter = 30000;
    store.queueBotAfter = botAfter;
    const contribution = freshContribution();
    ctx.request({ type: "quickplay", pace: q.pace, deals: q.deals, bot_after_ms: botAfter, contribution }, ["queue"])
      .then(() => { store.contribution = contribution; }, () => {});
  };
  return h("section", { class: "card-panel action quick", "aria-labelledby": "quick-h" },
    h("h2", { id: "quick-h" }, "Quick match"),
    h("p", { class: "help" }, guest
      ? "Quick match is rated: sign in with a name to play it."
      : "A rated game against a player near your rating; a bot takes the seat after 30 s."),
    h("div", { class: "quick-choices" }, QUICK.map((q) => h("button", { type: "button", class: "choice", dataset: { key: q.key },
      disabled: guest || Boolean(store.queue), onclick: () => go(q) }, h("span", { class: "choice-main" }, q.label), h("span", { class: "choice-sub" }, q.what)))));
}

function dailySection(ctx) {
  const { store } = ctx;
  const d = store.dailyToday();
  let status = h("p", { class: "muted" }, "…");
  let action = h("a", { class: "button primary", href: "#/daily" }, "Today's daily deal");
  if (d) {
    const you = d.you;
    const left = d.left_ms != null ? Math.max(0, d.left_ms - (Date.now() - (store.dailyReceived.get(d.day) || Date.now()))) : null;
    const hours = left != null ? Math.floor(left / 3600000) : null;
    status = h("p", {}, `${count(d.players, "player")} today`, d.status === "open" && left != null
      ? `, ends in ${hours ? `${hours} h ` : ""}${Math.floor((left % 3600000) / 60000)} min` : "", ".",
    you && you.status === "finished" ? [" ", h("strong", {}, `You scored ${you.score}, rank ${you.rank}.`)] : null);
    if (you && you.status === "playing") action = h("a", { class: "button primary", href: `#/room/${encodeURIComponent(you.room_id)}` }, "Back to your attempt");
    else if (you && you.status === "finished") action = h("a", { class: "button", href: "#/daily" }, "Today's standings");
    else if (store.me.guest) action = h("a", { class: "button", href: "#/daily" }, "See today's deal");
    else if (d.status === "open") action = h("a", { class: "button primary", href: "#/daily" }, "Play today's deal");
  }
  return h("section", { class: "card-panel action daily-card", "aria-labelledby": "daily-h" },
    h("h2", { id: "daily-h" }, "Today's daily deal"),
    h("p", { class: "help" }, "The same 16 cards for everyone today, one attempt each."),
    status, h("div", { class: "actions" }, action));
}

function tournamentPhrase(t) {
  if (t.status === "registering") return t.starts_ms != null ? ["registering, starts in ", h("span", { class: "clock", dataset: { deadline: Date.now() + t.starts_ms } })] : "registering";
  if (t.status === "playing") return `round ${t.round} of ${t.rounds}`;  // a bracket drawn: its rounds known
  return t.status;
}

function tournamentsSection(ctx) {
  const list = (ctx.store.tournaments || []).filter((t) => ["registering", "playing", "paused"].includes(t.status)).slice(0, 4);
  return h("section", { class: "card-panel action now", "aria-labelledby": "now-t-h" },
    h("h2", { id: "now-t-h" }, "Tournaments now"),
    !ctx.store.tournaments ? h("p", { class: "muted" }, "…") : list.length === 0
      ? h("p", { class: "empty" }, "None running: host one.")
      : h("ul", { class: "now-list" }, list.map((t) => h("li", {},
        h("a", { href: `#/t/${encodeURIComponent(t.id)}` }, t.name), h("br"),
        h("span", { class: "help" }, `${formatName(t)} · ${t.pace} · ${count(t.entrants, "player")} · `, tournamentPhrase(t))))),
    h("div", { class: "actions" }, h("a", { class: "button", href: "#/tournaments" }, "All tournaments")));
}

// --- waiting, one's tournaments, the rooms ---------------------------------------------

function waitingBox(ctx) {
  const { store } = ctx;
  const items = [];
  const q = store.queue;
  if (q) {
    const range = q.rating != null ? [" Looking for ", h("span", { dataset: { rangeSince: q.since, rating: q.rating } }, ratingRange(q.rating, q.since)),
      ` (your rating ${q.rating}, the range widens 25 a second).`] : "";
    items.push(h("div", { class: "waiting", role: "status" },
      h("p", {}, `Quick play: waiting for an opponent (${q.pace}, ${q.deals === 1 ? "1 deal" : "best of " + q.deals}) for `,
        h("span", { dataset: { since: q.since } }), ".", range,
        q.botAfter != null ? ` A bot takes the seat after ${Math.round(q.botAfter / 1000)} s.` : ""),
      h("button", { type: "button", onclick: () => ctx.request({ type: "cancel_quickplay" }, ["queue"]) }, "Stop waiting")));
  }
  for (const [id, c] of store.challenges) {
    const info = c.info;
    const mineOut = info.challenger.id === store.me.id;
    const terms = `${info.pace}, ${info.deals === 1 ? "1 deal" : "best of " + info.deals}${info.rated ? ", rated" : ", casual"}`;
    items.push(h("div", { class: "challenge", role: mineOut ? "status" : "alert" },
      h("p", {}, mineOut ? `You challenged ${info.opponent.name} (${terms}). ` : `${info.challenger.name} challenges you (${terms}). `,
        h("span", { class: "clock", dataset: { deadline: c.expiresAt } }), " left to answer."),
      mineOut
        ? h("button", { type: "button", onclick: () => ctx.request({ type: "answer_challenge", challenge_id: id, accept: false }) }, "Withdraw")
        : [h("button", { type: "button", class: "primary", dataset: { key: `accept-${id}` }, onclick: () => {
          const contribution = freshContribution();
          ctx.request({ type: "answer_challenge", challenge_id: id, accept: true, contribution }, ["challenge_state"]).then(() => { store.contribution = contribution; });
        } }, "Accept"),
        h("button", { type: "button", onclick: () => ctx.request({ type: "answer_challenge", challenge_id: id, accept: false }) }, "Decline")]));
  }
  return h("section", { class: "card-panel attention", "aria-label": "Waiting" }, items);
}

/** The ratings quick play pairs with after waiting since ``since``: ±100, +25 a second, at most ±1000. */
export function ratingRange(rating, since) {
  const spread = Math.min(1000, 100 + 25 * Math.floor((Date.now() - since) / 1000));
  return `${rating - spread}–${rating + spread}`;
}

function myTournaments(ctx) {
  const { store } = ctx;
  const mine = [...store.tournament.values()].map((t) => t.info).filter((info) =>
    info.host.id === store.me.id || info.entrants.some((e) => e.player.id === store.me.id));
  if (!mine.length) return null;
  return h("section", { class: "card-panel", "aria-labelledby": "my-t-h" }, h("h2", { id: "my-t-h" }, "My tournaments"),
    h("ul", {}, mine.map((info) => h("li", {},
      h("a", { href: `#/t/${encodeURIComponent(info.id)}` }, info.name), ` — ${formatName(info)}, ${info.status}, round ${info.round}`))));
}

function roomsSection(ctx) {
  const { store } = ctx;
  const paging = pager(ctx, "rooms-pages", "list_rooms", store.roomsPage, "rooms");
  return h("section", { class: "card-panel", "aria-labelledby": "rooms-h" },
    h("div", { class: "section-head" },
      h("h2", { id: "rooms-h" }, "Public rooms"),
      h("button", { type: "button", class: "small", onclick: paging.refresh }, "Refresh")),
    store.rooms.length === 0
      ? h("p", { class: "empty" }, "No public room is open. Open one under Custom game, or try a quick match.")
      : dataTable({ cls: "rooms", columns: [{ title: "Room" }, { title: "Seats" }, { title: "Pace" }, { title: "Clock" }, { title: "Status" }, { title: "Creator" }, { title: "Actions", hidden: true }],
        rows: store.rooms.map((r) => ({ cells: [
          r.name, `${r.taken}/${r.seats}`, r.pace,
          r.pace === "lockstep" ? `${r.card_clock_ms / 1000} s a card` : `${r.deal_clock_ms / 1000} s a deal`,
          r.status, r.creator.name,
          h("span", { class: "row-actions" },
            r.status === "waiting" && r.taken < r.seats
              ? h("button", { type: "button", class: "small primary", "aria-label": `Join ${r.name}`, onclick: () => joinRoom(ctx, { room_id: r.id }) }, "Join")
              : null,
            h("button", { type: "button", class: "small", "aria-label": `Watch ${r.name}`, onclick: () => ctx.go(`#/watch/${encodeURIComponent(r.id)}`) }, "Watch"))] })) }),
    paging.controls);
}

/**
 * Paging of a listing (list_rooms, list_tournaments): a server that pages
 * answers with ``next`` (the cursor of the next page, null on the last) and
 * ``total``; the next page is asked for with ``after``. The cursors of the
 * pages seen are kept, to go back. A server that does not page sends neither
 * field, and nothing here sends ``after`` to it.
 */
export function pager(ctx, key, type, page, noun) {
  const stack = ctx.field(key, [null]);
  const ask = (cursors) => {
    ctx.setField(key, cursors);
    const after = cursors[cursors.length - 1];
    ctx.conn.send({ type, ...(after ? { after } : {}) });
  };
  const paged = page && (page.next !== undefined || page.total !== undefined);
  const controls = paged ? h("div", { class: "pager" },
    page.total !== undefined && page.total !== null ? h("span", {}, `${noun[0].toUpperCase()}${noun.slice(1)}: ${page.total} in all`) : null,
    stack.length > 1 ? h("button", { type: "button", class: "small", dataset: { key: `${key}-prev` }, onclick: () => ask(stack.slice(0, -1)) }, "Previous page") : null,
    page.next ? h("button", { type: "button", class: "small", dataset: { key: `${key}-next` }, onclick: () => ask([...stack, page.next]) }, "Next page") : null) : null;
  return { controls, refresh: () => ask(stack), first: () => ask([null]) };
}

function onlineSection(ctx) {
  const { store } = ctx;
  const online = store.online;
  const players = online ? online.players : [];
  return h("section", { class: "card-panel", "aria-labelledby": "online-h" },
    h("div", { class: "section-head" },
      h("h2", { id: "online-h" }, online ? `Online (${online.total})` : "Online"),
      h("button", { type: "button", class: "small", onclick: () => ctx.conn.send({ type: "list_online" }) }, "Refresh")),
    !online ? h("p", {}, "…") : online.total <= 1 ? h("p", { class: "empty" }, "Nobody else is online.") :
      h("ul", { class: "online" }, players.map((p) => h("li", {},
        h("a", { href: `#/player/${encodeURIComponent(p.id)}` }, p.name),
        p.bot ? h("span", { class: "tag" }, "bot") : null,
        p.guest ? h("span", { class: "tag" }, "guest") : null,
        p.id === store.me.id ? h("span", { class: "tag" }, "you") : null,
        !p.guest && !p.bot && !store.me.guest && p.id !== store.me.id ? h("button", { type: "button", class: "small", "aria-label": `Challenge ${p.name}`, onclick: () => {
          ctx.setField("ch-name", p.name);
          ctx.setField("fold-custom", true);
          ctx.render();
          requestAnimationFrame(() => requestAnimationFrame(() => document.getElementById("ch-name")?.focus()));
        } }, "Challenge") : null))),
    online && online.total > online.players.length ? h("p", { class: "help" }, `and ${online.total - online.players.length} more`) : null);
}
