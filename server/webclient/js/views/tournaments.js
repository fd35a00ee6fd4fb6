import { h } from "../dom.js";
export function tournamentListView() { return h("main", { id: "main" }, "…"); }
export function tournamentView() { return h("main", { id: "main" }, "…"); }
export function projectorView() { return h("main", { id: "main" }, "…"); }
