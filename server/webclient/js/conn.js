// The WebSocket to the server: hello with the stored token, requests matched to
// their replies by ``ref``, and automatic reconnection with backoff when the
// connection drops (a server restart included). After a reconnection the
// server sends a room_state for every room the player is in: play resumes
// exactly where it was. It speaks protocol 2: a frame from the server may be an
// array of messages, handled one by one in order (docs/protocol.md, Frames).

const PROTOCOL = 2;
const BACKOFF_MS = [500, 1000, 2000, 4000, 8000, 10000];

export class Connection extends EventTarget {
  constructor(url) {
    super();
    this.url = url;
    this.ws = null;
    this.state = "offline"; // offline | connecting | online | retrying | stopped
    this.identity = null; // {token} or {name} or {guest, name}: what hello says
    this.attempt = 0;
    this.retryAt = null;
    this.nextRef = 1;
    this.waiting = new Map(); // ref -> {resolve, reject, types}
    this.timer = null;
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
      ws = new WebSocket(this.url);
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
      for (const [, pending] of this.waiting) pending.reject({ code: "disconnected", reason: "the connection was lost" });
      this.waiting.clear();
      if (this.identity === null) return;
      this.scheduleRetry(event.reason || `closed (${event.code})`);
    });
  }

  scheduleRetry(reason) {
    const delay = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    const jitter = Math.floor(Math.random() * delay * 0.2);
    this.attempt += 1;
    this.retryAt = Date.now() + delay + jitter;
    this.lastError = reason;
    this.setState("retrying");
    this.timer = setTimeout(() => this.open(), delay + jitter);
  }

  hello() {
    const hello = { type: "hello", protocol: PROTOCOL, client: "cribsquares-web/0.1", ...this.identity };
    this.request(hello, ["welcome"]).then(
      (welcome) => {
        this.attempt = 0;
        if (welcome.token) this.identity = { token: welcome.token };
        this.setState("online");
        this.emit("welcome", welcome);
      },
      (error) => {
        if (error.code === "disconnected") return;
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
    if (message.ref && this.waiting.has(message.ref)) {
      const pending = this.waiting.get(message.ref);
      if (message.type === "error") {
        this.waiting.delete(message.ref);
        pending.reject(message);
      } else if (!pending.types || pending.types.includes(message.type)) {
        this.waiting.delete(message.ref);
        pending.resolve(message);
      }
    }
    this.emit("message", message);
  }

  /** Send without waiting for a reply. */
  send(message) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  /** Send with a fresh ref; resolves with the reply (of one of ``types``), rejects with its error. */
  request(message, types) {
    const ref = `w${this.nextRef++}`;
    return new Promise((resolve, reject) => {
      if (!this.send({ ...message, ref })) {
        reject({ code: "disconnected", reason: "not connected to the server" });
        return;
      }
      this.waiting.set(ref, { resolve, reject, types });
    });
  }
}

/** The server's WebSocket address, from the page's own address. */
export function socketUrl(location) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/ws`;
}
