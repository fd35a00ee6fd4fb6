// A player's page (matches with opponents and results, ratings and their
// chart, abandonments) and a match's replay, move by move, with the deal
// checked from the stored seed and the engine's analysis of a board.

import { h, svg, when } from "../dom.js";
import { cardFace, cardName } from "../cards.js";
import { provider } from "../crypto.js";
import { verifyResult } from "../deal.js";
import { CELLS } from "../store.js";
import { scoredBoard, staticGrid, tieRule, verificationPanel } from "./boards.js";
import { dealOutcome } from "./outcome.js";
import { count, dataTable, fold } from "./ui.js";

const cache = new Map(); // url -> {status, data, error}

/** GET a JSON document of the HTTP API once per visit; render again when it arrives. */
export function fetched(ctx, url, { again = false, token = null } = {}) {
  // Asked with the player's own token, an answer may hold more (its private games):
  // kept apart from the answer anyone gets.
  const key = token ? `${url} (as you)` : url;
  const known = cache.get(key);
  if (known && !again) return known;
  const entry = known && again ? { ...known, loading: true } : { loading: true };
  cache.set(key, entry);
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  fetch(url, { headers })
    .then(async (response) => {
      const body = await response.json().catch(() => null);
      if (response.status === 202) {
        // The server is computing it: ask again when it says.
        const wait = Number(response.headers.get("Retry-After") || 2);
        cache.set(key, { loading: true, computing: true });
        setTimeout(() => { if (cache.get(key) && cache.get(key).computing) fetched(ctx, url, { again: true, token }); }, wait * 1000);
        return;
      }
      if (!response.ok) {
        const retry = response.status === 503 ? Number(response.headers.get("Retry-After") || 5) : null;
        cache.set(key, { error: (body && body.error && body.error.reason) || `HTTP ${response.status}`, status: response.status, retry });
      } else cache.set(key, { data: body, status: response.status });
    })
    .catch((error) => cache.set(key, { error: String(error) }))
    .finally(() => ctx.render());
  return entry;
}

export function forget(url) {
  cache.delete(url);
}

// --- the player's page ---------------------------------------------------------

let shownVisit = null;

export function playerView(ctx) {
  const who = ctx.route[1];
  // Asked again on every visit: a game played since shows when one comes back.
  const fresh = shownVisit !== ctx.visit;
  shownVisit = ctx.visit;
  // One's own page is asked with one's token: every game one sat in, private rooms too.
  const own = ctx.store.me && (who === ctx.store.me.name || who === ctx.store.me.id);
  const token = own ? ctx.savedToken() : null;
  const matches = fetched(ctx, `/api/players/${encodeURIComponent(who)}/matches`, { again: fresh, token });
  const ratings = fetched(ctx, `/api/players/${encodeURIComponent(who)}/ratings`, { again: fresh });
  if (matches.error) return h("main", { id: "main" }, h("h1", {}, who), h("p", { class: "error" }, matches.error));
  if (!matches.data) return h("main", { id: "main" }, h("h1", {}, who), h("p", { role: "status" }, "Loading…"));
  const p = matches.data.player;
  const me = ctx.store.me && ctx.store.me.id === p.id;
  const ab = matches.data.abandoned;
  return h("main", { id: "main", class: "player-page" },
    h("h1", {}, p.name, p.bot ? h("span", { class: "tag" }, "bot") : null, p.guest ? h("span", { class: "tag" }, "guest") : null, me ? h("span", { class: "tag" }, "you") : null),
    ratings.data ? ratingsSection(ratings.data) : null,
    h("p", {}, `Abandoned: ${ab.left} left, ${ab.timeout} timed out.`),
    h("section", { class: "card-panel", "aria-labelledby": "matches-h" },
      h("h2", { id: "matches-h" }, `Matches (${matches.data.matches.length}, newest first)`),
      matches.data.all ? h("p", { class: "help" }, "All your games, private rooms and bots included; others see only the public ones.") : null,
      matches.data.matches.length === 0 ? h("p", { class: "empty" }, "No match yet.") :
        dataTable({ cls: "matches", columns: [{ title: "When" }, { title: "Room" }, { title: "Pace" }, { title: "Opponents" }, { title: "Rank" }, { title: "Points", num: true }, { title: "Replay", hidden: true }],
          rows: matches.data.matches.map((m) => ({ cells: [
            when(m.started_ms), m.room, m.pace,
            m.opponents.length === 0 ? h("span", { class: "muted" }, "solo") : m.opponents.map((o, i) => [
              i ? ", " : "", h("a", { href: `#/player/${encodeURIComponent(o.player.id)}` }, o.player.name), o.player.bot ? h("span", { class: "tag" }, "bot") : null,
              o.score != null ? ` (${o.score})` : ""]),
            [m.rank != null ? `${m.rank} of ${m.players}` : m.status, seriesEnd(m, p, me)],
            m.score != null ? String(m.score) : "",
            m.status === "finished" ? h("a", { href: `#/match/${encodeURIComponent(m.match_id)}`, "aria-label": `Replay the match of ${when(m.started_ms)}` }, "Replay") : m.status] })) })),
    ratings.data ? ratingHistory(ctx, ratings.data) : null);
}

/** On a series' last deal, how the series ended for the page's player, as the terminal
 * client says it: "won the series 2–1", "lost the series 1–1, you resigned". */
function seriesEnd(m, p, me) {
  const s = m.series;
  if (!s || s.deal !== s.deals) return null;
  if (s.status === "aborted") return h("span", { class: "series-end" }, "; series aborted");
  const mine = (s.standings || []).find((x) => x.player_id === p.id);
  const other = (s.standings || []).find((x) => x !== mine);
  if (s.status !== "finished" || !mine || !other) return null;
  const score = `${mine.deals_won}–${other.deals_won}`;
  const said = s.winner_id == null ? `series drawn ${score}` : `${s.winner_id === p.id ? "won" : "lost"} the series ${score}`;
  const names = new Map(m.opponents.map((o) => [o.player.id, o.player.name]));
  const gone = s.standings.filter((x) => x.forfeited).map((x) => (x === mine ? (me ? "you" : p.name) : names.get(x.player_id) || "?"));
  return h("span", { class: "series-end" }, `; ${said}${gone.length ? `, ${gone.join(" and ")} resigned` : ""}`);
}

function ratingsSection(data) {
  const paces = Object.entries(data.ratings);
  return h("section", { class: "card-panel", "aria-labelledby": "ratings-h" },
    h("h2", { id: "ratings-h" }, "Ratings"),
    paces.length === 0 ? h("p", { class: "empty" }, "No rated series yet.") :
      h("ul", {}, paces.map(([pace, r]) => h("li", {}, `${pace}: ${Math.round(r.rating)} ± ${Math.round(r.deviation)}, ${count(r.games, "game")}${r.provisional ? ", provisional" : ""}`))),
    data.history.length ? ratingChart(data.history) : null);
}

/** Every rated series, newest first: the player's own rating before and after, then the opponent. */
function ratingHistory(ctx, data) {
  if (!data.history.length) return null;
  return h("section", { class: "card-panel", "aria-labelledby": "rh-h" }, h("h2", { id: "rh-h" }, "Rating history"),
    fold(ctx, `rating-history-${ctx.route[1]}`, `${count(data.history.length, "rated series", "rated series")}`,
      dataTable({ cls: "rating-history", columns: [{ title: "When" }, { title: "Pace" }, { title: "Rating" }, { title: "Result" }, { title: "Opponent" }],
        rows: data.history.slice().sort((a, b) => b.at_ms - a.at_ms).map((e) => ({ cells: [when(e.at_ms), e.pace, `${e.before} → ${e.after}`, e.result, e.opponent || ""] })) })));
}

/** The rating after each rated series, oldest first, one line per pace (SVG). */
export function ratingChart(history) {
  const W = 640, H = 240, L = 48, R = 12, T = 12, B = 28;
  const events = history.slice().sort((a, b) => a.at_ms - b.at_ms);
  const values = events.flatMap((e) => [e.before, e.after]);
  let lo = Math.min(...values), hi = Math.max(...values);
  if (hi - lo < 50) { lo -= 25; hi += 25; }
  const x = (i) => L + ((W - L - R) * i) / Math.max(1, events.length);
  const y = (v) => T + ((H - T - B) * (hi - v)) / (hi - lo);
  const children = [
    svg("title", {}, "Rating after each rated series"),
    svg("line", { class: "axis", x1: L, y1: T, x2: L, y2: H - B }),
    svg("line", { class: "axis", x1: L, y1: H - B, x2: W - R, y2: H - B }),
    svg("text", { x: L - 6, y: y(hi) + 4, "text-anchor": "end" }, String(Math.round(hi))),
    svg("text", { x: L - 6, y: y(lo) + 4, "text-anchor": "end" }, String(Math.round(lo))),
    svg("text", { x: L, y: H - 8 }, events.length ? new Date(events[0].at_ms).toLocaleDateString() : ""),
    svg("text", { x: W - R, y: H - 8, "text-anchor": "end" }, `${events.length} rated series`),
  ];
  for (const pace of ["lockstep", "race"]) {
    const points = [];
    events.forEach((e, i) => {
      if (e.pace !== pace) return;
      if (!points.length) points.push([x(i), y(e.before), e.before, e]);
      points.push([x(i + 1), y(e.after), e.after, e]);
    });
    if (!points.length) continue;
    children.push(svg("polyline", { class: `line ${pace}`, points: points.map(([px, py]) => `${px.toFixed(1)},${py.toFixed(1)}`).join(" ") }));
    for (const [px, py, v, e] of points) {
      children.push(svg("circle", { class: `dot ${pace}`, cx: px.toFixed(1), cy: py.toFixed(1), r: 3.5 },
        svg("title", {}, `${pace}: ${v} (${e.result} against ${e.opponent || "?"})`)));
    }
  }
  const legend = h("p", { class: "help" }, "Solid: lockstep; dashed: race.");
  return h("figure", {}, svg("svg", { class: "chart", viewBox: `0 0 ${W} ${H}`, role: "img",
    "aria-label": `Rating chart: ${events.map((e) => `${e.pace} ${e.after}`).join(", ")}` }, children), legend);
}

// --- the replay ------------------------------------------------------------------

const replay = { id: null, step: 16, timer: null, analysed: null, verification: null, verifying: false };

export function replayView(ctx) {
  const id = ctx.route[1];
  if (replay.id !== id) {
    clearInterval(replay.timer);
    Object.assign(replay, { id, step: 0, timer: null, analysed: null, verification: null, verifying: false });
  }
  const fresh = replay.visit !== ctx.visit; // asked again on every visit: an embargo may be lifted since
  replay.visit = ctx.visit;
  // Asked as oneself: a player of a deal still under an embargo is shown its own table.
  const got = fetched(ctx, `/api/matches/${encodeURIComponent(id)}`, { again: fresh, token: ctx.store.me ? ctx.savedToken() : null });
  if (got.error) return h("main", { id: "main" }, h("h1", {}, "Replay"), h("p", { class: "error" }, got.error));
  if (!got.data) return h("main", { id: "main" }, h("h1", {}, "Replay"), h("p", { role: "status" }, "Loading…"));
  const match = got.data;
  if (match.status !== "finished") {
    return h("main", { id: "main" }, h("h1", {}, "Replay"), h("p", {}, "This match is still being played: its boards are shown once it is over."));
  }
  if (match.embargoed && !match.boards.every((b) => b.placements)) {
    return h("main", { id: "main" }, h("h1", {}, "Replay"), h("p", {}, embargoWords()));
  }
  if (match.embargoed) {
    replay.verification = null; // the seed is revealed with the lift: checked then
  } else if (!replay.verification && !replay.verifying) checkStored(ctx, match);
  const boards = match.boards.slice().sort((a, b) => a.rank - b.rank || a.seat - b.seat);
  const step = replay.step;
  const setStep = (n) => { replay.step = Math.max(0, Math.min(16, n)); ctx.render(); };
  const analysis = replay.analysed ? fetched(ctx, replay.analysed) : null;
  const review = analysis && analysis.data ? analysis.data.moves.find((m) => m.turn === step) : null;
  const dealt = boards[0].placements.slice().sort((a, b) => a.turn - b.turn).map((p) => p.card);
  replay.setStep = setStep;
  replay.ctx = ctx;
  return h("main", { id: "main", class: "replay-page" },
    h("h1", {}, `Replay: ${match.room ? match.room.name : match.match_id}`),
    h("p", {}, `${match.pace}, deal ${match.deal}, ${when(match.started_ms)}. `, tieRule(match.pace)),
    h("div", { class: "replay-controls", role: "group", "aria-label": "Replay controls" },
      h("button", { type: "button", dataset: { key: "rp-first" }, onclick: () => setStep(0), "aria-label": "First placement" }, "« First"),
      h("button", { type: "button", dataset: { key: "rp-prev" }, onclick: () => setStep(step - 1), "aria-label": "Previous placement" }, "◀"),
      h("button", { type: "button", dataset: { key: "rp-play" }, onclick: () => {
        if (replay.timer) { clearInterval(replay.timer); replay.timer = null; ctx.render(); return; }
        if (replay.step >= 16) replay.step = 0;
        replay.timer = setInterval(() => { if (replay.step >= 16) { clearInterval(replay.timer); replay.timer = null; } else replay.step += 1; ctx.render(); }, 700);
        ctx.render();
      } }, replay.timer ? "Pause" : "Play"),
      h("button", { type: "button", dataset: { key: "rp-next" }, onclick: () => setStep(step + 1), "aria-label": "Next placement" }, "▶"),
      h("button", { type: "button", dataset: { key: "rp-last" }, onclick: () => setStep(16), "aria-label": "After the last card" }, "Last »"),
      h("label", { for: "rp-step", class: "visually-hidden" }, "Placement"),
      h("input", { id: "rp-step", type: "range", min: 0, max: 16, value: step, dataset: { key: "rp-step" }, oninput: (e) => setStep(Number(e.target.value)) }),
      h("span", { role: "status", "aria-live": "polite" }, step === 0 ? "before the first card" : `after card ${step}: ${cardName(dealt[step - 1])}`)),
    review ? h("p", { class: "review" }, `Card ${step} (${cardName(review.card)}): played ${review.played}, the expert would play ${review.bot}; expected loss ${review.loss.toFixed(2)} points.`) : null,
    step < 16
      ? h("div", { class: "boards replay-boards pair" }, boards.map((b) => {
        const cells = Array(16).fill(null);
        let last = null;
        for (const p of b.placements) if (p.turn <= step) { cells[CELLS.indexOf(p.cell)] = p.card; if (p.turn === step) last = p.cell; }
        const marks = review && analysis.data.player.id === b.player.id ? { [review.bot]: "expert" } : null;
        return h("article", { class: "result-board" }, h("h3", {}, b.player.name, b.player.bot ? h("span", { class: "tag" }, "bot") : null), staticGrid(cells, { label: `${b.player.name}'s board after card ${step}`, highlight: last, marks }));
      }))
      : h("div", {}, h("p", {}, "Starter ", cardFace(match.starter), " ", cardName(match.starter)),
        replayOutcome(ctx, match, boards),
        h("div", { class: "boards results-like" }, boards.map((b) => scoredBoard(ctx, asResultBoard(b, match), { me: ctx.store.me, pace: match.pace, key: `replay-${match.match_id}` })))),
    match.embargoed
      ? h("p", { class: "verify pending", role: "status" }, "Your own table. The deal is checked here once ", embargoEnd(), ": its seed is revealed then.")
      : verificationPanel(replay.verification, provider(), ctx, `replay-checks-${match.match_id}`),
    match.embargoed ? null : analysisSection(ctx, match, boards, analysis));
}

/** When a deal under an embargo is shown whole. */
function embargoEnd() {
  return "nobody can still play it (for the daily deal, once the day is over; for a tournament, once its round is)";
}

function embargoWords() {
  return `Others may still play this deal, so its cards and scores are shown once ${embargoEnd()}.`;
}

/** The deal's outcome in the words of its live result: the server's stored ranking
notes (a resignation, a tie broken on time used) where the score did not decide. */
function replayOutcome(ctx, match, boards) {
  const result = { boards: boards.map((b) => asResultBoard(b, match)), ranking: match.ranking || [] };
  const outcome = dealOutcome(result, ctx.store.me, match.pace);
  return h("div", { class: "replay-outcome" },
    h("p", {}, h("strong", {}, outcome.headline)),
    outcome.detail ? h("p", { class: "outcome-detail" }, outcome.detail) : null);
}

export function asResultBoard(b, match) {
  return { player: b.player, seat: b.seat, rank: b.rank, cells: b.cells, placements: b.placements, score: b.detail, time_used_ms: b.time_used_ms, pace: match.pace };
}

async function checkStored(ctx, match) {
  replay.verifying = true;
  const result = { ...match, deal: 1, boards: match.boards };
  const { checks } = await verifyResult(result, { contributions: match.contributions, serverCommitment: match.server_commitment });
  replay.verification = { pending: false, checks, ok: checks.length > 0 && checks.every((c) => c.ok) };
  replay.verifying = false;
  ctx.render();
}

function analysisSection(ctx, match, boards, analysis) {
  const me = ctx.store.me;
  const mine = boards.find((b) => me && b.player.id === me.id);
  const chosen = ctx.field("analyse-who", (mine || boards[0]).player.id);
  const controls = h("div", { class: "inline-form" },
    h("label", { for: "analyse-who" }, "Board"),
    h("select", { id: "analyse-who", dataset: { key: "analyse-who" }, onchange: (e) => { ctx.setField("analyse-who", e.target.value); } },
      boards.map((b) => h("option", { value: b.player.id, selected: b.player.id === chosen }, b.player.name + (b.player.bot ? " (bot)" : "")))),
    h("button", { type: "button", class: "primary", dataset: { key: "analyse" }, onclick: () => {
      const who = document.getElementById("analyse-who").value;
      ctx.setField("analyse-who", who);
      replay.analysed = `/api/matches/${encodeURIComponent(match.match_id)}/analysis?player=${encodeURIComponent(who)}`;
      forget(replay.analysed);
      ctx.render();
    } }, "Analyse"));
  let body = null;
  if (analysis && analysis.loading) body = h("p", { role: "status" }, "The server is analysing the board (a few seconds)…");
  else if (analysis && analysis.error) {
    body = h("p", { class: "error" }, analysis.error,
      analysis.retry ? h("button", { type: "button", class: "small", onclick: () => { forget(replay.analysed); ctx.render(); } }, "Try again") : null);
  } else if (analysis && analysis.data) body = analysisBody(analysis.data);
  return h("section", { class: "card-panel", "aria-labelledby": "analysis-h" },
    h("h2", { id: "analysis-h" }, "Analysis"),
    h("p", { class: "help" }, "The hindsight best board (knowing every card) and, move by move, the cell the expert bot would have chosen and the points the move is expected to have lost."),
    controls, body);
}

function analysisBody(a) {
  const played = Array(16).fill(null);
  a.placements.forEach((cell, i) => { played[CELLS.indexOf(cell)] = a.cards[i]; });
  const best = a.hindsight;
  const costly = a.moves.slice().filter((m) => m.loss >= 0.5).sort((x, y) => y.loss - x.loss || x.turn - y.turn).slice(0, 3).map((m) => m.turn);
  const method = best.optimal ? "proved optimal" : `the best found within the search budget${best.upper_bound != null ? ` (at most ${best.upper_bound} is possible)` : ""}`;
  const marks = {};
  CELLS.forEach((name, i) => { if (played[i] !== best.cells[i]) marks[name] = "differs"; });
  const differ = Object.keys(marks).length;
  return h("div", { class: "analysis" },
    h("div", { class: "pair side-by-side" },
      h("figure", {}, h("figcaption", {}, `${a.player.name}'s board: ${a.score} points`), staticGrid(played, { label: `${a.player.name}'s board`, marks })),
      h("figure", {}, h("figcaption", {}, `Hindsight best: ${best.score} points, ${method}`), staticGrid(best.cells, { label: "the hindsight best board", marks }))),
    h("p", {}, `${best.score - a.score} points between them; ${differ === 0 ? "every card is where the best board has it" : `${count(differ, "cell")} hold${differ === 1 ? "s" : ""} another card (marked ≠)`}; the moves are expected to have lost ${a.total_loss.toFixed(2)} points in all.`),
    dataTable({ cls: "moves", columns: [{ title: "Turn", num: true }, { title: "Card" }, { title: "Played" }, { title: "Expert" }, { title: "Expected loss", num: true }],
      rows: a.moves.map((m) => ({ attrs: { class: [m.turn === replay.step ? "current" : "", costly.includes(m.turn) ? "costly" : ""].join(" ").trim() || null },
        cells: [String(m.turn), cardFace(m.card), m.played, m.bot, [m.loss.toFixed(2), costly.includes(m.turn) ? " ◀" : ""]] })) }));
}

// ← → (or b, n), Home and End step through the replay from anywhere on its page.
document.addEventListener("keydown", (e) => {
  const ctx = replay.ctx;
  if (!ctx || ctx.route[0] !== "match" || !replay.setStep) return;
  const t = e.target;
  if (t && (t.tagName === "SELECT" || t.tagName === "TEXTAREA" || (t.tagName === "INPUT" && t.type !== "range"))) return;
  if (t && t.type === "range" && (e.key === "ArrowRight" || e.key === "ArrowLeft")) return; // the slider moves itself
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const moves = { ArrowRight: 1, n: 1, ArrowLeft: -1, b: -1 };
  if (e.key in moves) { e.preventDefault(); replay.setStep(replay.step + moves[e.key]); }
  if (e.key === "Home") { e.preventDefault(); replay.setStep(0); }
  if (e.key === "End") { e.preventDefault(); replay.setStep(16); }
});
