// Tournaments: the list and a new one with every option, one tournament's
// page (register, withdraw, watch; live standings per format; the round's
// tables, to watch; the knockout bracket; the host's controls) and the
// projector view, full screen, which follows the tournament live.

import { h } from "../dom.js";
import { freshContribution } from "../store.js";
import { pager } from "./lobby.js";
import { fetched } from "./history.js";
import { dataTable, formatName, levelSelect, panning } from "./ui.js";


function field(ctx, id, label, input) {
  return h("div", { class: "field" }, h("label", { for: id }, label), input);
}

function val(ctx, id, fallback) {
  return ctx.field(id, fallback);
}

function input(ctx, id, fallback, attrs = {}) {
  return h("input", { id, value: val(ctx, id, fallback), dataset: { key: id }, oninput: (e) => ctx.setField(id, e.target.value), ...attrs });
}

function choose(ctx, id, options, fallback) {
  return h("select", { id, dataset: { key: id }, onchange: (e) => ctx.setField(id, e.target.value) },
    options.map(([v, t]) => h("option", { value: v, selected: String(val(ctx, id, fallback)) === String(v) }, t)));
}

function tick(ctx, id, label, fallback) {
  return h("div", { class: "field check" },
    h("input", { id, type: "checkbox", checked: val(ctx, id, fallback), dataset: { key: id }, onchange: (e) => ctx.setField(id, e.target.checked) }),
    h("label", { for: id }, label));
}

export function tournamentListView(ctx) {
  const { store } = ctx;
  const list = store.tournaments;
  const paging = pager(ctx, "tournament-pages", "list_tournaments", store.tournamentsPage, "tournaments");
  const mine = (t) => store.tournament.has(t.id) && store.me && store.tournament.get(t.id).info.entrants.some((e) => e.player.id === store.me.id);
  return h("main", { id: "main" },
    h("h1", {}, "Tournaments"),
    h("section", { class: "card-panel", "aria-labelledby": "tl-h" },
      h("div", { class: "section-head" }, h("h2", { id: "tl-h" }, "Public tournaments"),
        h("button", { type: "button", class: "small", onclick: paging.refresh }, "Refresh")),
      !list ? h("p", { role: "status" }, "Loading…") : list.length === 0 ? h("p", { class: "empty" }, "No public tournament right now: host one below.") :
        dataTable({ cls: "tournaments", columns: [{ title: "Name" }, { title: "Format" }, { title: "Pace" }, { title: "Rounds" }, { title: "Entrants" }, { title: "Status" }, { title: "Starts" }, { title: "Host" }],
          rows: list.map((t) => ({ cells: [
            [h("a", { href: `#/t/${encodeURIComponent(t.id)}` }, t.name), mine(t) ? h("span", { class: "tag" }, "✔ in") : null],
            formatName(t), t.pace, t.length || String(t.rounds),
            `${t.entrants}/${t.max_players}`, t.status === "playing" ? `round ${t.round}` : t.status,
            t.starts_ms != null ? h("span", { dataset: { deadline: Date.now() + t.starts_ms } }) : t.status === "registering" ? "by the host" : "",
            t.host.name] })) }),
      paging.controls),
    pastTournaments(ctx),
    h("section", { class: "card-panel", "aria-labelledby": "tj-h" }, h("h2", { id: "tj-h" }, "A private tournament"),
      h("form", { class: "inline-form", onsubmit: (e) => {
        e.preventDefault();
        const code = val(ctx, "t-invite", "").trim();
        if (code) ctx.go(`#/tjoin/${encodeURIComponent(code)}`);
      } }, h("label", { for: "t-invite" }, "Invite code"), input(ctx, "t-invite", "", { autocomplete: "off" }), h("button", { type: "submit" }, "Open"))),
    createTournament(ctx));
}

const LIST_STATUSES = [["finished", "Finished"], ["cancelled", "Cancelled"], ["registering", "Registering"], ["playing", "Playing"], ["paused", "Paused"]];

/** The server's winners of a finished tournament, as one phrase ("" when none). */
export function wonBy(winners) {
  const names = (winners || []).map((w) => w.name);
  if (!names.length) return "";
  if (names.length === 1) return `won by ${names[0]}`;
  return `won by ${names.slice(0, -1).join(", ")} and ${names[names.length - 1]} (shared)`;
}

/** Every public tournament of one status the server stored (finished by default,
with its winners), newest first: GET /api/tournaments?status=S. */
function pastTournaments(ctx) {
  const status = val(ctx, "t-status", "finished");
  const url = `/api/tournaments?status=${encodeURIComponent(status)}&limit=50`;
  // Asked again when the status changes and on every visit of the page.
  const asked = `${ctx.visit} ${status}`;
  const shown = fetched(ctx, url, { again: ctx.field("t-status-asked", null) !== asked });
  ctx.setField("t-status-asked", asked);
  const rows = shown.data ? shown.data.tournaments : null;
  return h("section", { class: "card-panel", "aria-labelledby": "tp-h" },
    h("div", { class: "section-head" }, h("h2", { id: "tp-h" }, "All tournaments by status"),
      h("div", { class: "inline-form" }, h("label", { for: "t-status" }, "Status"),
        h("select", { id: "t-status", dataset: { key: "t-status" }, onchange: (e) => { ctx.setField("t-status", e.target.value); ctx.render(); } },
          LIST_STATUSES.map(([v, t]) => h("option", { value: v, selected: v === status }, t))))),
    shown.error ? h("p", { class: "error" }, shown.error) : !rows ? h("p", { role: "status" }, "Loading…") :
      rows.length === 0 ? h("p", { class: "empty" }, `No public tournament ${status}.`) :
        dataTable({
          cls: "tournaments",
          columns: [{ title: "Name" }, { title: "Format" }, { title: "Pace" }, { title: "Entrants", num: true }, { title: "Rounds", num: true }, { title: "Result" }, { title: "Host" }],
          rows: rows.map((t) => ({ cells: [
            h("a", { href: `#/t/${encodeURIComponent(t.id)}` }, t.name), formatName(t), t.settings.pace,
            String(t.entrants), String(t.rounds_played), wonBy(t.winners) || t.status, t.host.name] })),
        }));
}

/** The form offers what the server's welcome says of each format it hosts: what
its rounds count, the deals a table may play, whether late entries apply. */
function offered(ctx) {
  const offers = ctx.store.formats;
  const name = val(ctx, "tc-format", offers.length ? offers[0].format : undefined);  // none: the server's default
  return { offers, offer: offers.find((o) => o.format === name) || null, name };
}

function createTournament(ctx) {
  const seconds = (id, fallback) => Math.round(Number(val(ctx, id, fallback)) * 1000);
  const { offers, offer, name } = offered(ctx);
  const bestOf = offer ? offer.best_of : [1];
  // The deals a table plays: the one chosen, if this format offers it (read when sent).
  const chosenBest = () => (bestOf.includes(Number(val(ctx, "tc-bestof", 1))) ? Number(val(ctx, "tc-bestof", 1)) : bestOf[0]);
  const pickFormat = (e) => { ctx.setField("tc-format", e.target.value); ctx.render(); };
  return h("section", { class: "card-panel", "aria-labelledby": "tc-h" },
    h("h2", { id: "tc-h" }, "Host a tournament"),
    h("form", { class: "grid-form", onsubmit: async (e) => {
      e.preventDefault();
      const startIn = String(val(ctx, "tc-start", "")).trim();
      const roundClock = String(val(ctx, "tc-round", "")).trim();
      const message = {
        type: "create_tournament",
        name: val(ctx, "tc-name", "").trim() || `${ctx.store.me.name}'s tournament`,
        format: name,
        rounds: Number(val(ctx, "tc-rounds", 5)),
        best_of: chosenBest(),
        pace: val(ctx, "tc-pace", "lockstep"),
        card_clock_ms: seconds("tc-card", 30),
        deal_clock_ms: seconds("tc-deal", 300),
        max_players: Number(val(ctx, "tc-max", 64)),
        visibility: val(ctx, "tc-private", false) ? "private" : "public",
        bots: val(ctx, "tc-bots", true),
        late_join: offer ? offer.late_join && val(ctx, "tc-late", true) : val(ctx, "tc-late", true),
        ...(startIn ? { start_in_ms: Math.round(Number(startIn) * 60000) } : {}),
        ...(roundClock ? { round_clock_ms: Math.round(Number(roundClock) * 60000) } : {}),
      };
      try {
        const reply = await ctx.request(message, ["tournament"]);
        ctx.go(`#/t/${encodeURIComponent(reply.tournament.id)}`);
      } catch { /* shown */ }
    } },
      field(ctx, "tc-name", "Name", input(ctx, "tc-name", "", { maxlength: 40 })),
      field(ctx, "tc-format", "Format",
        h("select", { id: "tc-format", dataset: { key: "tc-format" }, onchange: pickFormat },
          offers.map((o) => h("option", { value: o.format, selected: o.format === name }, o.title)))),
      offer && !offer.rounds ? h("p", { class: "help" }, `A ${offer.title} plays as many rounds as its field needs.`) :
        field(ctx, "tc-rounds", `Rounds (${offer ? offer.rounds : "deals or rounds"})`, input(ctx, "tc-rounds", 5, { type: "number", min: 1, max: 20 })),
      bestOf.length > 1 ?
        field(ctx, "tc-bestof", "Deals per table", choose(ctx, "tc-bestof", bestOf.map((n) => [String(n), n === 1 ? "1" : `best of ${n}`]), String(chosenBest()))) : null,
      field(ctx, "tc-pace", "Pace", choose(ctx, "tc-pace", [["lockstep", "lockstep"], ["race", "race"]], "lockstep")),
      field(ctx, "tc-card", "Card clock (s)", input(ctx, "tc-card", 30, { type: "number", min: 1, max: 600 })),
      field(ctx, "tc-deal", "Deal clock (s)", input(ctx, "tc-deal", 300, { type: "number", min: 10, max: 3600 })),
      field(ctx, "tc-round", "Round clock (minutes; empty: as long as the deals can take, plus a minute)", input(ctx, "tc-round", "", { type: "number", min: 1, max: 240 })),
      field(ctx, "tc-start", "Start by itself in (minutes; empty: the host starts it)", input(ctx, "tc-start", "", { type: "number", min: 0, max: 10080 })),
      field(ctx, "tc-max", "Most players", input(ctx, "tc-max", 64, { type: "number", min: 2, max: 512 })),
      tick(ctx, "tc-private", "Private (joined by invite code)", false),
      tick(ctx, "tc-bots", "Bots may enter", true),
      !offer || offer.late_join ? tick(ctx, "tc-late", "Late entries (from the next round)", true) : null,
      h("p", { class: "help" }, "You host it; to play in it too, register on its page."),
      h("div", { class: "actions" }, h("button", { type: "submit", class: "primary" }, "Create the tournament"))));
}

// --- one tournament --------------------------------------------------------------

function names(info) {
  const by = new Map();
  for (const e of info.entrants) by.set(e.player.id, e.player);
  for (const s of info.standings) by.set(s.player.id, s.player);
  return by;
}

/** The round being played, while its tables' results are held back (the server
shows them once the round is over: a score would tell a table still playing what
the deal is worth); null otherwise. */
function roundPending(info) {
  if (info.status !== "playing" && info.status !== "paused") return null;
  const r = info.history.find((x) => x.number === info.round);
  return r && r.status === "playing" ? r : null;
}

/** The tie-break that decided where lines are level on the first figure, in the
server's words ("ada ranks above bo: level on score (1.5), ahead on Buchholz (3.5 to 2)"). */
function tieNotes(info) {
  const notes = info.tie_notes || [];
  return notes.length ? h("ul", { class: "tie-notes help" }, notes.map((n) => h("li", {}, n))) : null;
}

/** What the standings wait for during a round: "2 of 3 tables done in round 1: …". */
function pendingNote(info) {
  const r = roundPending(info);
  if (!r) return null;
  const before = r.number > 1 ? `after round ${r.number - 1}` : "before any round";
  return h("p", { class: "help pending-results", role: "status" },
    `${r.finished_tables} of ${r.tables} tables done in round ${r.number}: its results when the round is over (standings ${before}).`);
}

function statusLine(info, at) {
  const elapsed = Date.now() - at;
  const parts = [];
  if (info.status === "registering") {
    parts.push(`registering: ${info.entrants.length} of at most ${info.max_players}`);
    if (info.next_round_ms != null) parts.push(["starts in ", h("span", { class: "clock", dataset: { deadline: Date.now() + info.next_round_ms - elapsed } })]);
    else parts.push("the host starts it");
  } else {
    const r = info.history.find((x) => x.number === info.round);
    const of = ` of ${info.rounds}`;  // the rounds it plays (a knockout's: its bracket's, once drawn)
    parts.push(`${info.status}, round ${info.round}${of}`);
    if (r) parts.push(`${r.finished_tables}/${r.tables} tables done`);
    if (info.round_left_ms != null && r && r.status === "playing") parts.push([h("span", { class: "clock", dataset: { deadline: Date.now() + info.round_left_ms - elapsed } }), " left on the round clock"]);
    if (info.next_round_ms != null && info.status !== "finished" && info.status !== "cancelled") parts.push(["the next round in ", h("span", { class: "clock", dataset: { deadline: Date.now() + info.next_round_ms - elapsed } })]);
    if (wonBy(info.winners)) parts.push(h("strong", {}, wonBy(info.winners)));
  }
  return parts.flatMap((p, i) => (i ? [" · ", p] : [p]));
}

export function tournamentView(ctx) {
  const { store } = ctx;
  const id = ctx.route[1];
  const entry = store.tournament.get(id);
  if (!entry) return h("main", { id: "main" }, h("h1", {}, "Tournament"), h("p", { role: "status" }, "Loading…"));
  const info = entry.info;
  const me = store.me;
  const mine = info.entrants.find((e) => e.player.id === me.id);
  const host = info.host.id === me.id;
  const over = info.status === "finished" || info.status === "cancelled";
  const acts = info.actions || { entry: null, withdraw: false, host: [] };  // the server decides
  const myTable = info.tables.find((t) => t.players.includes(me.id));
  const who = names(info);
  const inviteLink = info.invite_code ? `${location.origin}/#/tjoin/${encodeURIComponent(info.invite_code)}` : null;
  return h("main", { id: "main", class: "tournament" },
    h("h1", {}, info.name),
    h("p", {}, `${formatName(info)}, ${info.pace}, ${info.length} · hosted by ${info.host.name}`),
    h("p", { class: "status", role: "status" }, statusLine(info, entry.at)),
    inviteLink ? h("p", {}, "Invite link: ", h("code", {}, inviteLink)) : null,
    h("div", { class: "actions" },
      !mine && acts.entry
        ? h("button", { type: "button", class: "primary", dataset: { key: "t-register" }, onclick: () =>
          ctx.request({ type: "join_tournament", tournament_id: info.id, contribution: freshContribution() }, ["tournament"]).catch(() => {}) },
        acts.entry === "open" ? "Register" : "Register (from the next round)") : null,
      mine && mine.status === "active" && acts.withdraw ? h("button", { type: "button", class: "danger", dataset: { key: "t-withdraw" }, onclick: async () => {
        if (await ctx.confirm("Withdraw from the tournament? It is for good: you cannot register again, and a table you are playing is forfeited.", "Withdraw")) {
          ctx.request({ type: "leave_tournament", tournament_id: info.id }, ["tournament"]).catch(() => {});
        }
      } }, "Withdraw") : null,
      myTable && myTable.room_id && myTable.status === "playing" ? h("a", { class: "button primary", href: `#/room/${encodeURIComponent(myTable.room_id)}` }, `Play your table (${myTable.number})`) : null,
      h("a", { class: "button", href: `#/t/${encodeURIComponent(info.id)}/projector` }, "Projector view"),
      h("a", { class: "button", href: `/api/tournaments/${encodeURIComponent(info.id)}/export?format=csv&what=standings` }, "Standings (CSV)")),
    host ? hostControls(ctx, info) : null,
    info.bracket && info.bracket.length ? h("section", { class: "card-panel", "aria-labelledby": "bracket-h" }, h("h2", { id: "bracket-h" }, "Bracket"),
      panning("Bracket", bracket(info, who)), h("p", { class: "help pan-help" }, "Swipe, or focus the bracket and use the arrow keys, to see every round.")) : null,
    h("section", { class: "card-panel", "aria-labelledby": "st-h" }, h("h2", { id: "st-h" }, over ? "Final standings" : "Standings"), pendingNote(info), standings(info, me), tieNotes(info)),
    info.tables.length ? h("section", { class: "card-panel", "aria-labelledby": "tables-h" }, h("h2", { id: "tables-h" }, `Round ${info.round}: tables`), tables(ctx, info, who)) : null,
    h("section", { class: "card-panel", "aria-labelledby": "entrants-h" }, h("h2", { id: "entrants-h" }, `Entrants (${info.entrants.length})`),
      h("ul", { class: "online" }, info.entrants.map((e) => h("li", {}, e.player.name, e.player.bot ? h("span", { class: "tag" }, "bot") : null,
        e.seed ? h("span", { class: "tag" }, `seed ${e.seed}`) : null, e.status !== "active" ? h("span", { class: "tag" }, e.status) : null,
        e.joined_round > 1 ? h("span", { class: "tag" }, `from round ${e.joined_round}`) : null,
        host && e.status === "active" && acts.host.includes("remove") ? h("button", { type: "button", class: "small", "aria-label": `Remove ${e.player.name}`, onclick: async () => {
          if (await ctx.confirm(`Remove ${e.player.name} from the tournament?`, "Remove")) {
            ctx.request({ type: "manage_tournament", tournament_id: info.id, action: "remove", player_id: e.player.id }, ["tournament"]).catch(() => {});
          }
        } }, "Remove") : null)))),
    h("section", { class: "card-panel" }, h("h2", {}, "Fair deals"),
      h("p", {}, "Commitment to the round secrets, published at creation: ", h("code", {}, info.commitment)),
      info.history.length ? dataTable({ cls: "rounds", columns: [{ title: "Round", num: true }, { title: "Contribution" }, { title: "Commitment" }, { title: "Secret" }],
        rows: info.history.map((r) => ({ cells: [String(r.number), h("code", {}, r.contribution.slice(0, 12) + "…"),
          h("code", {}, r.server_commitment.slice(0, 12) + "…"), r.server_secret ? h("code", {}, r.server_secret.slice(0, 12) + "…") : "hidden until the round is over"] })) }) : null));
}

function hostControls(ctx, info) {
  const act = (action, question) => async () => {
    if (question && !(await ctx.confirm(question, action[0].toUpperCase() + action.slice(1)))) return;
    ctx.request({ type: "manage_tournament", tournament_id: info.id, action }, ["tournament"]).catch(() => {});
  };
  const may = (info.actions || { host: [] }).host;  // what the server lets the host do now
  if (!may.length) return null;
  return h("section", { class: "card-panel", "aria-labelledby": "host-h" },
    h("h2", { id: "host-h" }, "Host"),
    h("div", { class: "host-controls" },
      may.includes("start") ? h("button", { type: "button", class: "primary", dataset: { key: "t-start" }, onclick: act("start") }, "Start now") : null,
      may.includes("pause") ? h("button", { type: "button", dataset: { key: "t-pause" }, onclick: act("pause") }, "Pause") : null,
      may.includes("resume") ? h("button", { type: "button", class: "primary", dataset: { key: "t-resume" }, onclick: act("resume") }, "Resume") : null,
      may.includes("cancel") ? h("button", { type: "button", class: "danger", dataset: { key: "t-cancel" }, onclick: act("cancel", "Cancel the tournament? The tables still playing are stopped and the standings so far are final.") }, "Cancel the tournament") : null,
      may.includes("add_bots") ? h("form", { class: "inline-form", onsubmit: (e) => {
        e.preventDefault();
        ctx.request({ type: "add_tournament_bot", tournament_id: info.id, strategy: val(ctx, "tb-strategy", "greedy"), count: Number(val(ctx, "tb-count", 1)) }, ["tournament"]).catch(() => {});
      } },
        h("label", { for: "tb-count" }, "Add"), input(ctx, "tb-count", 1, { type: "number", min: 1, max: 256, class: "narrow" }),
        levelSelect(ctx, "tb-strategy", "greedy", { label: "Bot level", plural: true }),
        h("button", { type: "submit" }, "Add bots")) : null));
}

export function standings(info, me) {
  if (!info.standings.length) return h("p", { class: "empty" }, "No entrant yet.");
  // The format's figures, titled and worded by the server (columns, each line's cells).
  return dataTable({ cls: "standings", columns: [{ title: "Rank", num: true }, { title: "Player" }, ...info.columns.map((title) => ({ title, num: true }))],
    rows: info.standings.map((s) => ({ attrs: { class: me && s.player.id === me.id ? "mine" : null }, cells: [
      String(s.rank),
      [s.player.name, s.player.bot ? h("span", { class: "tag" }, "bot") : null, me && s.player.id === me.id ? h("span", { class: "tag" }, "you") : null,
        s.status !== "active" && s.status !== "eliminated" ? h("span", { class: "tag" }, s.status) : null],
      ...s.cells] })) });
}

function tables(ctx, info, who) {
  const name = (p) => (who.get(p) || { name: p }).name;
  return dataTable({ cls: "round-tables", columns: [{ title: "Table", num: true }, { title: "Players" }, { title: "Status" }, { title: "Points" }, { title: "Watch", hidden: true }],
    rows: info.tables.map((t) => ({ cells: [
      String(t.number), t.players.map(name).join(" vs "),
      t.status === "bye" ? "bye" : t.status === "finished" && t.winner ? `won by ${name(t.winner)}`
        : t.status === "finished" && roundPending(info) ? "done: results when the round is over" : t.status,
      t.players.map((p) => (t.points[p] != null ? String(t.points[p]) : "–")).join(" – "),
      t.room_id && t.status === "playing" && !t.players.includes(ctx.store.me.id)
        ? h("button", { type: "button", class: "small", "aria-label": `Watch table ${t.number}`, onclick: () => ctx.go(`#/watch/${encodeURIComponent(t.room_id)}`) }, "Watch") : ""] })) });
}

/** The knockout bracket: every round of the draw, byes and walkovers included. */
export function bracket(info, who) {
  const first = info.bracket[0];
  const size = first.length;
  const roundsTotal = Math.max(1, Math.log2(size));
  const seed = new Map(info.entrants.map((e) => [e.player.id, e.seed]));
  const columns = [];
  let slots = first;
  let champion = null;
  for (let r = 0; r < roundsTotal; r++) {
    if (info.bracket[r]) slots = info.bracket[r];
    const next = info.bracket[r + 1];
    const tablesNow = r === info.bracket.length - 1 ? info.tables : [];
    const matches = [];
    const through = []; // who goes on from each match: the next round's slots, where the draw has none yet
    for (let i = 0; i < slots.length; i += 2) {
      const a = slots[i], b = slots[i + 1];
      let winner = null;
      if (next) winner = next[i / 2];
      else {
        const table = tablesNow.find((t) => t.players.includes(a) || t.players.includes(b));
        if (table && table.winner) winner = table.winner;
      }
      if (a && b === null && r === 0) winner = a;
      if (b && a === null && r === 0) winner = b;
      through.push(winner || undefined);
      matches.push(h("div", { class: "match", role: "group", "aria-label": `round ${r + 1}, match ${i / 2 + 1}` },
        slot(a, b, winner, who, seed, r), slot(b, a, winner, who, seed, r)));
    }
    if (r === roundsTotal - 1) champion = through[0] || null;
    const title = r === roundsTotal - 1 ? "Final" : r === roundsTotal - 2 ? "Semi-finals" : `Round ${r + 1}`;
    columns.push(h("div", { class: "round" }, h("h3", {}, title), h("div", { class: "round-matches" }, matches)));
    slots = next || through;
  }
  if (champion) {
    columns.push(h("div", { class: "round" }, h("h3", {}, "Champion"), h("div", { class: "round-matches" },
      h("div", { class: "match" }, h("div", { class: "slot winner" }, (who.get(champion) || { name: "?" }).name)))));
  }
  return h("div", { class: "bracket" }, columns);
}

function slot(id, other, winner, who, seed, round) {
  if (id === undefined) return h("div", { class: "slot tbd" }, h("span", { class: "muted" }, "—"));
  if (id === null) return h("div", { class: "slot bye" }, round === 0 ? "bye" : other ? "walkover" : "—");
  const name = (who.get(id) || { name: id }).name;
  const cls = winner === id ? "winner" : winner ? "out" : "";
  return h("div", { class: `slot ${cls}` }, h("span", {}, seed.get(id) ? `${seed.get(id)}. ` : "", name), winner === id ? h("span", { "aria-label": "through" }, "✔") : null);
}

// --- the projector ------------------------------------------------------------------

export function projectorView(ctx) {
  const { store } = ctx;
  const id = ctx.route[1];
  const entry = store.tournament.get(id);
  if (!entry) return h("main", { id: "main" }, h("h1", {}, "…"));
  const info = entry.info;
  const who = names(info);
  const knockout = info.bracket && info.bracket.length;  // a format with a bracket, drawn
  return h("main", { id: "main", class: "projector-view" },
    h("header", { class: "proj-head" },
      h("h1", { tabindex: "-1" }, info.name),
      h("div", { class: "proj-tools" },
        document.fullscreenEnabled ? h("button", { type: "button", onclick: () => (document.fullscreenElement ? document.exitFullscreen() : document.documentElement.requestFullscreen()) }, "Full screen") : null,
        h("a", { class: "button", href: `#/t/${encodeURIComponent(info.id)}` }, "Back"))),
    h("p", { class: "proj-sub", role: "status" }, statusLine(info, entry.at)),
    knockout ? panning("Bracket", bracket(info, who)) : null,
    pendingNote(info),
    h("div", { class: knockout ? "proj-standings small" : "proj-standings" }, standings(info, null)));
}

