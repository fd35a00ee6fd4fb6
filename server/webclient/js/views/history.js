import { h } from "../dom.js";
export function playerView() { return h("main", { id: "main" }, "…"); }
export function replayView() { return h("main", { id: "main" }, "…"); }
