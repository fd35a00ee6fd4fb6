// What this page knows, built only from the server's messages (and what this
// page itself sent), like the terminal client's model. Views read it; nothing
// here touches the DOM.

import { tableRoundChecks, tableScheme, tournamentChecks, verifyResult } from "./deal.js";
import { leftOutcome } from "./views/outcome.js";

export function freshContribution() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes); // available on plain http too
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

const COMMITMENTS_KEY = "cribsquares-daily-commitments";
const KEEP_COMMITMENTS = 60; // days

// Why the server placed a card for the player (placed.why, docs/protocol.md).
const PLACED_WHY = {
  card_clock: "Out of time",
  deal_clock: "The deal's clock ran out",
  round_clock: "The round's clock ran out",
  others_left: "The others left, so the deal ended",
  away: "You were away",
};

function readJSON(key, fallback) {
  try {
    const text = globalThis.localStorage && localStorage.getItem(key);
    return text ? JSON.parse(text) : fallback;
  } catch {
    return fallback; // storage refused or the value damaged: start afresh
  }
}

function writeJSON(key, value) {
  try {
    if (globalThis.localStorage) localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // a full or refused storage: the check falls back to what this page was told
  }
}

export class Store extends EventTarget {
  constructor() {
    super();
    this.me = null;
    this.formats = []; // the tournament formats the server hosts (welcome.formats)
    this.rooms = [];
    this.roomsPage = null; // the server's paging fields of the last listing, if any
    this.online = null;
    this.room = null; // RoomInfo of the room this page is in (one at a time)
    this.spectating = false;
    this.match = null;
    this.secrets = {}; // deal number -> server secret revealed (this series)
    this.ratings = null; // the last `ratings` of this room
    this.nextDealAt = null;
    this.queue = null;
    this.challenges = new Map(); // id -> {info, state, at}
    this.tournaments = null;
    this.tournamentsPage = null;
    this.tournament = new Map(); // id -> {info, at}
    this.contribution = null; // the one this page sent last for a seed (the setter below)
    this.leaderboards = new Map();
    this.bots = null; // the server's bot levels (list_bots), weakest first
    this.dailies = new Map(); // day -> the daily message, as last told
    this.dailyReceived = new Map(); // day -> when it was (Date.now())
    this.dailyRefused = new Map(); // day (or "today") -> why get_daily was refused
    // Each day's commitment as this browser was first told it (kept across visits):
    // a day revealed later is checked against it, not against itself.
    this.dailyCommitments = new Map(readJSON(COMMITMENTS_KEY, []));
    this.notices = [];
    this.lastError = null;
  }

  changed(what) {
    this.dispatchEvent(new CustomEvent("change", { detail: what }));
  }

  /** A line for the player. ``topic``: a later notice of the same topic replaces this
   * one on screen (one line that says how things stand, not a stack of them). */
  notice(text, kind = "info", topic = null) {
    this.notices.push({ text, kind, topic, at: Date.now() });
    if (this.notices.length > 50) this.notices.shift();
    this.dispatchEvent(new CustomEvent("notice", { detail: { text, kind, topic } }));
  }

  apply(msg) {
    const handler = this["on_" + msg.type];
    if (handler) handler.call(this, msg);
    this.changed(msg.type);
  }

  mySeat() {
    if (!this.room || !this.me) return null;
    const seat = this.room.players.find((s) => s.player.id === this.me.id);
    return seat ? seat.seat : null;
  }

  isCreator() {
    return Boolean(this.room && this.me && this.room.creator.id === this.me.id);
  }

  tournamentOfRoom(roomId) {
    for (const [id, t] of this.tournament) {
      if ((t.info.tables || []).some((table) => table.room_id === roomId)) return id;
    }
    return null;
  }

  leaveRoomLocally() {
    this.room = null;
    this.match = null;
    this.spectating = false;
    this.secrets = {};
    this.ratings = null;
    this.nextDealAt = null;
  }

  // --- messages ------------------------------------------------------------

  on_welcome(msg) {
    this.me = msg.player;
    this.formats = msg.formats || [];
  }

  on_error(msg) {
    this.lastError = msg;
  }

  on_rooms(msg) {
    this.rooms = msg.rooms;
    const { type, rooms, ref, ...paging } = msg;
    this.roomsPage = paging;
  }

  on_online(msg) {
    this.online = msg;
  }

  on_room(msg) {
    if (!this.room || this.room.id !== msg.room.id) return;
    this.setRoom(msg.room);
  }

  /** The contribution this page sent last for a seed. It belongs to the first room this
   * player is seated in after it was sent (one created, joined, matched, challenged
   * into or rematched in): a deal elsewhere (the daily deal, a tournament's table, a
   * room watched) took none of this page's and is not checked against it. */
  set contribution(value) {
    this._contribution = value;
    this.contributionRoom = null;
  }

  get contribution() {
    return this._contribution;
  }

  /** What this page contributed to the deals of ``roomId``, if anything. */
  myContribution(roomId) {
    return this.contributionRoom === roomId ? this._contribution : null;
  }

  setRoom(room) {
    const before = this.room;
    this.room = room;
    if (this._contribution != null && this.contributionRoom === null && this.mySeat() !== null) {
      this.contributionRoom = room.id; // the room the last one was sent for
    }
    if (room.series && room.series.next_deal_ms != null) {
      this.nextDealAt = Date.now() + room.series.next_deal_ms;
    }
    if (before && before.status === "finished" && room.status === "waiting") this.match = null;
  }

  on_left(msg) {
    if (!this.room || this.room.id !== msg.room_id) return;
    this.leaveRoomLocally();
    const said = leftOutcome(msg.series, this.me); // leaving forfeited a series: its outcome
    if (said) this.notice(said, "info", "left");
  }

  on_room_state(msg) {
    const current = this.room;
    // One room at a time: a snapshot of another room replaces this one only if it
    // was asked for (a join), or this one is over (or watched) and the other is
    // playing or seats this player (a tournament's next table, still waiting for
    // its match to start when the server seats its players).
    if (current && current.id !== msg.room.id) {
      const asked = msg.ref !== null && msg.ref !== undefined;
      const busy = current.status === "playing" && !this.spectating;
      const seated = this.me !== null && msg.room.players.some((s) => s.player.id === this.me.id);
      if (!asked && busy) return;
      if (!asked && msg.room.status !== "playing" && !seated) return;
      this.leaveRoomLocally();
    }
    const newRoom = !this.room || this.room.id !== msg.room.id;
    this.setRoom(msg.room);
    this.spectating = this.mySeat() === null;
    if (newRoom) this.secrets = {};
    if (!msg.match_id) {
      this.match = null;
      return;
    }
    if (!this.match || this.match.match_id !== msg.match_id) {
      const series = msg.room.series;
      this.match = newMatch({
        match_id: msg.match_id,
        pace: msg.room.pace,
        seed_commitment: msg.seed_commitment || "",
        contributions: msg.contributions || [],
        card_clock_ms: msg.room.card_clock_ms,
        deal_clock_ms: msg.room.deal_clock_ms,
        deal: series ? series.deal : 1,
        best_of: msg.room.deals || 1,
      });
      // Only a series under way vouches for the room's commitment (after it the
      // room may already commit to a rematch's).
      if (!series || !series.finished || !msg.result) {
        this.match.series_commitment = msg.room.server_commitment;
        if (this.match.deal === 1) this.match.server_commitment = msg.room.server_commitment;
      }
    }
    const match = this.match;
    if (msg.contributions && msg.contributions.length) match.contributions = msg.contributions;
    if (msg.seed_commitment) match.seed_commitment = msg.seed_commitment;
    if (msg.you) {
      const you = msg.you;
      match.cells = you.cells.slice();
      match.placements = you.placements.slice();
      for (const p of you.placements) match.received[p.turn] ??= p.card;
      match.turn = you.turn;
      match.card = you.card;
      match.legal = you.legal.slice();
      if (you.turn && you.card) match.received[you.turn] ??= you.card;
      match.deadlineAt = you.deadline_ms != null ? Date.now() + you.deadline_ms : null;
      match.timeUsed = you.time_used_ms;
    }
    if (msg.progress) this.on_progress(msg.progress);
    if (msg.result && !match.result) this.on_match_result(msg.result);
  }

  on_match_started(msg) {
    if (!this.room || this.room.id !== msg.room_id) return;
    if (this.match && this.match.match_id === msg.match_id) return;
    if ((msg.deal || 1) === 1) {
      this.secrets = {};
      this.ratings = null;
    }
    this.nextDealAt = null;
    this.match = newMatch({ ...msg, series_commitment: this.room.server_commitment });
    this.match.server_commitment = msg.server_commitment;
    this.room = { ...this.room, status: "playing", rematch: [] };
    this.feed("start", (msg.best_of || 1) > 1 ? `Deal ${msg.deal || 1} of ${msg.best_of} begins` : "The deal begins");
  }

  on_card(msg) {
    const match = this.match;
    if (!match || !this.room || this.room.id !== msg.room_id) return;
    match.turn = msg.turn;
    match.card = msg.card;
    match.legal = msg.legal.slice();
    match.received[msg.turn] = msg.card;
    match.deadlineAt = Date.now() + msg.deadline_ms;
    match.pending = null;
  }

  on_placed(msg) {
    const match = this.match;
    if (!match || !this.room || this.room.id !== msg.room_id) return;
    match.cells[cellIndex(msg.cell)] = msg.card;
    match.received[msg.turn] ??= msg.card;
    match.placedAt[msg.turn] ??= Date.now();
    if (!match.placements.some((p) => p.turn === msg.turn)) {
      match.placements.push({ turn: msg.turn, cell: msg.cell, card: msg.card, auto: msg.auto });
    }
    if (match.turn === msg.turn) {
      match.turn = null;
      match.card = null;
      match.legal = [];
      if (match.pace === "lockstep") match.deadlineAt = null;
    }
    match.pending = null;
    if (msg.auto) {
      const why = PLACED_WHY[msg.why]; // an older server says no why
      const placed = `${msg.card} was placed for you on ${msg.cell}.`;
      this.notice(why ? `${why}: ${placed}` : placed[0].toUpperCase() + placed.slice(1), msg.why === "others_left" ? "info" : "warn");
    }
  }

  on_progress(msg) {
    if (!this.match || !this.room || this.room.id !== msg.room_id) return;
    const before = this.match.progress;
    this.match.progress = msg;
    if (msg.deadline_ms != null) this.match.roundDeadlineAt = Date.now() + msg.deadline_ms;
    this.feedProgress(before, msg);
  }

  /** What a progress says happened since the one before, as lines of the deal's feed. */
  feedProgress(before, now) {
    const name = (id) => (this.room.players.find((s) => s.player.id === id) || { player: { name: id } }).player.name;
    if (now.dealt && (!before || !before.dealt || before.dealt.turn !== now.dealt.turn)) {
      this.feed("card", `Card ${now.dealt.turn} of 16 is dealt to everyone`, now.dealt.card);
    }
    if (!before) return;
    for (const [id, placed] of Object.entries(now.placed)) {
      const was = before.placed[id] || 0;
      if (placed > was) this.feed("placed", placed - was === 1 ? `${name(id)} placed card ${placed}` : `${name(id)} placed cards ${was + 1} to ${placed}`);
    }
    for (const [id, on] of Object.entries(now.connected)) {
      if (id in before.connected && before.connected[id] !== on) this.feed("link", on ? `${name(id)} is back` : `${name(id)} lost the connection`);
    }
  }

  /** A line of the current deal's feed (newest first, the last 60 kept). */
  feed(kind, text, card = null) {
    const match = this.match;
    if (!match) return;
    match.feed.unshift({ kind, text, card, at: Date.now() });
    if (match.feed.length > 60) match.feed.pop();
  }

  on_match_result(msg) {
    if (!this.room || this.room.id !== msg.room_id) return;
    let match = this.match;
    const announced = Boolean(match && match.match_id === msg.match_id); // shown before the result
    if (!match || match.match_id !== msg.match_id) {
      match = newMatch({ match_id: msg.match_id, pace: this.room.pace, seed_commitment: msg.seed_commitment,
        contributions: [], deal: msg.deal || 1, best_of: msg.series ? msg.series.best_of : 1 });
      this.match = match;
    }
    if (!match.result) this.feed("end", "The deal is over: the starter is turned");
    match.result = msg;
    match.deal = msg.deal || 1;
    if (msg.series) match.best_of = msg.series.best_of;
    match.turn = null;
    match.card = null;
    match.legal = [];
    match.deadlineAt = null;
    if (msg.series && msg.series.next_deal_ms != null) this.nextDealAt = Date.now() + msg.series.next_deal_ms;
    const seriesCommitment = match.series_commitment || (this.room ? this.room.server_commitment : "");
    const tid = this.tournamentOfRoom(msg.room_id);
    const info = tid !== null ? this.tournament.get(tid).info : null;
    const round = info ? info.round : null;
    const known = {
      seedCommitment: announced ? match.seed_commitment || null : null,
      contributions: match.contributions,
      serverCommitment: match.server_commitment || (match.deal === 1 ? seriesCommitment : null),
      seriesCommitment: seriesCommitment || null,
      previousSecret: this.secrets[match.deal - 1] || null,
      received: match.received,
      mine: tid === null && !this.spectating ? this.myContribution(msg.room_id) : null,
      seat: this.mySeat(),
    };
    this.secrets[match.deal] = msg.server_secret;
    match.verification = { pending: true, checks: [] };
    (async () => {
      let scheme = null;
      if (info) {
        scheme = await tableScheme(info, round, seriesCommitment, match.best_of);
        known.chain = scheme === "chain";
      }
      let { checks } = await verifyResult(msg, known);
      if (info) {
        const contributors = await roundContributors(tid, round);
        checks = checks.concat(await tournamentChecks(info, round, match.contributions, seriesCommitment,
          match.best_of, contributors, scheme));
        if (scheme === "per-deal") {
          // The table's secrets hang from the round's, revealed when the round is over.
          match.table = { tid, round, commitment: seriesCommitment, deals: Object.entries(this.secrets).map(([deal, secret]) => ({ deal: Number(deal), server_secret: secret })) };
        }
      }
      const ok = checks.length > 0 && checks.every((c) => c.ok);
      match.verification = { pending: false, checks, ok, roundPending: match.table ? match.table.round : null };
      this.changed("verification");
      if (match.table) await this.checkTableRound(match);
    })();
  }

  /** A per-deal tournament table: once its round's secret is revealed, check the table's secrets. */
  async checkTableRound(match) {
    const table = match.table;
    const v = match.verification;
    if (!table || !v || v.pending || !v.roundPending) return;
    const entry = this.tournament.get(table.tid);
    const revealed = entry && (entry.info.history || []).find((r) => r.number === table.round);
    if (!revealed || !revealed.server_secret) return;
    v.roundPending = null;
    const extra = await tableRoundChecks(entry.info, table.round, table.deals, table.commitment);
    v.checks = v.checks.concat(extra);
    v.ok = v.checks.every((c) => c.ok);
    this.changed("verification");
  }

  on_queue(msg) {
    if (msg.state === "waiting") {
      this.queue = { ...msg, since: Date.now(), botAfter: this.queueBotAfter };
    } else {
      this.queue = null;
      if (msg.state === "matched") this.notice("Quick play: an opponent was found.");
    }
  }

  on_challenge_state(msg) {
    const info = msg.challenge;
    if (msg.state === "offered") {
      this.challenges.set(info.id, { info, state: msg.state, expiresAt: Date.now() + info.expires_ms });
      if (this.me && info.opponent.id === this.me.id) {
        this.notice(`${info.challenger.name} challenges you.`);
      }
    } else {
      this.challenges.delete(info.id);
      const other = this.me && info.challenger.id === this.me.id ? info.opponent.name : info.challenger.name;
      if (msg.state !== "accepted") this.notice(`The challenge with ${other} was ${msg.state}.`);
    }
  }

  on_ratings(msg) {
    if (this.room && this.room.id === msg.room_id) this.ratings = msg;
  }

  on_bots(msg) {
    this.bots = msg;
  }

  on_leaderboard(msg) {
    this.leaderboards.set(msg.pace, msg);
  }

  on_daily(msg) {
    const before = this.dailyCommitments.size;
    for (const d of msg.schedule) if (!this.dailyCommitments.has(d.day)) this.dailyCommitments.set(d.day, d.commitment);
    if (msg.commitment && !this.dailyCommitments.has(msg.day)) this.dailyCommitments.set(msg.day, msg.commitment);
    if (this.dailyCommitments.size !== before) {
      const kept = [...this.dailyCommitments].sort((a, b) => (a[0] < b[0] ? -1 : 1)).slice(-KEEP_COMMITMENTS);
      this.dailyCommitments = new Map(kept);
      writeJSON(COMMITMENTS_KEY, kept);
    }
    this.dailies.set(msg.day, msg);
    this.dailyReceived.set(msg.day, Date.now());
    this.dailyRefused.delete(msg.day === msg.today ? "today" : msg.day);
  }

  /** Today's daily deal: the latest day the server said is today. */
  dailyToday() {
    let found = null;
    for (const d of this.dailies.values()) if (d.day === d.today && (!found || d.day > found.day)) found = d;
    return found;
  }

  on_tournaments(msg) {
    this.tournaments = msg.tournaments;
    const { type, tournaments, ref, ...paging } = msg;
    this.tournamentsPage = paging;
  }

  on_tournament(msg) {
    const info = msg.tournament;
    this.tournament.set(info.id, { info, at: Date.now() });
    if (this.match && this.match.table && this.match.table.tid === info.id) this.checkTableRound(this.match);
  }
}

/** The entrants' contributions a tournament round's was made from, in
registration order (``GET /api/tournaments/{id}``), or null if unavailable. */
async function roundContributors(tournamentId, round) {
  try {
    const response = await fetch(`/api/tournaments/${encodeURIComponent(tournamentId)}`);
    if (!response.ok) return null;
    const found = await response.json();
    const r = (found.rounds || []).find((x) => x.round === round);
    return r && Array.isArray(r.contributors) ? r.contributors.map((c) => c[1]) : null;
  } catch {
    return null;
  }
}

function newMatch(fields) {
  return {
    match_id: fields.match_id,
    pace: fields.pace,
    seed_commitment: fields.seed_commitment,
    server_commitment: fields.server_commitment || "",
    series_commitment: fields.series_commitment || "",
    contributions: fields.contributions || [],
    card_clock_ms: fields.card_clock_ms,
    deal_clock_ms: fields.deal_clock_ms,
    deal: fields.deal || 1,
    best_of: fields.best_of || 1,
    cells: Array(16).fill(null),
    placements: [],
    received: {},
    placedAt: {}, // turn -> when this page learnt of its placement (Date.now())
    feed: [], // what happened in the deal, newest first: {kind, text, card, at}
    turn: null,
    card: null,
    legal: [],
    deadlineAt: null,
    roundDeadlineAt: null,
    progress: null,
    result: null,
    verification: null,
    pending: null,
    startedAt: Date.now(),
  };
}

export const CELLS = [];
for (const row of "1234") for (const col of "abcd") CELLS.push(col + row);

export function cellIndex(name) {
  return CELLS.indexOf(name);
}
