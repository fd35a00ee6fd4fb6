// The daily deal (#/daily, #/daily/YYYY-MM-DD): today's commitment and time
// left, one's own attempt (and playing it), the standings, one's streak, the
// schedule; once a day is over, its deal checked by the browser itself and
// one's board against the field's (the server's analysis of it, and where
// everyone else put each card).

import { h } from "../dom.js";
import { cardFace } from "../cards.js";
import { provider } from "../crypto.js";
import { commitment, dealCards, roomSeed } from "../deal.js";
import { CELLS } from "../store.js";
import { asResultBoard, fetched } from "./history.js";
import { scoredBoard } from "./boards.js";
import { dataTable } from "./ui.js";

const checks = new Map(); // day -> {pending} | {ok, checks}

function yesterdayOf(day) {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
}

function left(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  const hours = Math.floor(s / 3600), minutes = Math.floor((s % 3600) / 60);
  return hours ? `${hours} h ${String(minutes).padStart(2, "0")} min` : `${minutes} min ${String(s % 60).padStart(2, "0")} s`;
}

let shownRoute = null;

/** Ask the server for a day (today when none): on arriving at the page, then at
most every 5 s while it is shown (the standings are live). */
function ask(ctx, day) {
  const key = "daily-asked-" + (day || "today");
  const route = window.location.hash;
  if (route !== shownRoute) {
    shownRoute = route;
    ctx.setField(key, false);
  }
  if (ctx.conn.state !== "online" || ctx.field(key, false)) return;
  ctx.setField(key, true);
  ctx.request({ type: "get_daily", top: 100, ...(day ? { day } : {}) }, ["daily"]).catch((err) => {
    ctx.store.dailyRefused.set(day || "today", (err && err.reason) || String(err));
    ctx.render();
  });
  // The standings are live: asked again every 5 s while the page is shown.
  setTimeout(() => { ctx.setField(key, false); if (window.location.hash === route) ctx.render(); }, 5000);
}

export function dailyView(ctx) {
  const { store } = ctx;
  const asked = ctx.route[1] || null;
  ask(ctx, asked);
  const view = asked ? store.dailies.get(asked) : store.dailyToday();
  const title = h("h1", {}, "Daily deal", view ? ` ${view.day}` : "");
  if (!view) {
    const refused = store.dailyRefused.get(asked || "today");
    return h("main", { id: "main" }, title, refused ? h("p", { class: "error" }, refused) : h("p", { role: "status" }, "Loading…"));
  }
  const today = view.day === view.today;
  return h("main", { id: "main", class: "daily" },
    title,
    h("p", { class: "help" }, "One deal a day for everyone (a UTC day). Its commitment, the SHA-256 of the day's secret, is published a week ahead; the secret is revealed when the day is over, and your browser checks that it deals the cards everyone played. One attempt per registered player; scores only, no cards, until midnight UTC."),
    h("nav", { class: "inline-form", "aria-label": "Days" },
      today ? h("a", { class: "button", href: `#/daily/${view.today && yesterdayOf(view.today)}` }, "Yesterday's deal") : h("a", { class: "button", href: "#/daily" }, "Today's deal")),
    h("div", { class: "columns" },
      dayPanel(ctx, view),
      youPanel(ctx, view)),
    view.deal ? dealPanel(ctx, view) : null,
    standingsPanel(view, store.me),
    schedulePanel(view));
}

function dayPanel(ctx, view) {
  const status = {
    upcoming: "to come", open: "open today", closing: "over: an attempt begun before midnight is being finished", over: "over: its deal is revealed",
  }[view.status];
  const received = ctx.store.dailyReceived.get(view.day) || Date.now();
  return h("section", { class: "card-panel", "aria-labelledby": "daily-day-h" },
    h("h2", { id: "daily-day-h" }, view.day, " — ", status),
    view.status === "open" ? h("p", {}, "Ends at midnight UTC, in ", h("strong", {}, left(view.left_ms - (Date.now() - received)))) : null,
    h("p", {}, "Commitment ", h("code", { class: "digest" }, view.commitment || "–")),
    h("p", {}, `${view.players} played, ${view.finished} finished.`));
}

function youPanel(ctx, view) {
  const { store } = ctx;
  const you = view.you;
  if (!you) return null;
  let body;
  if (you.status === "finished") {
    body = [h("p", { class: "result" }, h("strong", {}, `${you.score} points`), `, rank ${you.rank} of ${view.finished}, percentile ${you.percentile}`),
      ownBoard(ctx, you.match_id, you.rank)];
  } else if (you.status === "playing") {
    body = h("p", {}, "Your attempt is being played. ", h("a", { href: `#/room/${encodeURIComponent(you.room_id)}` }, "Back to it"));
  } else if (view.status === "open" && store.me && store.me.guest) {
    body = h("p", {}, "The daily deal is for registered players: sign in with a name to play it.");
  } else if (view.status === "open") {
    body = playForm(ctx);
  } else body = h("p", { class: "muted" }, "You did not play this day.");
  return h("section", { class: "card-panel", "aria-labelledby": "daily-you-h" },
    h("h2", { id: "daily-you-h" }, "You"),
    body,
    h("p", {}, `Streak: ${you.streak} day${you.streak === 1 ? "" : "s"} (longest ${you.longest_streak}).`),
    h("p", { class: "help" }, "A streak counts the days in a row you began the daily deal; not playing today yet keeps yesterday's until midnight."));
}

/** One's own board of the day, asked as oneself (shown to its player while the day
is on; to anyone once it is over), with a link to its replay. */
function ownBoard(ctx, matchId, rank) {
  if (!matchId || !ctx.store.me) return null;
  const got = fetched(ctx, `/api/matches/${encodeURIComponent(matchId)}`, { token: ctx.savedToken() });
  if (got.error) return h("p", { class: "error" }, got.error);
  const match = got.data;
  const board = match && match.boards.find((b) => b.player.id === ctx.store.me.id);
  if (!board || !board.cells) return h("p", { role: "status" }, "Loading your board…");
  return h("div", { class: "daily-board" },
    // ranked in the day's field, not in its room of one
    scoredBoard(ctx, { ...asResultBoard(board, match), rank }, { me: ctx.store.me, pace: match.pace, key: `daily-${matchId}` }),
    h("p", {}, h("a", { href: `#/match/${encodeURIComponent(matchId)}` }, "Replay your attempt")));
}

function playForm(ctx) {
  const pace = ctx.field("daily-pace", "lockstep");
  const seconds = ctx.field("daily-clock", pace === "race" ? "300" : "30");
  const error = ctx.field("daily-error", "");
  const submit = (e) => {
    e.preventDefault();
    const n = Number(seconds);
    const race = pace === "race";
    if (!Number.isInteger(n) || (race ? n < 30 || n > 1800 : n < 5 || n > 120)) {
      ctx.setField("daily-error", race ? "A race clock is 30 to 1800 seconds." : "A card clock is 5 to 120 seconds.");
      ctx.render();
      return;
    }
    ctx.setField("daily-error", "");
    ctx.request({ type: "play_daily", pace, [race ? "deal_clock_ms" : "card_clock_ms"]: n * 1000 }, ["room_state"]).then(
      (state) => ctx.go(`#/room/${encodeURIComponent(state.room.id)}`),
      (err) => { ctx.setField("daily-error", (err && err.reason) || String(err)); ctx.render(); });
  };
  return h("form", { class: "daily-play", onsubmit: submit },
    h("p", {}, "Today's deal, alone, at the pace you choose. One attempt: it counts from its first card, and leaving forfeits it."),
    h("div", { class: "field" }, h("label", { for: "daily-pace" }, "Pace"),
      h("select", { id: "daily-pace", onchange: (e) => { ctx.setField("daily-pace", e.target.value); ctx.setField("daily-clock", e.target.value === "race" ? "300" : "30"); ctx.render(); } },
        h("option", { value: "lockstep", selected: pace === "lockstep" ? "" : null }, "lockstep: a clock for each card"),
        h("option", { value: "race", selected: pace === "race" ? "" : null }, "race: one clock for the deal"))),
    h("div", { class: "field" }, h("label", { for: "daily-clock" }, pace === "race" ? "Seconds for the deal" : "Seconds a card"),
      h("input", { id: "daily-clock", inputmode: "numeric", value: seconds, maxlength: 4, oninput: (e) => ctx.setField("daily-clock", e.target.value) })),
    error ? h("p", { class: "error", role: "alert" }, error) : null,
    h("button", { type: "submit", class: "primary" }, "Play today's deal"));
}

/** Why the standings show no scores: the server holds them back from a player who may
still play the day. */
function heldNote(view) {
  if (view.scores_shown !== false) return null;
  const you = view.you;
  const why = you && you.status === "playing" ? "The field's scores once your attempt is over."
    : you ? "Play today's deal to see the field's scores (or wait for midnight UTC)."
      : "The field's scores once the day is over.";
  return h("p", { class: "help held-scores", role: "status" }, why);
}

function standingsPanel(view, me) {
  return h("section", { class: "card-panel", "aria-labelledby": "daily-standings-h" },
    h("h2", { id: "daily-standings-h" }, view.status === "over" ? "Final standings" : "Standings (live: scores only)"),
    heldNote(view),
    !view.standings.length ? h("p", { class: "empty" }, "Nobody has played this day yet.") : dataTable({ cls: "daily-standings",
      columns: [{ title: "Rank", num: true }, { title: "Player" }, { title: "Score", num: true }, { title: "Percentile", num: true }, { title: "Streak", num: true }, { title: "Pace" }],
      rows: view.standings.map((e) => ({ attrs: { class: me && e.player.id === me.id ? "mine" : null }, cells: [
        e.rank == null ? (e.status === "playing" ? "…" : "") : String(e.rank),
        [e.player.name, e.player.bot ? h("span", { class: "tag" }, "bot") : null, me && e.player.id === me.id ? h("span", { class: "tag" }, "you") : null],
        e.status === "playing" ? "playing" : e.score == null ? "done" : String(e.score),
        e.percentile == null ? "" : `${e.percentile}%`,
        String(e.streak), e.pace] })) }));
}

function schedulePanel(view) {
  return h("section", { class: "card-panel", "aria-labelledby": "daily-schedule-h" },
    h("h2", { id: "daily-schedule-h" }, "The schedule"),
    h("p", { class: "help" }, "Each day's commitment, published at least seven days ahead; its secret once the day is over."),
    h("div", { class: "table-scroll" }, h("table", { class: "daily-schedule" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Day"), h("th", { scope: "col" }, "Commitment / secret"))),
      h("tbody", {}, view.schedule.map((d) => h("tr", { class: d.day === view.today ? "mine" : "" },
        h("td", {}, d.day, d.day === view.today ? h("span", { class: "tag" }, "today") : null),
        h("td", {}, h("code", { class: "digest" }, d.commitment), d.secret ? h("div", {}, "secret ", h("code", { class: "digest" }, d.secret)) : null)))))));
}

/** The day's deal, checked here, and one's board against the field's. */
function dealPanel(ctx, view) {
  const deal = view.deal;
  const check = checks.get(view.day);
  if (!check) {
    checks.set(view.day, { pending: true });
    checkDay(view, ctx.store.dailyCommitments.get(view.day) || view.commitment).then((found) => { checks.set(view.day, found); ctx.render(); });
  }
  const you = view.you;
  const mine = you && you.cells ? Object.fromEntries(you.cells.map((c, i) => [c, CELLS[i]])) : null;
  const analysed = you && you.match_id && you.status === "finished" && ctx.store.me
    ? fetched(ctx, `/api/matches/${encodeURIComponent(you.match_id)}/analysis?player=${encodeURIComponent(ctx.store.me.id)}`) : null;
  const a = analysed && analysed.data ? analysed.data : null;
  const best = a ? a.hindsight.placements : null;
  let lost = null;
  if (a) {
    lost = h("p", { class: "lost" }, h("strong", {}, `You lost ${a.hindsight.score - a.score} points`),
      ` to the hindsight best (${a.hindsight.score}); expected loss against the expert ${a.total_loss.toFixed(1)}.`);
  } else if (analysed && analysed.loading) lost = h("p", { role: "status" }, "The server is analysing your board (a few seconds)…");
  else if (analysed && analysed.error) lost = h("p", { class: "error" }, analysed.error);
  return h("section", { class: "card-panel", "aria-labelledby": "daily-deal-h" },
    h("h2", { id: "daily-deal-h" }, "The deal, against the field"),
    h("p", { class: "deal-cards" }, deal.cards.map((c) => cardFace(c)), " starter ", cardFace(deal.starter)),
    verifyPanel(check),
    lost,
    dataTable({ cls: "daily-field",
      columns: [{ title: "Turn", num: true }, { title: "Card" }, { title: "You" }, ...(best ? [{ title: "Best" }] : []), { title: "Where the field put it" }],
      rows: deal.cards.map((card, i) => {
        const counts = deal.field[i];
        const total = counts.reduce((sum, n) => sum + n, 0) || 1;
        const top = counts.map((n, c) => [n, c]).filter(([n]) => n).sort((x, y) => y[0] - x[0] || x[1] - y[1]).slice(0, 4);
        const you = mine ? mine[card] : null;
        return { cells: [String(i + 1), cardFace(card), you || "–",
          ...(best ? [h("span", { class: best[i] === you ? "ok" : "" }, best[i])] : []),
          top.map(([n, c]) => h("span", { class: `share${CELLS[c] === you ? " mine" : ""}` }, `${CELLS[c]} ${Math.floor((100 * n) / total)}%`))] };
      }) }));
}

function verifyPanel(check) {
  if (!check || check.pending) return h("section", { class: "verify pending", role: "status" }, "Checking the deal…");
  return h("section", { class: `verify ${check.ok ? "ok" : "bad"}`, role: "status", "aria-label": "Deal check" },
    h("p", { class: "verdict" }, check.ok ? "✔ deal verified" : "✖ DEAL NOT VERIFIED"),
    h("ul", {}, check.checks.map((c) => h("li", { class: c.ok ? "pass" : "fail" }, c.ok ? "✔ " : "✖ ", c.label))),
    h("p", { class: "help" }, `Checked by this page (${provider() === "webcrypto" ? "WebCrypto" : "JavaScript SHA-256"}).`));
}

async function checkDay(view, firstTold) {
  const d = view.deal;
  const out = [];
  try {
    const label = firstTold === view.commitment
      ? "the day's secret matches its commitment, as this browser was first told it"
      : "the day's commitment is not the one this browser was told before";
    out.push({ label, ok: (await commitment(d.secret)) === view.commitment && firstTold === view.commitment });
    const seed = await roomSeed(d.secret, [d.contribution]);
    out.push({ label: `the seed is room_seed(secret, [${d.contribution}])`, ok: seed === d.seed && d.contribution === view.day });
    const cards = await dealCards(seed);
    out.push({ label: "it deals these 16 cards and this starter", ok: cards.slice(0, 16).join() === d.cards.join() && cards[16] === d.starter });
  } catch (err) {
    out.push({ label: `the deal could not be checked: ${err}`, ok: false });
  }
  return { ok: out.every((c) => c.ok), checks: out };
}
