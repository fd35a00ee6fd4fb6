// A deal's and a series' outcome in words, as whoever reads it says it: a
// player ("You won by 20") or a spectator ("ada won by 20"). Pure: text from
// the server's result, series and ratings, nothing decided here that the
// server did not say (the ranks, the winner, who forfeited).

function ordinal(n) {
  const s = ["th", "st", "nd", "rd"], v = n % 100;
  return n + (s[(v - 20) % 10] || s[v] || s[0]);
}

const points = (n) => `${n} point${n === 1 ? "" : "s"}`;
const total = (b) => b.score.total;

function names(boards) {
  const list = boards.map((b) => b.player.name);
  return list.length <= 2 ? list.join(" and ") : `${list.slice(0, -1).join(", ")} and ${list[list.length - 1]}`;
}

/** The deal's outcome: ``{headline, detail, tone}`` (tone: won, lost, drawn or neutral).
A rank the score alone does not explain (a resignation, a tie broken on time) is told
in the words of the server's ``ranking`` note, which holds the deciding figures. */
export function dealOutcome(result, me, pace) {
  const boards = result.boards;
  const mine = me ? boards.find((b) => b.player.id === me.id) : null;
  const notes = result.ranking || [];
  const left = notes.filter((n) => n.reason === "left");
  if (left.length) return resigned(boards, mine, left);
  const onTime = notes.find((n) => n.reason === "time_used" && n.player_id === boards[0].player.id);
  if (onTime && boards.length > 1 && boards[1].rank > 1) {
    const w = boards[0];
    const headline = !mine ? `${w.player.name} won on time` : mine === w ? "You won on time"
      : boards.length === 2 ? "You lost on time" : `You placed ${ordinal(mine.rank)} of ${boards.length}`;
    const tone = !mine ? "neutral" : mine === w ? "won" : "lost";
    return { headline, detail: `Equal on ${points(total(w))}: ${onTime.text}.`, tone };
  }
  if (boards.length === 1) {
    const b = boards[0];
    const who = mine ? "You" : b.player.name;
    return { headline: `${who} scored ${points(total(b))}`, detail: b.score.win ? "61 or more: a winning board." : "", tone: "neutral" };
  }
  const firsts = boards.filter((b) => b.rank === 1);
  const next = boards.find((b) => b.rank > 1);
  const byTime = (a, b) => pace === "race" && total(a) === total(b) && a.rank !== b.rank;
  if (!mine) {
    if (firsts.length > 1) return { headline: `${names(firsts)} drew`, detail: `${points(total(firsts[0]))} each.`, tone: "neutral" };
    const w = firsts[0];
    return byTime(w, next)
      ? { headline: `${w.player.name} won on time`, detail: `Equal on ${points(total(w))}, ${secondsLess(w, next)} less used than ${next.player.name}.`, tone: "neutral" }
      : { headline: `${w.player.name} won by ${points(total(w) - total(next))}`, detail: `${total(w)} to ${total(next)} (${next.player.name}).`, tone: "neutral" };
  }
  const others = boards.filter((b) => b !== mine);
  if (mine.rank === 1 && firsts.length > 1) {
    const with_ = firsts.filter((b) => b !== mine);
    return boards.length === 2
      ? { headline: "Draw", detail: `${points(total(mine))} each.`, tone: "drawn" }
      : { headline: `You shared first place of ${boards.length}`, detail: `${points(total(mine))}, level with ${names(with_)}.`, tone: "won" };
  }
  if (mine.rank === 1) {
    const second = others.reduce((a, b) => (b.rank < a.rank ? b : a));
    if (byTime(mine, second)) {
      return { headline: "You won on time", detail: `Equal on ${points(total(mine))} with ${second.player.name}, ${secondsLess(mine, second)} less used.`, tone: "won" };
    }
    return { headline: `You won by ${points(total(mine) - total(second))}`, detail: `${total(mine)} to ${total(second)} (${second.player.name}).`, tone: "won" };
  }
  const best = firsts[0];
  if (byTime(best, mine)) {
    return { headline: boards.length === 2 ? "You lost on time" : `You placed ${ordinal(mine.rank)} of ${boards.length}`,
      detail: `Equal on ${points(total(mine))} with ${best.player.name}, ${secondsLess(best, mine)} more used.`, tone: "lost" };
  }
  const behind = total(best) - total(mine);
  return boards.length === 2
    ? { headline: `You lost by ${points(behind)}`, detail: `${total(mine)} to ${total(best)} (${best.player.name}).`, tone: "lost" }
    : { headline: `You placed ${ordinal(mine.rank)} of ${boards.length}`, detail: `${points(total(mine))}, ${behind} behind ${best.player.name}.`, tone: mine.rank === 1 ? "won" : "lost" };
}

/** Someone resigned or left: the stayers rank above them whatever the boards say. */
function resigned(boards, mine, left) {
  const gone = new Set(left.map((n) => n.player_id));
  const who = boards.filter((b) => gone.has(b.player.id)).map((b) => (b === mine ? "you" : b.player.name));
  const said = `${who.join(" and ")} resigned`;
  const detail = left.map((n) => n.text).join(". ") + ".";
  if (!mine) return { headline: said[0].toUpperCase() + said.slice(1), detail, tone: "neutral" };
  if (gone.has(mine.player.id)) return { headline: "You resigned", detail, tone: "lost" };
  const headline = mine.rank === 1 ? `You won: ${said}` : `You placed ${ordinal(mine.rank)} of ${boards.length}: ${said}`;
  return { headline, detail, tone: mine.rank === 1 ? "won" : "lost" };
}

function secondsLess(a, b) {
  return `${((b.time_used_ms - a.time_used_ms) / 1000).toFixed(1)} s`;
}

/**
 * Where a series stands, in words, or null for a single deal: "You lead 1–0",
 * "You won the series 2–1", "ada won the series 2–1". A player who forfeited
 * is named (``forfeited`` in the standings).
 */
export function seriesOutcome(series, me) {
  if (!series || series.best_of <= 1) return null;
  const st = series.standings;
  const mine = me ? st.find((s) => s.player.id === me.id) : null;
  const gone = st.filter((s) => s.forfeited).map((s) => (mine && s === mine ? "you" : s.player.name));
  const forfeits = gone.length ? `${gone.join(" and ")} forfeited. ` : "";
  if (series.aborted) return `${forfeits}The series was aborted: a side placed none of its cards, so no rating moves.`;
  const score = (a, b) => `${a.deals_won}–${b.deals_won}`;
  if (gone.length && series.finished && series.winner && st.length === 2) {
    // As every client says it: "ada resigned — you win the series 2–1".
    const won = st.find((s) => s.player.id === series.winner.id);
    const lost = st.find((s) => s !== won);
    const who = mine && won === mine ? "you win" : `${won.player.name} wins`;
    // Where the deals won do not say it, the score at the resignation: "ada resigned at 1–1 — you win the series".
    if (won.deals_won <= lost.deals_won) return `${gone.join(" and ")} resigned at ${score(won, lost)} — ${who} the series`;
    return `${gone.join(" and ")} resigned — ${who} the series ${score(won, lost)}`;
  }
  if (st.length === 2) {
    const [first, second] = st;
    if (mine) {
      const other = st.find((s) => s !== mine);
      if (series.finished) {
        if (!series.winner) return `${forfeits}The series is drawn ${score(mine, other)}.`;
        return series.winner.id === me.id
          ? `${forfeits}You won the series ${score(mine, other)}.`
          : `${forfeits}${series.winner.name} won the series ${score(other, mine)}.`;
      }
      const lead = mine.deals_won - other.deals_won;
      const where = lead > 0 ? `you lead ${score(mine, other)}` : lead < 0 ? `you trail ${score(mine, other)}` : `level at ${score(mine, other)}`;
      return `Deal ${series.deal} of ${series.best_of}: ${where}.`;
    }
    if (series.finished) {
      return series.winner ? `${forfeits}${series.winner.name} won the series ${score(first, second)}.` : `${forfeits}The series is drawn ${score(first, second)}.`;
    }
    return first.deals_won === second.deals_won
      ? `Deal ${series.deal} of ${series.best_of}: level at ${score(first, second)}.`
      : `Deal ${series.deal} of ${series.best_of}: ${first.player.name} leads ${score(first, second)}.`;
  }
  const table = st.map((s) => `${s.player.name} ${s.deals_won}`).join(", ");
  if (series.finished) return `${forfeits}${series.winner ? `${series.winner.name} won the series` : "The series is drawn"} (${table}).`;
  return `Deal ${series.deal} of ${series.best_of}: ${table}.`;
}

/** What leaving a series under way did, told to the one who left (``left``'s series):
 * "You resigned at 1–1 — bo wins the series"; null where it says nothing yet. */
export function leftOutcome(series, me) {
  if (!series) return null;
  if (!series.finished) return "You forfeited the series: the others play on.";
  if (!series.standings.length) return "You forfeited the series.";
  const said = seriesOutcome(series, me);
  if (said) return said.charAt(0).toUpperCase() + said.slice(1);
  const winner = series.winner;
  if (!winner) return "You resigned.";
  return me && winner.id === me.id ? "You win." : `You resigned — ${winner.name} wins.`;
}

/** The rating changes, one's own first: "Your rating 1500 → 1512 (+12)". */
export function ratingLines(ratings, me) {
  if (!ratings) return [];
  const changes = ratings.changes.slice().sort((a, b) => Number(Boolean(me) && b.player.id === me.id) - Number(Boolean(me) && a.player.id === me.id));
  return changes.map((c) => {
    const d = c.after - c.before;
    const who = me && c.player.id === me.id ? "Your rating" : `${c.player.name}'s rating`;
    return { mine: Boolean(me && c.player.id === me.id), text: `${who} ${c.before} → ${c.after} (${d >= 0 ? "+" : "−"}${Math.abs(d)})${c.provisional ? ", provisional" : ""}` };
  });
}
