// The WebSocket to the server: hello with the stored token, requests matched to
// their replies by ``ref``, and automatic reconnection with backoff when the
// connection drops (a server restart included). After a reconnection the
// server sends a room_state for every room the player is in: play resumes
// exactly where it was. It speaks protocol 2: a frame from the server may be an
// array of messages, handled one by one in order (docs/protocol.md, Frames).
//
// It follows ``node_hint`` (its hello says ``follow_node``): once no request
// is unanswered it closes with 1000 and reconnects at once to the node named
// (nodes.js keeps which, and bounds the moves); the player sees nothing of it.
//
// When the server says it drops this connection's frames (``rate_limited``
// with no ref: too many too fast, docs/protocol.md, Limits) it sends nothing
// for 1 s (2 s, then 4 s if it happens again soon), holding what is sent
// meanwhile; then it asks the server something (a ``resync`` of the room of a
// placement that may have been dropped, else a ``ping``). Every frame carries
// a ref (``send``'s too, taken off its answers) and the server reads a
// connection's frames in order, so one sent before the drop and still
// unanswered when that answer comes was dropped: it is sent again (a ping is
// not), except a placement, refused with ``{code: "dropped", again: true}`` for
// its caller to send again only if the ``room_state`` just received shows its
// turn still waiting.

const PROTOCOL = 2;
const BACKOFF_MS = [500, 1000, 2000, 4000, 8000, 10000];
const QUIET_MS = [1000, 2000, 4000]; // at least a second: the server tells one drop a second
const CALM_MS = 30_000; // a drop this long after the last quiet starts again at 1 s
const RESENDS = 3; // a request dropped more often than this is given up
const STALE_MS = 15_000; // a request unanswered this long no longer holds a move back

export class Connection extends EventTarget {
  /** ``route``: the NodeRoute that says which address to connect to. */
  constructor(route) {
    super();
    this.route = route;
    this.ws = null;
    this.state = "offline"; // offline | connecting | online | moving | retrying | stopped
    this.identity = null; // {token} or {name} or {guest, name}: what hello says
    this.attempt = 0;
    this.retryAt = null;
    this.nextRef = 1;
    // Every frame sent, until answered: ref -> {message, resolve, reject, types, at, suspect, resends}.
    // ``request`` refs are "w1", "w2"…; ``send``'s "b1"…, taken off its answers (nobody asked).
    this.waiting = new Map();
    this.timer = null;
    this.moveTo = null; // the node a hint named, until no request is unanswered
    this.moving = false; // from closing for a move until the next welcome
    this.quietTimer = null; // while the server drops frames: nothing is sent
    this.held = []; // frames sent meanwhile, sent when the quiet ends
    this.drops = 0; // how many quiets in a row (each one longer)
    this.quietEnded = null;
  }

  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  setState(state) {
    this.state = state;
    this.emit("state", state);
  }

  /** Open (or reopen) the socket and say hello as ``identity``. */
  start(identity) {
    this.identity = identity;
    this.attempt = 0;
    this.open();
  }

  /** Close for good (sign out). */
  stop() {
    this.identity = null;
    this.moveTo = null;
    this.moving = false;
    this.endQuiet();
    clearTimeout(this.timer);
    this.setState("stopped");
    if (this.ws) this.ws.close(1000, "signed out");
    this.ws = null;
  }

  retryNow() {
    if (this.state !== "retrying") return;
    clearTimeout(this.timer);
    this.open();
  }

  open() {
    clearTimeout(this.timer);
    this.retryAt = null;
    this.setState("connecting");
    let ws;
    try {
      ws = new WebSocket(this.route.url());
    } catch (error) {
      this.scheduleRetry(String(error));
      return;
    }
    this.ws = ws;
    ws.addEventListener("open", () => this.hello());
    ws.addEventListener("message", (event) => this.receive(event.data));
    ws.addEventListener("close", (event) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.endQuiet();
      if (this.moveTo) this.route.take(this.moveTo); // a move was due: reconnect there
      this.moveTo = null;
      for (const [, pending] of this.waiting) pending.reject({ code: "disconnected", reason: "the connection was lost" });
      this.waiting.clear();
      if (this.identity === null) return;
      this.scheduleRetry(event.reason || `closed (${event.code})`);
    });
  }

  scheduleRetry(reason) {
    this.moving = false;
    const delay = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    const jitter = Math.floor(Math.random() * delay * 0.2);
    this.attempt += 1;
    this.retryAt = Date.now() + delay + jitter;
    this.lastError = reason;
    this.setState("retrying");
    this.timer = setTimeout(() => this.open(), delay + jitter);
  }

  hello(followNode = true) {
    // follow_node: this page is served by the server itself, which knows the
    // field, and so does every node of a cluster (they serve the same files).
    // Only a node not yet upgraded, while a cluster is, refuses it (bad_message):
    // the page then says hello once more without it, on the same socket.
    const hello = { type: "hello", protocol: PROTOCOL, client: "cribsquares-web/0.1", ...this.identity };
    if (followNode) hello.follow_node = true;
    this.request(hello, ["welcome"]).then(
      (welcome) => {
        this.attempt = 0;
        this.moving = false;
        if (welcome.token) this.identity = { token: welcome.token };
        this.setState("online");
        this.emit("welcome", welcome);
        this.moveIfIdle();
      },
      (error) => {
        if (error.code === "disconnected") return;
        if (error.code === "bad_message" && followNode) {
          this.hello(false);
          return;
        }
        const identity = this.identity;
        this.identity = null;
        this.setState("stopped");
        if (this.ws) this.ws.close(1000, "sign-in refused");
        this.emit("refused", { error, identity });
      },
    );
  }

  /** One frame: a message, or (protocol 2) an array of messages, handled in order. */
  receive(data) {
    let frame;
    try {
      frame = JSON.parse(data);
    } catch {
      return;
    }
    for (const message of Array.isArray(frame) ? frame : [frame]) {
      if (message && typeof message === "object" && !Array.isArray(message)) this.handle(message);
    }
  }

  handle(message) {
    if (message.type === "error" && message.code === "rate_limited" && !message.ref) this.dropped();
    if (message.type === "node_hint") this.hinted(message.node);
    const ref = message.ref;
    if (ref && this.waiting.has(ref)) {
      const pending = this.waiting.get(ref);
      if (message.type === "error") {
        this.waiting.delete(ref);
        pending.reject(message);
      } else if (!pending.types || pending.types.includes(message.type)) {
        this.waiting.delete(ref);
        pending.resolve(message);
      }
    }
    this.emit("message", typeof ref === "string" && ref.startsWith("b") ? { ...message, ref: null } : message);
    this.moveIfIdle();
  }

  // --- node hints ------------------------------------------------------------

  hinted(node) {
    if (this.route.refusal(node) === null) this.moveTo = node;
    // the latest word counts: a hint for where this page is cancels a move not yet made
    else if (node === this.route.node) this.moveTo = null;
  }

  /** Move to the hinted node if nothing is unanswered, held or being recovered. */
  moveIfIdle() {
    const ws = this.ws;
    if (!this.moveTo || !ws || this.state !== "online" || this.quietTimer) return;
    const now = Date.now();
    for (const pending of this.waiting.values()) if (now - pending.at < STALE_MS) return;
    this.route.take(this.moveTo);
    this.moveTo = null;
    this.ws = null; // its close is this page's own: no retry, no banner
    this.moving = true;
    this.setState("moving");
    let timer = null;
    const reconnect = () => {
      clearTimeout(timer);
      if (this.state === "moving") this.open();
    };
    timer = setTimeout(reconnect, 2000); // a close handshake that never ends delays nothing longer
    ws.addEventListener("close", reconnect, { once: true });
    ws.close(1000, "moving to the room's node");
  }

  // --- frames the server dropped -------------------------------------------------

  dropped() {
    if (this.quietTimer) return; // told about a frame sent before this quiet began
    const now = Date.now();
    const again = this.quietEnded !== null && now - this.quietEnded < CALM_MS;
    this.drops = again ? Math.min(this.drops + 1, QUIET_MS.length - 1) : 0;
    const wait = QUIET_MS[this.drops];
    for (const pending of this.waiting.values()) pending.suspect = true;
    this.quietTimer = setTimeout(() => this.resume(), wait);
    this.emit("limited", { waitMs: wait });
  }

  endQuiet() {
    clearTimeout(this.quietTimer);
    this.quietTimer = null;
    this.held = [];
  }

  resume() {
    this.quietTimer = null;
    this.quietEnded = Date.now();
    const suspects = [...this.waiting].filter(([, pending]) => pending.suspect);
    const held = this.held;
    this.held = [];
    if (suspects.length) {
      const place = suspects.find(([, pending]) => pending.message.type === "place");
      const probe = place ? { type: "resync", room_id: place[1].message.room_id } : { type: "ping" };
      const redo = () => this.redo(suspects);
      this.request(probe).then(redo, (error) => { if (error.code !== "disconnected") redo(); });
    }
    for (const frame of held) this.transmit(frame);
  }

  /** The probe sent after a quiet was answered: what it overtook unanswered was dropped. */
  redo(suspects) {
    for (const [ref, pending] of suspects) {
      if (this.waiting.get(ref) !== pending || !pending.suspect) continue;
      pending.suspect = false;
      pending.resends += 1;
      const type = pending.message.type;
      if (type === "ping") {
        this.waiting.delete(ref); // a pong too late tells nothing
      } else if (pending.resends > RESENDS) {
        this.waiting.delete(ref);
        pending.reject({ code: "dropped", reason: `the server dropped ${type} ${pending.resends} times: too many messages at once` });
      } else if (type === "place") {
        this.waiting.delete(ref);
        pending.reject({ code: "dropped", again: true, reason: "the server dropped this placement: too many messages at once" });
      } else {
        this.transmit({ ...pending.message, ref }); // the same ref: its answer resolves the same request
      }
    }
    this.moveIfIdle();
  }

  /** One frame to the server (held while it drops frames); false if not connected. */
  transmit(frame) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    if (this.quietTimer) this.held.push(frame);
    else this.ws.send(JSON.stringify(frame));
    return true;
  }

  track(ref, message, resolve, reject, types) {
    this.waiting.set(ref, { message, resolve, reject, types, at: Date.now(), suspect: false, resends: 0 });
  }

  /** Send without waiting for the answer (which comes as a message like any other). */
  send(message) {
    const ref = `b${this.nextRef++}`;
    if (!this.transmit({ ...message, ref })) return false;
    this.track(ref, message, () => {}, () => {}, null);
    return true;
  }

  /** Send with a fresh ref; resolves with the reply (of one of ``types``), rejects with its error. */
  request(message, types) {
    const ref = `w${this.nextRef++}`;
    return new Promise((resolve, reject) => {
      if (!this.transmit({ ...message, ref })) {
        reject({ code: "disconnected", reason: "not connected to the server" });
        return;
      }
      this.track(ref, message, resolve, reject, types);
    });
  }
}

/** The server's WebSocket address (without a node), from the page's own address. */
export function socketUrl(location) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/ws`;
}
