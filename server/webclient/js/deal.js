// The deal of docs/fairness.md (version 1), and the checks a player makes on a
// finished deal: the seed against its commitment, the server's secret against
// the commitment shown before the first card, the seed recomputed from the
// secret and the contributions, the chain of a series' secrets, a tournament
// round's shared contribution, and the 17 cards dealt again here.

import { hex, hmacKey, sha256, utf8 } from "./crypto.js";

export const RANKS = "A23456789TJQK";
export const SUITS = "CDHS";
const NAMES = [];
for (const suit of SUITS) for (const rank of RANKS) NAMES.push(rank + suit);

const DEAL_LABEL = utf8("cribsquares/deal/v1");
const ROOM_LABEL = utf8("cribsquares/room-seed/v1");
const ROUND_LABEL = utf8("cribsquares/tournament-round/v1");
const TABLE_LABEL = utf8("cribsquares/tournament-table/v1");
const TABLE_DEAL_LABEL = utf8("cribsquares/tournament-deal/v1");

export class SeedError extends Error {}

function seedBytes(seed) {
  const bytes = utf8(seed);
  if (bytes.length < 1 || bytes.length > 256) {
    throw new SeedError(`a seed is 1 to 256 UTF-8 bytes, not ${bytes.length}`);
  }
  return bytes;
}

function lengthPrefixed(parts) {
  const chunks = [];
  for (const part of parts) {
    const bytes = utf8(part);
    const len = new Uint8Array(4);
    new DataView(len.buffer).setUint32(0, bytes.length);
    chunks.push(len, bytes);
  }
  return chunks;
}

function concat(chunks) {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) { out.set(c, at); at += c.length; }
  return out;
}

/** SHA-256 of the text's UTF-8, lower-case hex (section 6). */
export async function commitment(text, force) {
  return hex(await sha256(utf8(text), force));
}

/** The whole shuffled deck as card indices (sections 3-5). */
export async function shuffledDeck(seed, force) {
  const mac = await hmacKey(seedBytes(seed), force);
  let block = 0;
  let buffer = new Uint8Array(0);
  let at = 0;
  const next = async () => {
    if (at + 4 > buffer.length) {
      const message = new Uint8Array(DEAL_LABEL.length + 4);
      message.set(DEAL_LABEL);
      new DataView(message.buffer).setUint32(DEAL_LABEL.length, block++);
      buffer = await mac(message);
      at = 0;
    }
    const value = new DataView(buffer.buffer, buffer.byteOffset).getUint32(at);
    at += 4;
    return value;
  };
  const deck = Array.from({ length: 52 }, (_, i) => i);
  for (let i = 51; i >= 1; i--) {
    const n = i + 1;
    const limit = Math.floor(2 ** 32 / n) * n;
    let x = await next();
    while (x >= limit) x = await next();
    const j = x % n;
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

/** The 16 cards in the order they are played, then the starter. */
export async function dealCards(seed, force) {
  return (await shuffledDeck(seed, force)).slice(0, 17).map((i) => NAMES[i]);
}

/** The seed of a room's deal (Multiplayer seeds, step 3). */
export async function roomSeed(secret, contributions, force) {
  seedBytes(secret);
  const bytes = concat([ROOM_LABEL, ...lengthPrefixed([secret, ...contributions])]);
  return hex(await sha256(bytes, force));
}

/** The seat contribution every table of a tournament round shares. */
export async function roundContribution(tournamentId, round, contributions, force) {
  const bytes = concat([ROUND_LABEL, ...lengthPrefixed([tournamentId, String(round), ...contributions])]);
  return hex(await sha256(bytes, force));
}

/** A tournament round's table root: HMAC-SHA256 keyed by the round's secret (fairness.md, Tournaments). */
export async function tableRoot(roundSecret, tournamentId, round, force) {
  const mac = await hmacKey(utf8(roundSecret), force);
  return hex(await mac(concat([TABLE_LABEL, ...lengthPrefixed([tournamentId, String(round)])])));
}

/** The server secret of deal ``j`` of every table of a round, from its table root. */
export async function tableDealSecret(root, j, force) {
  const mac = await hmacKey(utf8(root), force);
  return hex(await mac(concat([TABLE_DEAL_LABEL, ...lengthPrefixed([String(j)])])));
}

/** ``secret`` hashed ``steps`` times (a series' chain of secrets). */
export async function chainBack(secret, steps, force) {
  for (let i = 0; i < steps; i++) secret = await commitment(secret, force);
  return secret;
}

const same = (a, b) => typeof a === "string" && typeof b === "string" && a.toLowerCase() === b.toLowerCase();

/**
 * Check a match_result. ``known`` is what this page saw before the result:
 *   seedCommitment (match_started's, or a snapshot's), contributions (match_started), serverCommitment (this deal's, announced before
 *   the first card), seriesCommitment (the room's), previousSecret (deal k-1's),
 *   received ({turn: card} dealt to this player), mine/seat (this page's own
 *   contribution and seat; null at a tournament table, whose seats share the round's).
 * Returns [{label, ok}], every check listed, passed or not.
 */
export async function verifyResult(result, known, force) {
  const checks = [];
  const add = (label, ok) => checks.push({ label, ok: Boolean(ok) });
  const deal = result.deal || 1;
  try {
    const seedHash = await commitment(result.seed, force);
    if (known.seedCommitment) {
      add("the seed matches the commitment shown before the first card",
        same(seedHash, known.seedCommitment) && same(known.seedCommitment, result.seed_commitment));
    } else {
      add("the seed matches its commitment", same(seedHash, result.seed_commitment));
    }
    if (known.serverCommitment) {
      add("the server's secret matches the commitment shown before the first card",
        same(await commitment(result.server_secret, force), known.serverCommitment));
    }
    if (deal === 1 && known.seriesCommitment && known.serverCommitment) {
      add("the deal's commitment is the one the room published", same(known.serverCommitment, known.seriesCommitment));
    }
    const chain = known.chain !== false; // a tournament table's deals may each have their own secret
    if (chain && deal > 1 && known.previousSecret && known.serverCommitment) {
      add(`deal ${deal}'s commitment is the secret revealed by deal ${deal - 1}`,
        same(known.serverCommitment, known.previousSecret));
    }
    if (chain && deal > 1 && known.seriesCommitment) {
      add(`the secret hashed ${deal} times is the room's commitment`,
        same(await chainBack(result.server_secret, deal, force), known.seriesCommitment));
    }
    const contributions = known.contributions || [];
    if (contributions.length) {
      add("the seed comes from the server's secret and every contribution",
        (await roomSeed(result.server_secret, contributions, force)) === result.seed);
    }
    if (known.mine != null && contributions.length) {
      add("my contribution was used, at my seat", contributions[known.seat] === known.mine);
    }
    const cards = await dealCards(result.seed, force);
    const received = Object.entries(known.received || {});
    if (received.length) {
      add(`the ${received.length} cards I received are the deal's`,
        received.every(([turn, card]) => cards[Number(turn) - 1] === card));
    }
    add("every board holds the deal's cards",
      result.boards.every((b) => b.placements.every((p) => cards[p.turn - 1] === p.card)));
    add("the starter is the deal's", cards[16] === result.starter);
    return { checks, cards };
  } catch (error) {
    add(`the revealed seed is unusable (${error.message})`, false);
    return { checks, cards: null };
  }
}

/**
 * How a tournament table's secrets were made: "chain" (the table's series is a
 * hash chain rooted at the round's secret, as tables opened before per-deal
 * secrets) or "per-deal" (each deal's secret an HMAC of the round's table root).
 */
export async function tableScheme(info, round, tableCommitment, bestOf, force) {
  const current = (info.history || []).find((r) => r.number === round);
  if (!current) return "per-deal";
  return same(await chainBack(current.server_commitment, Math.max(0, bestOf - 1), force), tableCommitment) ? "chain" : "per-deal";
}

/**
 * A tournament table's deal against what the tournament published
 * (docs/fairness.md, Tournaments). ``info`` is the tournament message's
 * ``tournament``; ``round`` the table's round; ``contributors`` (optional, from
 * the HTTP API) the entrants' contributions the round's one was made from.
 */
export async function tournamentChecks(info, round, contributions, tableCommitment, bestOf, contributors, scheme, force) {
  const checks = [];
  const add = (label, ok) => checks.push({ label, ok: Boolean(ok) });
  const current = (info.history || []).find((r) => r.number === round);
  if (!current) {
    add(`round ${round} of the tournament was published`, false);
    return checks;
  }
  add(`every seat has round ${round}'s published contribution`,
    contributions.length > 0 && contributions.every((c) => c === current.contribution));
  if (scheme === "chain") {
    add(`the table's commitment follows from round ${round}'s (a chain of the table's secrets)`,
      Boolean(tableCommitment) && same(await chainBack(current.server_commitment, Math.max(0, bestOf - 1), force), tableCommitment));
  }
  if (round === 1) {
    add("round 1's commitment is the one the tournament published at its creation",
      same(current.server_commitment, info.commitment));
  } else {
    const before = info.history.find((r) => r.number === round - 1);
    if (before && before.server_secret) {
      add(`round ${round}'s commitment is the secret revealed by round ${round - 1}`,
        same(current.server_commitment, before.server_secret));
    }
  }
  if (Array.isArray(contributors) && contributors.length) {
    add(`round ${round}'s contribution comes from its entrants' contributions`,
      (await roundContribution(info.id, round, contributors, force)) === current.contribution);
  }
  return checks;
}

/**
 * Once round ``round`` is over and its secret revealed: every deal of the
 * table took its secret from it (``deals``: [{deal, server_secret}]), and the
 * first deal's secret hashes to the table's published commitment.
 */
export async function tableRoundChecks(info, round, deals, tableCommitment, force) {
  const checks = [];
  const add = (label, ok) => checks.push({ label, ok: Boolean(ok) });
  const revealed = (info.history || []).find((r) => r.number === round);
  if (!revealed || !revealed.server_secret) {
    add(`round ${round}'s secret was revealed`, false);
    return checks;
  }
  const secret = revealed.server_secret;
  add(`round ${round}'s revealed secret matches its commitment`, same(await commitment(secret, force), revealed.server_commitment));
  const root = await tableRoot(secret, info.id, round, force);
  for (const d of deals) {
    add(`deal ${d.deal}'s secret comes from round ${round}'s secret`, (await tableDealSecret(root, d.deal, force)) === d.server_secret);
  }
  add("the table's commitment comes from the round's secret",
    same(await commitment(await tableDealSecret(root, 1, force), force), tableCommitment));
  return checks;
}
