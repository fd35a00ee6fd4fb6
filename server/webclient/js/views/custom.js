// The custom game, folded behind "Custom game" in the lobby: a room with every
// option of create_room, quick play with its options (and the bot that stands in
// after a wait, by level and rating), joining by invite code or link, and a
// challenge with every option.

import { h } from "../dom.js";
import { freshContribution } from "../store.js";
import { levelSelect } from "./ui.js";

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

const PACES = [["lockstep", "Lockstep"], ["race", "Race"]];
const PACE_HELP = "Lockstep: everyone places the same card at once, a clock for each card. Race: one clock for the whole deal; on equal points the faster board ranks first.";
const DEALS = [["1", "1 deal"], ["3", "best of 3"], ["5", "best of 5"]];

/** The forms of a custom game, each a section of its own. */
export function customGame(ctx) {
  return h("div", { class: "custom-game" }, createSection(ctx), quickPlaySection(ctx), joinSection(ctx), challengeSection(ctx));
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
      h("p", { class: "help" }, PACE_HELP),
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
        bot_after_ms: botAfter, bot_level: ctx.field("qp-level", store.bots ? store.bots.quickplay_bot : "expert"), contribution }, ["queue"]).then(() => { store.contribution = contribution; }, () => {});
    } },
      select(ctx, "qp-pace", "Pace", PACES, "lockstep"),
      select(ctx, "qp-deals", "Length", DEALS, "1"),
      number(ctx, "qp-bot", "A bot after (seconds; empty: wait for a person)", 30, { min: 0, max: 600 }),
      h("div", { class: "field wide" }, levelSelect(ctx, "qp-level", store.bots ? store.bots.quickplay_bot : "expert", { label: "The bot after the wait", visible: true })),
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

// Join a room by its id or invite code, with a fresh contribution; then go to it.
export async function joinRoom(ctx, where) {
  const contribution = freshContribution();
  try {
    const state = await ctx.request({ type: "join_room", ...where, contribution }, ["room_state"]);
    ctx.store.contribution = contribution;
    ctx.go(`#/room/${encodeURIComponent(state.room.id)}`);
  } catch { /* the error is shown */ }
}
