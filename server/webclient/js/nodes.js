// Which server node the WebSocket asks for (docs/protocol.md, node_hint). A
// server of several nodes may tell this page that the room it plays in is run
// by another node; reconnecting with ``?node=NODE`` in the WebSocket URL lets
// the public address send the connection straight there. The node is kept for
// every later reconnection of this tab, a page reload included (sessionStorage:
// another tab plays its own room, maybe on another node, and a node kept for
// good would outlive the room it was for). A hint is advice: one this page
// does not follow changes nothing but the cost of forwarding.

const NODE = /^[A-Za-z0-9_-]{1,32}$/;
const KEY = "cribsquares.node";
const MINUTE_MS = 60_000;
// At most this many moves in any minute; and never back to a node left less than
// a minute ago (two nodes that each name the other would bounce the page forever).
export const MOVES_PER_MINUTE = 3;

function stored(storage) {
  try {
    const node = storage && storage.getItem(KEY);
    return node && NODE.test(node) ? node : null;
  } catch {
    return null; // storage refused: the tab starts without a node
  }
}

export class NodeRoute {
  /** ``base``: the socket's address without a node (``ws://host/ws``). */
  constructor(base, storage = globalThis.sessionStorage) {
    this.base = base;
    this.storage = storage;
    this.node = stored(storage);
    this.moves = []; // when this page moved (Date.now()), the last minute's
    this.left = new Map(); // node -> when this page moved away from it
  }

  /** The address to connect to: the base, with the node asked for if any. */
  url() {
    if (!this.node) return this.base;
    const url = new URL(this.base);
    url.searchParams.set("node", this.node);
    return url.toString();
  }

  /** Why a hint for ``node`` is not followed, or null if it is. */
  refusal(node, now = Date.now()) {
    if (typeof node !== "string" || !NODE.test(node)) return "not a node id";
    if (node === this.node) return "the address names that node already";
    this.moves = this.moves.filter((at) => now - at < MINUTE_MS);
    if (this.moves.length >= MOVES_PER_MINUTE) return `${MOVES_PER_MINUTE} moves in the last minute`;
    const left = this.left.get(node);
    if (left !== undefined && now - left < MINUTE_MS) return "this page left that node less than a minute ago";
    return null;
  }

  /** Ask for ``node`` from now on (the next connection and every one after). */
  take(node, now = Date.now()) {
    if (this.node) this.left.set(this.node, now);
    this.node = node;
    this.moves.push(now);
    try {
      if (this.storage) this.storage.setItem(KEY, node);
    } catch {
      // storage refused: the node is kept for this page's life only
    }
  }

  /** Forget the node (signing out: the next player of this tab starts afresh). */
  forget() {
    this.node = null;
    try {
      if (this.storage) this.storage.removeItem(KEY);
    } catch {
      // nothing kept
    }
  }
}
