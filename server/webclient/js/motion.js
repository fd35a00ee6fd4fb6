// Motion: a card placed lands with a short animation, once, and never when the
// person asked for less motion (prefers-reduced-motion). The page is redrawn
// from its model at any moment, so each landing is keyed (the element's
// data-land) and played once, whatever is drawn again afterwards.

const played = new Set();
const reduced = globalThis.matchMedia ? matchMedia("(prefers-reduced-motion: reduce)") : { matches: true };

/** Play the landing of every element under ``root`` marked data-land that has not played yet. */
export function land(root) {
  for (const el of root.querySelectorAll("[data-land]")) {
    const key = el.dataset.land;
    if (played.has(key)) continue;
    played.add(key);
    if (reduced.matches || typeof el.animate !== "function") continue;
    el.animate(
      [{ transform: "scale(1.22) translateY(-6px)", opacity: 0.35 }, { transform: "none", opacity: 1 }],
      { duration: 240, easing: "cubic-bezier(.2,.9,.3,1.2)" },
    );
  }
  if (played.size > 512) played.clear(); // old keys are of deals long over
}
