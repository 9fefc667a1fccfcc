// The game page: step through the move tree with the buttons, the keys (← →,
// Home, End; ↓ ↑ to a variation of the move shown and back) or a click on a move; the board (an image labelled with the position),
// the move list's current move, the position links and the URL follow.
"use strict";
(function () {
  const data = window.partita.jsonData("game-data");
  if (!data) return;
  const nodes = data.nodes;
  const board = document.getElementById("board");
  let image = document.getElementById("board-image");
  const positionText = document.getElementById("position-text");
  const buttons = new Map();
  document.querySelectorAll("#moves button.move").forEach((button) => {
    buttons.set(Number(button.dataset.node), button);
  });
  let current = data.current;

  function playable(id) {
    return id !== null && id !== undefined && nodes[id] && nodes[id].pos !== null;
  }
  function positionQuery(position) {
    const query = new URLSearchParams();
    query.set("game", data.game);
    query.set("sides", String(data.sides));
    data.tags.forEach((tag) => query.append("tag", tag));
    query.set("position", position);
    return query.toString();
  }
  function show(id, focus) {
    if (!playable(id)) return;
    current = id;
    const node = nodes[id];
    board.setAttribute("aria-label", node.pos);
    if (!image) {
      image = document.createElement("img");
      image.id = "board-image";
      image.alt = "";
      board.replaceChildren(image);
    }
    image.src = `${board.dataset.src}?node=${id}`;
    positionText.textContent = node.pos;
    buttons.forEach((button, key) => {
      const here = key === id;
      button.classList.toggle("current", here);
      if (here) button.setAttribute("aria-current", "step");
      else button.removeAttribute("aria-current");
    });
    const button = buttons.get(id);
    if (button) {
      keepInView(button);
      if (focus) button.focus();
    }
    document.getElementById("position-links").hidden = Boolean(node.over);
    document.getElementById("game-over").hidden = !node.over;
    const query = positionQuery(node.pos);
    document.getElementById("find-position").href = `/?${query}`;
    document.getElementById("analyse-position").href = `/analysis?${query}`;
    document.getElementById("explore-position").href = `/explorer?${query}`;
    history.replaceState(null, "", `?node=${id}`);
    preload(nodes[id].k[0]);
  }
  // the move shown is scrolled into view inside the move list only: the page
  // itself stays put, so that the step buttons stay under a phone user's finger
  const movesBox = document.getElementById("moves");
  function keepInView(button) {
    const inner = button.getBoundingClientRect();
    const outer = movesBox.getBoundingClientRect();
    if (inner.top < outer.top) movesBox.scrollTop -= outer.top - inner.top + 4;
    else if (inner.bottom > outer.bottom) movesBox.scrollTop += inner.bottom - outer.bottom + 4;
  }
  const loaded = new Set();
  function preload(id) {
    if (!playable(id) || loaded.has(id)) return;
    loaded.add(id);
    const next = new Image();
    next.src = `${board.dataset.src}?node=${id}`;
  }
  function first() {
    show(0);
  }
  function previous() {
    const parent = nodes[current].p;
    if (parent !== null) show(parent);
  }
  function next() {
    const child = nodes[current].k[0];
    if (playable(child)) show(child);
  }
  function last() {
    let id = current;
    while (playable(nodes[id].k[0])) id = nodes[id].k[0];
    show(id);
  }
  // ↓ and ↑: the next or the previous line branching where the current move is
  // played (a variation of it, or the mainline back from one).
  function sibling(step) {
    const parent = nodes[current].p;
    if (parent === null) return;
    const siblings = nodes[parent].k.filter(playable);
    const index = siblings.indexOf(current);
    const next = siblings[index + step];
    if (next !== undefined) show(next);
  }
  document.getElementById("first").addEventListener("click", first);
  document.getElementById("previous").addEventListener("click", previous);
  document.getElementById("next").addEventListener("click", next);
  document.getElementById("last").addEventListener("click", last);
  document.getElementById("moves").addEventListener("click", (event) => {
    const button = event.target.closest("button.move");
    if (button) show(Number(button.dataset.node));
  });
  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT")) return;
    const actions = {
      ArrowLeft: previous,
      ArrowRight: next,
      Home: first,
      End: last,
      ArrowDown: () => sibling(1),
      ArrowUp: () => sibling(-1),
    };
    const action = actions[event.key];
    if (action) {
      event.preventDefault();
      action();
      // a keyboard user in the move list stays on the move shown (Enter keeps it)
      const inMoves = target && target.closest && target.closest("#moves");
      const button = buttons.get(current);
      if (inMoves && button && document.activeElement !== button) button.focus();
    }
  });
  const copy = document.getElementById("copy-pgr");
  if (copy) {
    copy.addEventListener("click", async () => {
      const text = document.getElementById("pgr-text");
      const status = document.getElementById("copy-status");
      try {
        await navigator.clipboard.writeText(text.value);
        status.textContent = "Copied.";
      } catch (error) {
        text.select();
        status.textContent = "Selected: press Ctrl+C to copy.";
      }
    });
  }
  preload(nodes[current].k[0]);
})();
