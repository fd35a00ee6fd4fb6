// The page: sign-in, a router over the address's #fragment, the connection
// banner, and one render of the current view whenever the store changes.

import { Connection, socketUrl } from "./conn.js";
import { adopt, append, clock, fill, h, patch } from "./dom.js";
import { land } from "./motion.js";
import { NodeRoute } from "./nodes.js";
import { Store, freshContribution } from "./store.js";
import { signInView, accountView } from "./views/signin.js";
import { lobbyView, ratingRange } from "./views/lobby.js";
import { edgeCue } from "./views/ui.js";
import { roomView } from "./views/room.js";
import { playerView, replayView } from "./views/history.js";
import { leaderboardView } from "./views/leaderboard.js";
import { dailyView } from "./views/daily.js";
import { tournamentListView, tournamentView, projectorView } from "./views/tournaments.js";

const TOKEN_KEY = "cribsquares.token";
const GUEST_KEY = "cribsquares.guest-token";

const store = new Store();
const conn = new Connection(new NodeRoute(socketUrl(window.location)));
const root = document.getElementById("app");
const live = document.getElementById("live");
const forms = new Map(); // form field values kept across renders, by key

const ctx = {
  store,
  conn,
  forms,
  field(key, fallback = "") {
    return forms.has(key) ? forms.get(key) : fallback;
  },
  setField(key, value) {
    forms.set(key, value);
  },
  go(hash) {
    if (window.location.hash === hash) render();
    else window.location.hash = hash;
  },
  route: [],
  visit: 0, // counts the routes entered: a page fetched over HTTP asks again on each visit
  render: () => schedule(),
  held: false,
  hold(on) {
    ctx.held = on;
    if (!on) schedule();
  },
  announce,
  confirm: confirmDialog,
  signIn,
  signOut,
  savedToken,
  request(message, types) {
    return conn.request(message, types).catch((error) => {
      // "again": dropped by the server, for the caller to send again if still needed
      if (error.code !== "disconnected" && !error.again) store.notice(error.reason || error.code, "error");
      throw error;
    });
  },
};

// --- identity ----------------------------------------------------------------

function savedToken() {
  return localStorage.getItem(TOKEN_KEY) || sessionStorage.getItem(GUEST_KEY);
}

function signIn(identity) {
  store.signinError = null;
  conn.start(identity);
  render();
}

function signOut() {
  localStorage.removeItem(TOKEN_KEY);
  sessionStorage.removeItem(GUEST_KEY);
  conn.stop();
  conn.route.forget();
  store.me = null;
  store.leaveRoomLocally();
  store.tournament.clear();
  store.challenges.clear();
  store.queue = null;
  ctx.go("#/");
}

conn.addEventListener("welcome", (event) => {
  const welcome = event.detail;
  if (welcome.token) {
    if (welcome.player.guest) sessionStorage.setItem(GUEST_KEY, welcome.token);
    else localStorage.setItem(TOKEN_KEY, welcome.token);
  }
  afterWelcome();
});

conn.addEventListener("refused", (event) => {
  const { error, identity } = event.detail;
  if (identity && identity.token) {
    // A token the server does not know (another server, a wiped database): forget it.
    localStorage.removeItem(TOKEN_KEY);
    sessionStorage.removeItem(GUEST_KEY);
  }
  store.me = null;
  store.signinError = error.reason || error.code;
  render();
});

conn.addEventListener("message", (event) => {
  const msg = event.detail;
  store.apply(msg);
  // A match the server started for this player (quick play, a challenge, a
  // tournament's round): take the player to its table.
  const room = store.room;
  if ((msg.type === "room_state" || msg.type === "match_started") && room && room.id === (msg.room_id || (msg.room && msg.room.id))
      && !store.spectating && room.status === "playing" && !(ctx.route[0] === "room" && ctx.route[1] === room.id) && room.origin !== "room") {
    ctx.go(`#/room/${encodeURIComponent(room.id)}`);
  }
});
conn.addEventListener("state", () => renderBanner());
conn.addEventListener("limited", (event) => {
  const seconds = event.detail.waitMs / 1000;
  store.notice(`Too many messages at once: the server dropped some. Waiting ${seconds} s, then catching up.`, "warn", "limited");
});
store.addEventListener("change", () => schedule());
store.addEventListener("notice", (event) => toast(event.detail));

/** After every welcome (the first, or a reconnection): fetch what the view shows. */
function afterWelcome() {
  const [page, id] = ctx.route;
  if (store.spectating && store.room) {
    // Spectators are not kept by a restarted server: watch again.
    conn.send({ type: "join_room", room_id: store.room.id, spectate: true });
  }
  for (const [tid, entry] of store.tournament) {
    const mine = store.me && (entry.info.entrants.some((e) => e.player.id === store.me.id) || entry.info.host.id === store.me.id);
    if (mine) conn.send({ type: "get_tournament", tournament_id: tid });
    else if (page === "t" && id === tid) conn.send({ type: "join_tournament", tournament_id: tid, spectate: true });
  }
  conn.send({ type: "list_bots" }); // the levels the pickers offer, each with its rating
  enterRoute();
  render();
}

// --- routing -----------------------------------------------------------------

function parseRoute() {
  const hash = window.location.hash.replace(/^#\/?/, "");
  return hash.split("/").filter(Boolean).map(decodeURIComponent);
}

/** What entering a route asks the server for. */
function enterRoute() {
  ctx.route = parseRoute();
  ctx.visit += 1;
  const [page, id] = ctx.route;
  if (conn.state !== "online") return;
  if (page === "join" && id) {
    joinByInvite(id);
  } else if (page === "play" && id) {
    if (store.room && store.room.id === id) ctx.go(`#/room/${encodeURIComponent(id)}`);
    else {
      const contribution = freshContribution();
      ctx.request({ type: "join_room", room_id: id, contribution }, ["room_state"]).then(
        () => { store.contribution = contribution; ctx.go(`#/room/${encodeURIComponent(id)}`); }, () => ctx.go("#/"));
    }
  } else if (page === "watch" && id) {
    if (!store.room || store.room.id !== id) {
      ctx.request({ type: "join_room", room_id: id, spectate: true }, ["room_state"]).then(
        () => ctx.go(`#/room/${encodeURIComponent(id)}`), () => {});
    } else ctx.go(`#/room/${encodeURIComponent(id)}`);
  } else if (page === "tjoin" && id) {
    ctx.request({ type: "join_tournament", invite_code: id, spectate: true }, ["tournament"]).then(
      (reply) => ctx.go(`#/t/${encodeURIComponent(reply.tournament.id)}`), () => ctx.go("#/tournaments"));
  } else if (page === "t" && id) {
    const known = store.tournament.get(id);
    const mine = known && store.me && (known.info.entrants.some((e) => e.player.id === store.me.id) || known.info.host.id === store.me.id);
    if (!mine) conn.send({ type: "join_tournament", tournament_id: id, spectate: true });
    else conn.send({ type: "get_tournament", tournament_id: id });
  } else if (page === "tournaments") {
    ctx.setField("tournament-pages", [null]);
    conn.send({ type: "list_tournaments" });
  } else if (!page || page === "lobby") {
    ctx.setField("rooms-pages", [null]);
    conn.send({ type: "list_rooms" });
    conn.send({ type: "list_online" });
    conn.send({ type: "list_tournaments" });
    conn.send({ type: "get_daily", top: 3 });
  }
}

async function joinByInvite(code) {
  const contribution = freshContribution();
  try {
    const state = await ctx.request({ type: "join_room", invite_code: code, contribution }, ["room_state"]);
    store.contribution = contribution;
    ctx.go(`#/room/${encodeURIComponent(state.room.id)}`);
  } catch {
    ctx.go("#/");
  }
}

window.addEventListener("hashchange", () => {
  enterRoute();
  render();
});

// --- rendering -----------------------------------------------------------------

let scheduled = false;
function schedule() {
  if (scheduled) return;
  scheduled = true;
  requestAnimationFrame(() => {
    scheduled = false;
    render();
  });
}

function nav() {
  const links = [
    ["#/", "Lobby"],
    ["#/daily", "Daily"],
    ["#/tournaments", "Tournaments"],
    ["#/leaderboard", "Leaderboard"],
  ];
  if (store.me) links.push([`#/player/${encodeURIComponent(store.me.name)}`, "My games"]);
  if (store.room) links.unshift([`#/room/${encodeURIComponent(store.room.id)}`, store.spectating ? "Watching" : store.room.status === "playing" ? "▶ Game" : "Room"]);
  const current = "#/" + ctx.route.join("/");
  return h("nav", { class: "top", "aria-label": "Main" },
    h("a", { class: "brand", href: "#/" }, "cribsquares"),
    h("ul", {}, links.map(([href, label]) =>
      h("li", {}, h("a", { href, "aria-current": href === current ? "page" : null }, label)))),
    store.me ? h("a", { class: "me", href: "#/account", dataset: { key: "nav-account" } },
      store.me.name, store.me.guest ? " (guest)" : "") : null);
}

function currentView() {
  const [page] = ctx.route;
  if (!store.me) return signInView(ctx);
  switch (page) {
    case undefined:
    case "lobby":
    case "join":
    case "watch":
    case "play":
      return lobbyView(ctx);
    case "room":
      return roomView(ctx);
    case "account":
      return accountView(ctx);
    case "player":
      return playerView(ctx);
    case "match":
      return replayView(ctx);
    case "leaderboard":
      return leaderboardView(ctx);
    case "daily":
      return dailyView(ctx);
    case "tournaments":
    case "tjoin":
      return tournamentListView(ctx);
    case "t":
      return ctx.route[2] === "projector" ? projectorView(ctx) : tournamentView(ctx);
    default:
      return h("main", { id: "main" }, h("h1", {}, "Not found"), h("p", {}, h("a", { href: "#/" }, "Back to the lobby")));
  }
}

/** What is on the screen, for focus to follow when it changes: the address, and in a
room whether it shows the seats, a deal being played or a deal's results. */
function screenOf() {
  const room = store.room;
  const match = store.match;
  const phase = ctx.route[0] === "room" && room ? (match ? `${match.result ? "result" : "play"}:${match.match_id}` : "seats") : "";
  return `${store.me ? "in" : "out"}|${ctx.route.join("/")}|${phase}`;
}

let shownScreen = null;

/** A new screen: focus goes to its first action (data-focus-first) or its heading. */
function focusScreen() {
  const target = root.querySelector("[data-focus-first]") || root.querySelector("main h1");
  if (!target) return;
  focusOn(target);
  target.scrollIntoView({ block: "nearest" });
}

function focusOn(el) {
  if (!el.matches("button, a[href], input, select, textarea, summary, [tabindex]")) el.setAttribute("tabindex", "-1");
  el.focus({ preventScroll: true });
}

function render() {
  if (ctx.held) return; // redrawn when the hold ends
  const active = document.activeElement;
  const projector = ctx.route[0] === "t" && ctx.route[2] === "projector";
  document.documentElement.classList.toggle("projector", projector);
  const drawing = append(document.createDocumentFragment(), [projector || !store.me ? null : nav(), currentView()]);
  let again = sameElement(active, drawing);
  if (again && typing(active, again)) {
    adopt(active, again); // the field being typed in stays, caret and selection with it
    again = active;
  }
  patch(root, drawing);
  const screen = screenOf();
  if (shownScreen !== null && screen !== shownScreen) {
    if (screen.split("|")[1] !== shownScreen.split("|")[1]) window.scrollTo(0, 0);
    focusScreen();
  } else if (again && again.isConnected && document.activeElement !== again) focusOn(again); // else kept, focused
  shownScreen = screen;
  land(root);
  for (const el of root.querySelectorAll(".pan")) edgeCue(el);
  tick();
  renderBanner();
}

/** What stands for ``active`` in a new drawing: the element of the same data-key, or
id, or the screen's heading (where focus goes on a new screen). */
function sameElement(active, drawing) {
  if (!active || active === document.body || !root.contains(active)) return null;
  if (active.dataset && active.dataset.key) return drawing.querySelector(`[data-key="${CSS.escape(active.dataset.key)}"]`);
  if (active.id) return drawing.querySelector(`#${CSS.escape(active.id)}`);
  if (active.matches("main h1")) return drawing.querySelector("main h1");
  return null;
}

/** A text field that a redraw draws again alike (same kind, same text): the one to keep. */
function typing(active, fresh) {
  const field = active.tagName === "TEXTAREA" || (active.tagName === "INPUT" && !["checkbox", "radio", "button", "submit"].includes(active.type));
  return field && fresh.tagName === active.tagName && fresh.type === active.type && fresh.value === active.value;
}

function renderBanner() {
  const banner = document.getElementById("banner");
  const state = conn.state;
  // Moving to the node a hint named is this page's own doing: nothing to show.
  banner.hidden = !(state === "retrying" || (state === "connecting" && store.me && !conn.moving));
  if (banner.hidden) return;
  const seconds = conn.retryAt ? Math.max(0, Math.ceil((conn.retryAt - Date.now()) / 1000)) : 0;
  fill(banner,
    h("strong", {}, "Connection lost. "),
    state === "retrying" ? `Reconnecting in ${seconds} s… ` : "Reconnecting… ",
    state === "retrying" ? h("button", { type: "button", onclick: () => conn.retryNow() }, "Retry now") : null);
}

/** Clocks count down between messages: every element with data-deadline shows the time left. */
function tick() {
  const now = Date.now();
  // Written only when it changed: a text written again alike still costs a layout.
  const put = (el, text) => { if (el.textContent !== text) el.textContent = text; };
  for (const el of root.querySelectorAll("[data-deadline]")) {
    const at = Number(el.dataset.deadline);
    put(el, clock(at - now));
    if (el.classList.contains("low") !== at - now < 10000) el.classList.toggle("low", at - now < 10000);
  }
  for (const el of root.querySelectorAll("[data-since]")) put(el, clock(now - Number(el.dataset.since)));
  for (const el of root.querySelectorAll("[data-range-since]")) {
    put(el, ratingRange(Number(el.dataset.rating), Number(el.dataset.rangeSince)));
  }
}
setInterval(() => {
  tick();
  if (conn.state === "retrying") renderBanner();
}, 250);

// While a press, a tap or a drag is under way the page is not redrawn: an update
// from the server (someone's progress) would replace the element under the
// pointer, and the click or the drop would be lost. It is redrawn when it ends
// (a drag of the card is pointer events too: js/views/play.js). A tap's click
// comes after its pointerup, a frame or more later: the hold lasts until that
// click, or, if none comes (a finger's drag of the card has none), 400 ms after the
// pointer is lifted: longer than any browser's wait for a double tap (300 ms), and
// short enough that the next card of a dragged one is not shown late.
let holdTimer = null;
function release() {
  clearTimeout(holdTimer);
  ctx.hold(false);
}
document.addEventListener("pointerdown", () => {
  ctx.hold(true);
  clearTimeout(holdTimer);
  holdTimer = setTimeout(release, 10000); // never hold for good
}, true);
document.addEventListener("pointerup", () => {
  clearTimeout(holdTimer);
  holdTimer = setTimeout(release, 400);
}, true);
document.addEventListener("pointercancel", release, true);
document.addEventListener("click", () => { if (ctx.held) setTimeout(release, 0); }, true);

// --- small helpers for views ----------------------------------------------------

function announce(text) {
  // Cleared first so that the same text twice is read twice.
  live.textContent = "";
  setTimeout(() => { live.textContent = text; }, 30);
}

const toastTimers = new WeakMap(); // a toast -> the timer that removes it

function toast({ text, kind, topic }) {
  const list = document.getElementById("toasts");
  const item = h("div", { class: `toast ${kind}`, role: kind === "error" ? "alert" : "status" }, text);
  if (topic) item.dataset.topic = topic;
  // A toast of the same topic still shown gives way to this one, in its place.
  const shown = topic ? [...list.children].find((t) => t.dataset.topic === topic) : null;
  if (shown) {
    clearTimeout(toastTimers.get(shown));
    shown.replaceWith(item);
  } else {
    list.append(item);
  }
  toastTimers.set(item, setTimeout(() => item.remove(), kind === "error" ? 8000 : 5000));
}

function confirmDialog(text, yes = "Yes", no = "Cancel") {
  return new Promise((resolve) => {
    const dialog = document.getElementById("confirm");
    fill(dialog,
      h("form", { method: "dialog" },
        h("p", { id: "confirm-text" }, text),
        h("div", { class: "actions" },
          h("button", { value: "no", type: "submit", class: "secondary", autofocus: true }, no),
          h("button", { value: "yes", type: "submit", class: "danger" }, yes))));
    dialog.setAttribute("aria-labelledby", "confirm-text");
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "yes"), { once: true });
    dialog.returnValue = "";
    dialog.showModal();
  });
}

// --- start -----------------------------------------------------------------------

ctx.route = parseRoute();
const token = savedToken();
if (token) signIn({ token });
render();
window.cribsquares = { store, conn }; // for the browser tests and the curious
