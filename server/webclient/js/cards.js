// Cards as people read them: rank and suit symbol, shaped so that the suits
// differ without colour (♣ ♦ ♥ ♠ and the letter of the suit for screen readers).

import { h } from "./dom.js";

const RANK_NAMES = { A: "ace", T: "ten", J: "jack", Q: "queen", K: "king" };
const SUIT = {
  C: { symbol: "\u2663", name: "clubs", colour: "black" },
  D: { symbol: "\u2666", name: "diamonds", colour: "red" },
  H: { symbol: "\u2665", name: "hearts", colour: "red" },
  S: { symbol: "\u2660", name: "spades", colour: "black" },
};

export function cardName(card) {
  if (!card) return "";
  const rank = card[0];
  const suit = SUIT[card[1]];
  return `${RANK_NAMES[rank] || rank} of ${suit ? suit.name : card[1]}`;
}

export function suitSymbol(card) {
  return (SUIT[card[1]] || { symbol: card[1] }).symbol;
}

export function rankText(card) {
  return card[0] === "T" ? "10" : card[0];
}

/** A card face: "8♦" with its name for assistive technology. */
export function cardFace(card, extra = {}) {
  const suit = SUIT[card[1]] || { symbol: "?", colour: "black" };
  const { class: cls, ...rest } = extra;
  return h("span", { class: `card suit-${card[1]} ${suit.colour} ${card[0] === "T" ? "ten" : ""} ${cls || ""}`.replace(/\s+/g, " ").trim(),
    role: "img", "aria-label": cardName(card), title: cardName(card), ...rest },
  h("span", { class: "card-rank", "aria-hidden": "true" }, rankText(card)),
  h("span", { class: "card-suit", "aria-hidden": "true" }, suit.symbol));
}

/** A short list of cards as text, for itemized scores: "8♦ 7♣". */
export function cardsText(cards) {
  return cards.map((c) => rankText(c) + (SUIT[c[1]] || { symbol: c[1] }).symbol).join(" ");
}
