// Sign in with a name (the token is kept in this browser), as a guest, or with
// the token of an account moved from another device; the account page shows
// the token to move, and signs out.

import { h } from "../dom.js";

export function signInView(ctx) {
  const { store, conn } = ctx;
  const busy = conn.state === "connecting" || conn.state === "online";
  const name = () => document.getElementById("signin-name").value.trim();
  return h("main", { id: "main", class: "signin" },
    h("h1", {}, "cribsquares"),
    h("p", { class: "lead" }, "Cribbage Squares against real people: the same cards for everyone, placed at the same time, and every deal checked in your browser."),
    store.signinError ? h("p", { class: "error", role: "alert" }, store.signinError) : null,
    busy ? h("p", { role: "status" }, "Signing in…") : null,
    h("form", { class: "card-panel", onsubmit: (e) => { e.preventDefault(); ctx.signIn({ name: name() }); } },
      h("h2", {}, "Sign in"),
      h("label", { for: "signin-name" }, "Your name"),
      h("input", { id: "signin-name", name: "name", required: true, maxlength: 24, pattern: "[\\w .\\-]+",
        autocomplete: "nickname", value: ctx.field("signin-name"), dataset: { key: "signin-name" },
        oninput: (e) => ctx.setField("signin-name", e.target.value),
        "aria-describedby": "signin-help" }),
      h("p", { id: "signin-help", class: "help" }, "1–24 letters, digits, spaces, _ . -. The first time, this registers the name; this browser then keeps you signed in."),
      h("div", { class: "actions" },
        h("button", { type: "submit", class: "primary", disabled: busy }, "Sign in"),
        h("button", { type: "button", disabled: busy, onclick: () => ctx.signIn({ guest: true, ...(name() ? { name: name() } : {}) }) }, "Play as a guest"))),
    h("form", { class: "card-panel", onsubmit: (e) => {
      e.preventDefault();
      const token = document.getElementById("signin-token").value.trim();
      if (token) ctx.signIn({ token });
    } },
      h("h2", {}, "Move an account here"),
      h("label", { for: "signin-token" }, "Account token (from “My account” on the other device)"),
      h("input", { id: "signin-token", name: "token", autocomplete: "off", spellcheck: "false", maxlength: 128 }),
      h("div", { class: "actions" }, h("button", { type: "submit", disabled: busy }, "Sign in with the token"))));
}

export function accountView(ctx) {
  const { store } = ctx;
  const me = store.me;
  const token = ctx.savedToken();
  const shown = ctx.field("show-token", false);
  return h("main", { id: "main" },
    h("h1", {}, "My account"),
    h("dl", { class: "facts" },
      h("dt", {}, "Name"), h("dd", {}, me.name),
      h("dt", {}, "Player id"), h("dd", {}, h("code", {}, me.id)),
      h("dt", {}, "Kind"), h("dd", {}, me.guest ? "guest (kept in this tab only)" : "registered")),
    h("section", { class: "card-panel" },
      h("h2", {}, "Use this account on another device"),
      h("p", {}, "The token is the account: whoever has it plays as you. Paste it in “Move an account here” on the other device’s sign-in page."),
      shown
        ? h("p", {}, h("label", { for: "token-text" }, "Token "), h("input", { id: "token-text", readonly: true, value: token || "", class: "token", onfocus: (e) => e.target.select() }))
        : null,
      h("div", { class: "actions" },
        h("button", { type: "button", dataset: { key: "show-token" }, onclick: () => { ctx.setField("show-token", !shown); ctx.render(); } }, shown ? "Hide the token" : "Show the token"),
        shown && navigator.clipboard ? h("button", { type: "button", onclick: () => navigator.clipboard.writeText(token || "").then(() => store.notice("Token copied.")) }, "Copy") : null)),
    h("section", { class: "card-panel" },
      h("h2", {}, "Sign out"),
      h("p", {}, me.guest ? "A guest who signs out cannot come back as the same player." : "This browser forgets the token. Keep a copy to sign in again as " + me.name + "."),
      h("button", { type: "button", class: "danger", onclick: async () => {
        if (await ctx.confirm("Sign out of this browser?", "Sign out")) ctx.signOut();
      } }, "Sign out")));
}
