import { h } from "../dom.js";
export function leaderboardView() { return h("main", { id: "main" }, "…"); }
