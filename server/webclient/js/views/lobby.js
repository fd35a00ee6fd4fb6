// The lobby: public rooms, a new room with every option, joining by invite
// code, quick play, challenges with their countdown, and who is online.

import { h } from "../dom.js";
import { freshContribution } from "../store.js";

function select(ctx, id, label, options, fallback) {
  return h("div", { class: "field" },
    h("label", { for: id }, label),
    h("select", { id, dataset: { key: id }, onchange: (e) => ctx.setField(id, e.target.value) },
      options.map(([value, text]) => h("option", { value, selected: String(ctx.field(id, fallback)) === String(value) }, text))));
}

function number(ctx, id, label, fallback, attrs = {}) {
  return h("div", { class: "field" },
    h("label", { for: id }, label),
    h("input", { id, type: "number", inputmode: "numeric", value: ctx.field(id, fallback), dataset: { key: id },
      oninput: (e) => ctx.setField(id, e.target.value), ...attrs }));
}

function checkbox(ctx, id, label, fallback = false) {
  return h("div", { class: "field check" },
    h("input", { id, type: "checkbox", checked: ctx.field(id, fallback), dataset: { key: id },
      onchange: (e) => { ctx.setField(id, e.target.checked); ctx.render(); } }),
    h("label", { for: id }, label));
}

function text(ctx, id, label, attrs = {}) {
  return h("div", { class: "field" },
    h("label", { for: id }, label),
    h("input", { id, value: ctx.field(id, attrs.value || ""), dataset: { key: id },
      oninput: (e) => ctx.setField(id, e.target.value), ...attrs }));
}

const PACES = [["lockstep", "lockstep (everyone on the same card)"], ["race", "race (one clock for the deal)"]];
const DEALS = [["1", "1 deal"], ["3", "best of 3"], ["5", "best of 5"]];

export function lobbyView(ctx) {
  const { store } = ctx;
  return h("main", { id: "main", class: "lobby" },
    h("h1", { class: "visually-hidden" }, "Lobby"),
    store.queue || store.challenges.size ? waitingBox(ctx) : null,
    myTournaments(ctx),
    h("div", { class: "columns" },
      h("div", {}, roomsSection(ctx), createSection(ctx)),
      h("div", {}, quickPlaySection(ctx), joinSection(ctx), challengeSection(ctx), onlineSection(ctx))));
}

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
  return h("section", { class: "card-panel" }, h("h2", {}, "My tournaments"),
    h("ul", {}, mine.map((info) => h("li", {},
      h("a", { href: `#/t/${encodeURIComponent(info.id)}` }, info.name), ` — ${info.format}, ${info.status}, round ${info.round}`))));
}

function roomsSection(ctx) {
  const { store } = ctx;
  const paging = pager(ctx, "rooms-pages", "list_rooms", store.roomsPage, "rooms");
  return h("section", { class: "card-panel", "aria-labelledby": "rooms-h" },
    h("div", { class: "section-head" },
      h("h2", { id: "rooms-h" }, "Public rooms"),
      h("button", { type: "button", class: "small", onclick: paging.refresh }, "Refresh")),
    store.rooms.length === 0
      ? h("p", { class: "empty" }, "No public room is open. Create one below, or try quick play.")
      : h("div", { class: "table-scroll" }, h("table", { class: "rooms" },
        h("thead", {}, h("tr", {}, ["Room", "Seats", "Pace", "Clock", "Status", "Creator", ""].map((t) =>
          h("th", { scope: "col", class: t === "Clock" || t === "Creator" ? "wide" : null }, t)))),
        h("tbody", {}, store.rooms.map((r) => h("tr", {},
          h("td", {}, r.name),
          h("td", {}, `${r.taken}/${r.seats}`),
          h("td", {}, r.pace),
          h("td", { class: "wide" }, r.pace === "lockstep" ? `${r.card_clock_ms / 1000} s a card` : `${r.deal_clock_ms / 1000} s a deal`),
          h("td", {}, r.status),
          h("td", { class: "wide" }, r.creator.name),
          h("td", { class: "actions" },
            r.status === "waiting" && r.taken < r.seats
              ? h("button", { type: "button", class: "small primary", "aria-label": `Join ${r.name}`, onclick: () => joinRoom(ctx, { room_id: r.id }) }, "Join")
              : null,
            h("button", { type: "button", class: "small", "aria-label": `Watch ${r.name}`, onclick: () => ctx.go(`#/watch/${encodeURIComponent(r.id)}`) }, "Watch"))))))),
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

export async function joinRoom(ctx, where) {
  const contribution = freshContribution();
  try {
    const state = await ctx.request({ type: "join_room", ...where, contribution }, ["room_state"]);
    ctx.store.contribution = contribution;
    ctx.go(`#/room/${encodeURIComponent(state.room.id)}`);
  } catch { /* the error is shown */ }
}

function createSection(ctx) {
  return h("section", { class: "card-panel", "aria-labelledby": "create-h" },
    h("h2", { id: "create-h" }, "New room"),
    h("form", { class: "grid-form", onsubmit: async (e) => {
      e.preventDefault();
      const contribution = freshContribution();
      const message = {
        type: "create_room",
        name: ctx.field("new-name", "").trim() || `${ctx.store.me.name}'s room`,
        visibility: ctx.field("new-private", false) ? "private" : "public",
        seats: Number(ctx.field("new-seats", 2)),
        pace: ctx.field("new-pace", "lockstep"),
        card_clock_ms: Math.round(Number(ctx.field("new-card", 30)) * 1000),
        deal_clock_ms: Math.round(Number(ctx.field("new-deal", 300)) * 1000),
        deals: Number(ctx.field("new-deals", 1)),
        rated: ctx.field("new-rated", false),
        contribution,
      };
      try {
        const state = await ctx.request(message, ["room_state"]);
        ctx.store.contribution = contribution;
        ctx.go(`#/room/${encodeURIComponent(state.room.id)}`);
      } catch { /* shown */ }
    } },
      text(ctx, "new-name", "Name", { maxlength: 40, placeholder: `${ctx.store.me.name}'s room` }),
      select(ctx, "new-seats", "Seats", [1, 2, 3, 4, 5, 6, 7, 8].map((n) => [String(n), n === 1 ? "1 (solo)" : String(n)]), "2"),
      select(ctx, "new-pace", "Pace", PACES, "lockstep"),
      number(ctx, "new-card", "Card clock (seconds, lockstep)", 30, { min: 1, max: 600 }),
      number(ctx, "new-deal", "Deal clock (seconds, race)", 300, { min: 10, max: 3600 }),
      select(ctx, "new-deals", "Length", DEALS, "1"),
      checkbox(ctx, "new-private", "Private (unlisted: share its invite link)"),
      checkbox(ctx, "new-rated", "Rated (2 seats, registered players, no bots)"),
      h("div", { class: "actions" }, h("button", { type: "submit", class: "primary" }, "Create the room"))));
}

function quickPlaySection(ctx) {
  const { store } = ctx;
  const guest = store.me.guest;
  return h("section", { class: "card-panel", "aria-labelledby": "qp-h" },
    h("h2", { id: "qp-h" }, "Quick play"),
    guest ? h("p", { class: "help" }, "Quick play is rated: sign in with a name to play it.") : null,
    h("form", { class: "grid-form", onsubmit: (e) => {
      e.preventDefault();
      const seconds = ctx.field("qp-bot", "30");
      const botAfter = seconds === "" ? null : Math.round(Number(seconds) * 1000);
      store.queueBotAfter = botAfter;
      const contribution = freshContribution();
      ctx.request({ type: "quickplay", pace: ctx.field("qp-pace", "lockstep"), deals: Number(ctx.field("qp-deals", 1)),
        bot_after_ms: botAfter, contribution }, ["queue"]).then(() => { store.contribution = contribution; }, () => {});
    } },
      select(ctx, "qp-pace", "Pace", PACES, "lockstep"),
      select(ctx, "qp-deals", "Length", DEALS, "1"),
      number(ctx, "qp-bot", "A bot after (seconds; empty: wait for a person)", 30, { min: 0, max: 600 }),
      h("p", { class: "help" }, "You are paired with a player within ±100 rating points at first; the range widens by 25 points a second, up to ±1000."),
      h("div", { class: "actions" }, h("button", { type: "submit", class: "primary", disabled: guest || Boolean(store.queue) }, "Find an opponent"))));
}

function joinSection(ctx) {
  return h("section", { class: "card-panel", "aria-labelledby": "join-h" },
    h("h2", { id: "join-h" }, "Join by invite code"),
    h("form", { class: "inline-form", onsubmit: (e) => {
      e.preventDefault();
      const code = ctx.field("invite", "").trim();
      const m = code.match(/#\/join\/([^/]+)$/);
      if (code) joinRoom(ctx, { invite_code: m ? decodeURIComponent(m[1]) : code });
    } },
      h("label", { for: "invite" }, "Invite code or link"),
      h("input", { id: "invite", value: ctx.field("invite"), dataset: { key: "invite" }, oninput: (e) => ctx.setField("invite", e.target.value), autocomplete: "off" }),
      h("button", { type: "submit" }, "Join")));
}

function challengeSection(ctx) {
  const { store } = ctx;
  return h("section", { class: "card-panel", "aria-labelledby": "ch-h" },
    h("h2", { id: "ch-h" }, "Challenge a player"),
    h("form", { class: "grid-form", onsubmit: (e) => {
      e.preventDefault();
      const contribution = freshContribution();
      ctx.request({ type: "challenge", opponent: ctx.field("ch-name", "").trim(), pace: ctx.field("ch-pace", "lockstep"),
        deals: Number(ctx.field("ch-deals", 1)), card_clock_ms: Math.round(Number(ctx.field("ch-card", 30)) * 1000),
        deal_clock_ms: Math.round(Number(ctx.field("ch-deal", 300)) * 1000), rated: ctx.field("ch-rated", !store.me.guest), contribution },
      ["challenge_state"]).then(() => { store.contribution = contribution; }, () => {});
    } },
      text(ctx, "ch-name", "Player", { required: true, maxlength: 24, autocomplete: "off" }),
      select(ctx, "ch-pace", "Pace", PACES, "lockstep"),
      select(ctx, "ch-deals", "Length", DEALS, "1"),
      number(ctx, "ch-card", "Card clock (s)", 30, { min: 1, max: 600 }),
      number(ctx, "ch-deal", "Deal clock (s)", 300, { min: 10, max: 3600 }),
      checkbox(ctx, "ch-rated", "Rated", !store.me.guest),
      h("div", { class: "actions" }, h("button", { type: "submit", class: "primary" }, "Send the challenge"))));
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
          ctx.render();
          document.getElementById("ch-name")?.focus();
        } }, "Challenge") : null))),
    online && online.total > online.players.length ? h("p", { class: "help" }, `and ${online.total - online.players.length} more`) : null);
}
