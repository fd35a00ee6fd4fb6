// A deal's results: a banner that says the outcome in words (the margin, the
// series, the rating change), the deal checked, the series standings, and
// every board ranked and scored, each line showing how it scored.

import { h } from "../dom.js";
import { cardFace, cardName } from "../cards.js";
import { provider } from "../crypto.js";
import { freshContribution } from "../store.js";
import { scoredBoard, tieRule, verificationPanel } from "./boards.js";
import { dealOutcome, ratingLines, seriesOutcome } from "./outcome.js";
import { dataTable } from "./ui.js";

let announcedResult = null;

function rematchButton(ctx) {
  const { store } = ctx;
  const room = store.room;
  const wants = room.rematch || [];
  const mine = wants.includes(store.me.id);
  const solo = room.seats === 1;
  const label = solo ? "Play again" : mine ? "Withdraw the rematch offer" : wants.length ? "Accept the rematch" : "Offer a rematch";
  return h("button", { type: "button", class: mine ? "" : "primary", dataset: { key: "rematch" }, onclick: () => {
    const want = !mine;
    const contribution = freshContribution();
    ctx.request({ type: "rematch", room_id: room.id, want, contribution }).then(() => { if (want) store.contribution = contribution; }, () => {});
    if (want) store.contribution = contribution;
  } }, label);
}

function banner(ctx) {
  const { store } = ctx;
  const match = store.match;
  const result = match.result;
  const room = store.room;
  const series = result.series;
  const me = store.spectating ? null : store.me;
  const outcome = dealOutcome(result, me, match.pace);
  const seriesText = seriesOutcome(series, me);
  const ratings = ratingLines(store.ratings, me);
  const over = !series || series.finished;
  const wants = room.rematch || [];
  const next = store.nextDealAt && series && !series.finished
    ? h("p", { class: "next-deal", role: "status" }, "The next deal starts in ", h("span", { class: "clock", dataset: { deadline: store.nextDealAt } })) : null;
  return h("section", { class: `card-panel outcome ${outcome.tone}`, "aria-labelledby": "outcome-h" },
    h("h2", { id: "outcome-h", tabindex: "-1", dataset: { focusFirst: "" } }, outcome.headline),
    outcome.detail ? h("p", { class: "outcome-detail" }, outcome.detail) : null,
    seriesText ? h("p", { class: "series-outcome" }, seriesText) : null,
    ratings.length ? h("ul", { class: "ratings" }, ratings.map((r) => h("li", { class: r.mine ? "mine" : "" }, r.text))) : null,
    next,
    h("p", { class: "starter" }, "Starter ", cardFace(result.starter), " ", cardName(result.starter)),
    h("div", { class: "actions" },
      h("a", { class: "button", href: `#/match/${encodeURIComponent(result.match_id)}` }, "Replay and analysis"),
      room.origin === "daily" ? h("a", { class: "button primary", href: "#/daily" }, "Today's standings") : null,
      !store.spectating && over && room.can_rematch ? rematchButton(ctx) : null,
      wants.length && room.seats > 1 ? h("span", { class: "muted" }, `Rematch wanted by: ${room.players.filter((s) => wants.includes(s.player.id)).map((s) => s.player.name).join(", ")}`) : null));
}

function seriesTable(series) {
  return h("section", { class: "card-panel", "aria-labelledby": "series-h" }, h("h2", { id: "series-h" }, `Series, best of ${series.best_of}`),
    dataTable({
      columns: [{ title: "Player" }, { title: "Deals won", num: true }, { title: "Points", num: true }, { title: "Time used", num: true }, { title: "Result" }],
      rows: series.standings.map((s) => ({ cells: [s.player.name, String(s.deals_won), String(s.points), `${(s.time_used_ms / 1000).toFixed(1)} s`,
        s.forfeited ? "forfeited" : series.winner && series.winner.id === s.player.id ? "winner" : ""] })),
    }));
}

/** The results screen of the deal that is over. */
export function results(ctx) {
  const { store } = ctx;
  const match = store.match;
  const result = match.result;
  const series = result.series;
  const v = match.verification;
  if (v && !v.pending && announcedResult !== result.match_id) {
    announcedResult = result.match_id;
    const me = store.spectating ? null : store.me;
    ctx.announce(`${dealOutcome(result, me, match.pace).headline}. ${v.ok ? "Deal verified." : "The deal was NOT verified."}`);
  }
  return h("div", { class: "results" },
    banner(ctx),
    verificationPanel(match.verification, provider(), ctx, `checks-${result.match_id}`),
    series && series.best_of > 1 ? seriesTable(series) : null,
    h("section", { "aria-labelledby": "boards-h" },
      h("h2", { id: "boards-h" }, "The boards"),
      h("p", { class: "help" }, tieRule(match.pace)),
      h("div", { class: "boards" }, result.boards.map((b) => scoredBoard(ctx, b, { me: store.me, pace: match.pace, key: result.match_id })))));
}
