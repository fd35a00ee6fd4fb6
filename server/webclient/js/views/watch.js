// Watching a deal being played: the card every player already holds (the
// server's ``progress.dealt``; none at a tournament's table or in the daily
// deal), each player's progress and clock, and a feed of what happened. Never
// a board: the server sends none before the result.

import { h } from "../dom.js";
import { cardFace, cardName } from "../cards.js";
import { commitments, playersPanel } from "./play.js";

function currentCard(ctx) {
  const { store } = ctx;
  const match = store.match;
  const dealt = match.progress && match.progress.dealt;
  const elsewhere = store.room.origin === "tournament" || store.room.origin === "daily";
  return h("section", { class: "card-panel now-dealt", "aria-labelledby": "now-h" },
    h("h2", { id: "now-h" }, dealt ? `Card ${dealt.turn} of 16` : "The card"),
    dealt
      ? h("div", { class: "next-card watching" }, cardFace(dealt.card, { class: "big" }), h("span", { class: "card-name" }, cardName(dealt.card)))
      : h("p", { class: "muted" }, elsewhere
        ? "This deal is played at other tables too: its cards are shown once every table has played it."
        : "The first card is shown once every player holds it."),
    h("p", { class: "help" }, "You see the card every player already holds, and how many cards each has placed; the boards are shown when the deal is over."));
}

function feed(match) {
  return h("section", { class: "card-panel feed", "aria-labelledby": "feed-h" },
    h("h2", { id: "feed-h" }, "What happened"),
    match.feed.length === 0 ? h("p", { class: "empty" }, "Nothing yet.")
      : h("div", { class: "feed-scroll", role: "log", tabindex: "0", "aria-live": "off", "aria-label": "What happened, newest first" },
        h("ol", { class: "feed-list" }, match.feed.slice(0, 30).map((e) => h("li", { class: `feed-${e.kind}` },
          h("time", { datetime: new Date(e.at).toISOString() }, new Date(e.at).toLocaleTimeString(undefined, { timeStyle: "medium" })), " ",
          e.text, e.card ? [": ", cardFace(e.card)] : null)))));
}

/** A spectator's screen while the deal is played. */
export function watching(ctx) {
  const match = ctx.store.match;
  // On a phone, one column in this order; on a desktop, the players and the
  // commitments beside the card and the feed.
  return h("div", { class: "play watch" },
    currentCard(ctx), h("div", { class: "watch-players" }, playersPanel(ctx)), feed(match),
    h("div", { class: "watch-commitments" }, commitments(match)));
}
