// A line of a board (a row or a column) counted as cribbage counts a hand:
// fifteens, pairs, runs and the flush, and with the starter, nobs. While a
// deal is played the starter is not known, so each line shows what its cards
// score so far without it. The rule is the engine's (engine/scoring.py,
// score_hand); tests/web/test_scoring.py holds the two to the same totals.

const RANKS = "A23456789TJQK";

function rankOf(card) {
  return RANKS.indexOf(card[0]) + 1;
}

/** The points of ``cards`` (0 to 4 of a line), with ``starter`` once it is known. */
export function linePoints(cards, starter = null) {
  const all = starter ? [...cards, starter] : cards.slice();
  const ranks = all.map(rankOf);
  const n = all.length;
  let fifteens = 0;
  for (let m = 1; m < 1 << n; m++) {
    let sum = 0;
    for (let i = 0; i < n; i++) if (m & (1 << i)) sum += Math.min(ranks[i], 10);
    if (sum === 15) fifteens += 2;
  }
  let pairs = 0;
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) if (ranks[i] === ranks[j]) pairs += 2;
  // The longest stretch of consecutive ranks, once for every way to pick one card of each rank.
  const counts = new Map();
  for (const r of ranks) counts.set(r, (counts.get(r) || 0) + 1);
  let runs = 0;
  for (const r of counts.keys()) {
    if (counts.has(r - 1)) continue;
    let length = 0, ways = 1;
    while (counts.has(r + length)) { ways *= counts.get(r + length); length += 1; }
    if (length >= 3 && length * ways > runs) runs = length * ways;
  }
  let flush = 0;
  if (cards.length === 4 && cards.every((c) => c[1] === cards[0][1])) {
    flush = 4 + (starter && starter[1] === cards[0][1] ? 1 : 0);
  }
  const nobs = starter && cards.some((c) => c[0] === "J" && c[1] === starter[1]) ? 1 : 0;
  return fifteens + pairs + runs + flush + nobs;
}

/** Each row's and each column's points so far, from 16 cells (null where empty). */
export function boardSoFar(cells) {
  const line = (indices) => linePoints(indices.map((i) => cells[i]).filter(Boolean));
  return {
    rows: [0, 1, 2, 3].map((r) => line([0, 1, 2, 3].map((c) => r * 4 + c))),
    columns: [0, 1, 2, 3].map((c) => line([0, 1, 2, 3].map((r) => r * 4 + c))),
  };
}
