// The two primitives a deal needs, SHA-256 and HMAC-SHA256, from WebCrypto
// when the page has it (a secure context) and from sha256.js otherwise.

import { hmacSha256Bytes, sha256Bytes } from "./sha256.js";

const encoder = new TextEncoder();

export const utf8 = (text) => encoder.encode(text);

export function hex(bytes) {
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}

/** The implementation in use: "webcrypto" or "javascript" (no crypto.subtle here). */
export function provider(force) {
  if (force) return force;
  return globalThis.crypto && globalThis.crypto.subtle ? "webcrypto" : "javascript";
}

export async function sha256(bytes, force) {
  if (provider(force) === "webcrypto") {
    return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  }
  return sha256Bytes(bytes);
}

/** An HMAC-SHA256 keyed once, for the many blocks of one deal. */
export async function hmacKey(keyBytes, force) {
  if (provider(force) === "webcrypto") {
    const key = await crypto.subtle.importKey(
      "raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"],
    );
    return async (message) => new Uint8Array(await crypto.subtle.sign("HMAC", key, message));
  }
  return async (message) => hmacSha256Bytes(keyBytes, message);
}
