// The analysis page: start a job (POST /api/analysis), poll its progress, cancel it,
// show the value and every move's score; a move's row previews the position after it
// on the board (hover or focus), a click keeps it.
"use strict";
(function () {
  const data = window.partita.jsonData("analysis-data");
  const form = document.getElementById("analysis-form");
  if (!data || !form) return;
  const start = document.getElementById("start");
  const cancel = document.getElementById("cancel");
  const box = document.getElementById("progress-box");
  const bar = document.getElementById("progress");
  const status = document.getElementById("progress-text");
  const output = document.getElementById("analysis-result");
  const board = document.getElementById("board");
  const image = document.getElementById("board-image");
  const home = { src: image.dataset.src, label: board.dataset.position };
  let job = null;
  let timer = null;

  function element(tag, attributes, text) {
    const node = document.createElement(tag);
    Object.entries(attributes || {}).forEach(([name, value]) => node.setAttribute(name, value));
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function showBoard(src, label) {
    image.src = src;
    board.setAttribute("aria-label", label);
  }
  function boardAfter(move) {
    const query = new URLSearchParams();
    query.set("game", data.game);
    query.set("sides", String(data.sides));
    data.tag.forEach((tag) => query.append("tag", tag));
    if (data.position) query.set("position", data.position);
    query.set("moves", [...data.moves, move].join(" "));
    return `/positions/board.svg?${query}`;
  }
  function running(yes) {
    start.disabled = yes;
    cancel.disabled = !yes;
  }
  function boardWithHint(move) {
    return `${home.src}&hint=${encodeURIComponent(move)}`;
  }
  function render(result) {
    output.replaceChildren();
    if (result.moves.length) {
      // the best move's cells ringed on the analysed position
      home.src = boardWithHint(result.moves[0].move);
      showBoard(home.src, home.label);
    }
    const summary = element("p", { class: "value" });
    summary.append(element("strong", {}, "Value: "), `${result.value_text} `,
      element("span", { class: "muted" }, `(${result.exact ? "exact" : "searched"}; ${result.budget})`));
    output.append(summary);
    if (!result.moves.length) {
      output.append(element("p", { class: "muted" }, "No move to score."));
      return;
    }
    const list = element("ol", { class: "scores", "aria-label": "Moves and their scores" });
    result.moves.forEach((entry, index) => {
      const item = element("li", index === 0 ? { class: "best" } : {});
      const button = element("button", { type: "button", class: "move" }, entry.move);
      const preview = () => entry.after && showBoard(boardAfter(entry.move), entry.after);
      button.addEventListener("mouseenter", preview);
      button.addEventListener("focus", preview);
      button.addEventListener("click", preview);
      item.append(button, " ", element("span", { class: "score" }, entry.score));
      if (entry.visits !== undefined) item.append(" ", element("span", { class: "muted" }, `${entry.visits} playouts`));
      list.append(item);
    });
    list.addEventListener("mouseleave", () => showBoard(home.src, home.label));
    output.append(list);
    const back = element("button", { type: "button", class: "plain" }, "Show the analysed position");
    back.addEventListener("click", () => showBoard(home.src, home.label));
    output.append(back);
  }
  async function poll() {
    if (!job) return;
    try {
      const state = await window.partita.getJSON(`/api/analysis/${job}`);
      bar.value = state.progress;
      if (state.state === "queued") status.textContent = "Waiting for a worker…";
      else if (state.state === "running") status.textContent = `Running: ${state.elapsed.toFixed(1)} s of at most ${state.budget_seconds} s`;
      if (state.state === "done") {
        status.textContent = `Done in ${state.elapsed.toFixed(1)} s.`;
        finish();
        render(state.result);
        return;
      }
      if (state.state === "failed" || state.state === "cancelled") {
        status.textContent = state.state === "cancelled" ? `Cancelled (${state.error}).` : "";
        if (state.state === "failed") output.replaceChildren(element("p", { class: "error", role: "alert" }, state.error));
        finish();
        return;
      }
      timer = setTimeout(poll, 250);
    } catch (error) {
      output.replaceChildren(element("p", { class: "error", role: "alert" }, error.message));
      finish();
    }
  }
  function finish() {
    job = null;
    running(false);
    if (timer) clearTimeout(timer);
    timer = null;
  }
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    output.replaceChildren();
    home.src = image.dataset.src;
    showBoard(home.src, home.label);
    box.hidden = false;
    bar.value = 0;
    status.textContent = "Starting…";
    running(true);
    try {
      const answer = await window.partita.post("/api/analysis", {
        ...data,
        kind: document.getElementById("kind").value,
        agent: document.getElementById("agent").value,
        seconds: document.getElementById("seconds").value,
      });
      job = answer.id;
      poll();
    } catch (error) {
      status.textContent = "";
      output.replaceChildren(element("p", { class: "error", role: "alert" }, error.message));
      running(false);
    }
  });
  cancel.addEventListener("click", async () => {
    if (!job) return;
    const id = job;
    try {
      await window.partita.post(`/api/analysis/${id}/cancel`, {});
      status.textContent = "Cancelling…";
    } catch (error) {
      output.replaceChildren(element("p", { class: "error", role: "alert" }, error.message));
    }
  });
})();
