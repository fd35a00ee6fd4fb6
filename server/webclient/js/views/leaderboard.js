// The rated players of each pace, best first, and the ones around oneself
// (or around any player asked for).

import { h } from "../dom.js";

export function leaderboardView(ctx) {
  const { store, conn } = ctx;
  const pace = ctx.field("lb-pace", "lockstep");
  const around = ctx.field("lb-around-asked", null);
  const board = store.leaderboards.get(pace);
  const ask = (p, who) => {
    ctx.setField("lb-pace", p);
    ctx.setField("lb-around-asked", who || null);
    ctx.request({ type: "get_leaderboard", pace: p, top: 20, ...(who ? { around: who } : {}) }, ["leaderboard"]).catch(() => {});
    ctx.render();
  };
  if (!board && conn.state === "online" && !ctx.field("lb-asked-" + pace, false)) {
    ctx.setField("lb-asked-" + pace, true);
    conn.send({ type: "get_leaderboard", pace, top: 20 });
  }
  return h("main", { id: "main" },
    h("h1", {}, "Leaderboard"),
    h("div", { class: "inline-form", role: "group", "aria-label": "Pace" },
      ["lockstep", "race"].map((p) => h("button", { type: "button", class: p === pace ? "primary" : "", "aria-pressed": p === pace ? "true" : "false",
        dataset: { key: `lb-${p}` }, onclick: () => ask(p, around) }, p)),
      h("form", { class: "inline-form", onsubmit: (e) => { e.preventDefault(); ask(pace, document.getElementById("lb-around").value.trim()); } },
        h("label", { for: "lb-around" }, "Around"),
        h("input", { id: "lb-around", value: ctx.field("lb-around", around || ""), maxlength: 24, placeholder: store.me.name, oninput: (e) => ctx.setField("lb-around", e.target.value) }),
        h("button", { type: "submit" }, "Show"))),
    !board ? h("p", { role: "status" }, "Loading…") : h("div", { class: "columns" },
      h("section", { class: "card-panel", "aria-labelledby": "lb-top" }, h("h2", { id: "lb-top" }, `Top (${board.players} ranked at ${board.pace})`), table(board.top, store.me)),
      h("section", { class: "card-panel", "aria-labelledby": "lb-around-h" }, h("h2", { id: "lb-around-h" }, `Around ${around || "me"}`),
        board.around.length ? table(board.around, store.me) : h("p", { class: "empty" }, around ? `${around} has no rating at ${board.pace}.` : "You have no rating at this pace yet: play a rated series (quick play, a rated room or a rated challenge)."))),
    h("p", { class: "help" }, "Provisional players (deviation above 110) are listed after the ranked ones, without a rank."));
}

function table(entries, me) {
  if (!entries.length) return h("p", { class: "empty" }, "Nobody is rated at this pace yet.");
  return h("table", { class: "leaderboard" },
    h("thead", {}, h("tr", {}, ["Rank", "Player", "Rating", "±", "Games"].map((t) => h("th", { scope: "col", class: t === "Player" ? "" : "num" }, t)))),
    h("tbody", {}, entries.map((e) => h("tr", { class: me && e.player.id === me.id ? "mine" : "" },
      h("td", { class: "num" }, e.rank ? String(e.rank) : "–"),
      h("td", {}, h("a", { href: `#/player/${encodeURIComponent(e.player.id)}` }, e.player.name), e.provisional ? h("span", { class: "tag" }, "provisional") : null,
        me && e.player.id === me.id ? h("span", { class: "tag" }, "you") : null),
      h("td", { class: "num" }, String(e.rating)), h("td", { class: "num" }, String(e.deviation)), h("td", { class: "num" }, String(e.games))))));
}
