// partita serve: the play page. The server sends the game as the person at the
// table sees it (#play-data, then GET state): the board (an SVG whose clickable
// regions carry data-region), the legal moves with the regions each is clicked
// as, the moves played. A click narrows the legal moves to those whose regions
// begin with the regions clicked so far; when one is left and complete it is
// played; a click that no legal move begins with is sent as it is, and the
// server answers with the rules' reason. While agents play, the page asks again.
"use strict";
(function () {
  const root = document.getElementById("play");
  if (!root) return;
  const base = root.dataset.base;
  const board = document.getElementById("board");
  const legalBox = document.getElementById("legal");
  const played = document.getElementById("played");
  const message = document.getElementById("play-message");
  const statusLine = document.getElementById("play-status");
  const selection = document.getElementById("selection");
  const clickedText = document.getElementById("clicked");
  const complete = document.getElementById("complete");
  const positionText = document.getElementById("position-text");
  const record = document.getElementById("record-text");
  const saved = document.getElementById("saved");
  const undoButton = document.getElementById("undo");
  const saveButton = document.getElementById("save");
  let state = window.partita.jsonData("play-data");
  // the first state is read once: the page keeps no stale copy of a table
  document.getElementById("play-data").remove();
  let clicked = [];
  let polling = null;

  function startsWith(list, prefix) {
    if (list.length < prefix.length) return false;
    for (let i = 0; i < prefix.length; i += 1) if (list[i] !== prefix[i]) return false;
    return true;
  }

  function candidates() {
    return state.legal.filter((m) => m.regions.length > 0 && startsWith(m.regions, clicked));
  }

  function element(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, value);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function showSelection() {
    const left = candidates();
    board.classList.toggle("narrowing", clicked.length > 0);
    const next = new Set();
    for (const m of left) if (m.regions.length > clicked.length) next.add(m.regions[clicked.length]);
    for (const region of board.querySelectorAll("[data-region]")) {
      const id = region.getAttribute("data-region");
      region.classList.toggle("chosen", clicked.includes(id));
      region.classList.toggle("next", clicked.length > 0 && next.has(id));
    }
    selection.hidden = clicked.length === 0;
    clickedText.textContent = clicked.join(" ");
    complete.replaceChildren();
    const whole = left.filter((m) => m.regions.length === clicked.length);
    if (clicked.length > 0 && whole.length === 1 && left.length > 1) {
      const button = element("button", { type: "button", class: "plain" }, `Play ${whole[0].move}`);
      button.addEventListener("click", () => play({ move: whole[0].move }));
      complete.append(button);
    }
  }

  function render(next) {
    state = next;
    clicked = [];
    statusLine.textContent = state.status;
    message.textContent = state.message || "";
    board.setAttribute("aria-label", state.position);
    board.innerHTML = state.svg; // the server's own SVG: every text in it is escaped
    board.classList.toggle("wide", Boolean(state.wide));
    positionText.textContent = state.position;
    // a keyboard user playing from the list stays in it: the focus goes to the
    // first move of the new list (to the list itself while the agents play)
    const inList = legalBox.contains(document.activeElement);
    legalBox.replaceChildren();
    if (state.legal.length === 0) {
      const why = state.over ? "The game is over." : state.thinking ? "The agents are playing…" : "Nothing to play here.";
      legalBox.append(element("span", { class: "muted" }, why));
    }
    for (const m of state.legal) {
      const button = element("button", { type: "button", class: "legal-move" }, m.move);
      button.addEventListener("click", () => play({ move: m.move }));
      legalBox.append(button);
    }
    if (state.turn.kind === "chance") {
      const button = element("button", { type: "button" }, "Let chance choose");
      button.addEventListener("click", () => play({ move: "" }));
      legalBox.prepend(button);
    }
    if (inList) (legalBox.querySelector("button") || legalBox).focus();
    played.replaceChildren();
    for (const ply of state.plies) {
      const item = element("li");
      item.append(element("span", { class: "num" }, ply.number + " "));
      item.append(element("code", {}, ply.move));
      item.append(element("span", { class: "who" }, ` (${ply.who})`));
      for (const event of ply.events) item.append(element("span", { class: "event" }, event));
      for (const comment of ply.comments) item.append(element("span", { class: "comment" }, comment));
      played.append(item);
    }
    played.scrollTop = played.scrollHeight;
    record.value = state.record || "";
    saved.textContent = state.saved || "";
    undoButton.disabled = !state.undo || state.thinking;
    if (saveButton) saveButton.disabled = !state.writable || state.thinking;
    showSelection();
    if (state.thinking) schedule();
  }

  function schedule() {
    if (polling) return;
    polling = setTimeout(async () => {
      polling = null;
      try {
        render(await window.partita.getJSON(`${base}/state`));
      } catch (error) {
        message.textContent = String(error.message || error);
        schedule();
      }
    }, 400);
  }

  // requests go one after the other, in the order of the clicks
  let queue = Promise.resolve();
  function send(path, data) {
    queue = queue.then(() => sendNow(path, data));
    return queue;
  }

  async function sendNow(path, data) {
    try {
      const response = await fetch(`${base}/${path}`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": window.partita.token() },
        body: JSON.stringify(data || {}),
        credentials: "same-origin",
      });
      let next = null;
      try {
        next = await response.json();
      } catch (error) {
        throw new Error(`the server answered ${response.status} without JSON`);
      }
      if (next && next.svg !== undefined) {
        const clickedSince = clicked.slice();
        render(next);
        if (next.incomplete && data && data.regions) {
          // not a move yet: the next click goes on (one made meanwhile is kept)
          clicked = clickedSince.length > data.regions.length ? clickedSince : data.regions.slice();
          showSelection();
        }
      } else throw new Error((next && next.error) || `the server answered ${response.status}`);
    } catch (error) {
      message.textContent = String(error.message || error);
    }
  }

  function play(data) {
    return send("move", data);
  }

  function onRegion(id) {
    if (state.turn.kind !== "human" || state.thinking) return;
    message.textContent = "";
    clicked.push(id);
    const left = candidates();
    if (left.length === 0) {
      // no legal move begins so: the server spells it and says why it is refused
      // (or that it is no move yet: the clicks are then kept)
      play({ regions: clicked.slice() });
      return;
    }
    const whole = left.filter((m) => m.regions.length === clicked.length);
    if (whole.length === 1 && left.length === 1) {
      play({ move: whole[0].move });
      return;
    }
    showSelection();
  }

  board.addEventListener("click", (event) => {
    const region = event.target.closest("[data-region]");
    if (region) onRegion(region.getAttribute("data-region"));
  });
  document.getElementById("clear-clicks").addEventListener("click", () => {
    clicked = [];
    message.textContent = "";
    showSelection();
  });
  undoButton.addEventListener("click", () => send("undo"));
  if (saveButton) saveButton.addEventListener("click", () => send("save"));
  document.getElementById("comment-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = document.getElementById("comment-text");
    send("comment", { text: input.value }).then(() => {
      input.value = "";
    });
  });
  document.getElementById("claim-form").addEventListener("submit", (event) => {
    event.preventDefault();
    send("claim", { claim: document.getElementById("claim").value });
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && clicked.length) {
      clicked = [];
      showSelection();
    }
  });
  render(state);
})();
