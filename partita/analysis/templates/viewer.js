// partita replay viewer: plain JavaScript, no library, no network.
// The report embeds its data as JSON (script#partita-data): per game, as base64
// of its deflated JSON text, the nodes of its move tree (mainline and
// variations), the root with its board, every other node with what changed on
// the board since its parent (computed by partita in Python). When a game is
// opened this script decompresses it (the browser's DecompressionStream),
// rebuilds its boards (expand) and then only draws. Record text (tags, moves, comments) is written with
// textContent, never as HTML.
(function () {
  "use strict";
  var SVG = "http://www.w3.org/2000/svg";
  var source = document.getElementById("partita-data");
  if (!source) { return; }
  var data = JSON.parse(source.textContent);
  var viewer = document.getElementById("viewer");
  var board = document.getElementById("viewer-board");
  var moves = document.getElementById("viewer-moves");
  var comment = document.getElementById("viewer-comment");
  var status = document.getElementById("viewer-status");
  var title = document.getElementById("viewer-title");
  var tags = document.getElementById("viewer-tags");
  var game = null;
  var current = 0;
  var spans = {};
  var expanded = {};

  // A stored game with every node's whole board and parent: the cells changed
  // ("d": index, code, ...), the marks ("mk") and text lines ("t": count, index,
  // line, ...) that differ from the parent's. A parent comes before its children.
  function expand(stored) {
    var nodes = stored.nodes.map(function (node) {
      var copy = {};
      Object.keys(node).forEach(function (key) { copy[key] = node[key]; });
      return copy;
    });
    nodes[0].p = -1;
    nodes.forEach(function (node, index) {
      node.k.forEach(function (child) { nodes[child].p = index; });
    });
    nodes.forEach(function (node) {
      if (node.f || !node.d) { return; }
      var parent = nodes[node.p].f;
      var joined = typeof parent.cells === "string";
      var cells = joined ? parent.cells.split("") : parent.cells.slice();
      for (var at = 0; at < node.d.length; at += 2) { cells[node.d[at]] = node.d[at + 1]; }
      var frame = {cells: joined ? cells.join("") : cells};
      var marks = node.mk !== undefined ? node.mk : (parent.marks || []);
      if (marks.length) { frame.marks = marks; }
      if (node.t) {
        var lines = (parent.text || "").split("\n").slice(0, node.t[0]);
        while (lines.length < node.t[0]) { lines.push(""); }
        for (var line = 1; line < node.t.length; line += 2) { lines[node.t[line]] = node.t[line + 1]; }
        frame.text = lines.join("\n");
      }
      node.f = frame;
      delete node.d; delete node.mk; delete node.t;
    });
    var game = {};
    Object.keys(stored).forEach(function (key) { game[key] = stored[key]; });
    game.nodes = nodes;
    return game;
  }

  function svg(tag, attrs) {
    var element = document.createElementNS(SVG, tag);
    Object.keys(attrs || {}).forEach(function (name) { element.setAttribute(name, attrs[name]); });
    return element;
  }

  function cellsOf(frame) {
    if (!frame) { return []; }
    var cells = frame.cells;
    if (typeof cells === "string") {
      return cells.split("").map(function (code) { return code === "." ? "" : code; });
    }
    return cells || [];
  }

  function drawBoard(node) {
    var layout = data.layouts[game.layout];
    var frame = node.f;
    while (board.firstChild) { board.removeChild(board.firstChild); }
    board.setAttribute("data-node", String(current));
    board.setAttribute("data-cells", frame ? (typeof frame.cells === "string" ? frame.cells : JSON.stringify(frame.cells)) : "");
    if (!frame) { return; }
    if (layout.kind === "text") {
      var pre = document.createElement("pre");
      pre.textContent = frame.text || "";
      board.appendChild(pre);
      return;
    }
    var root = svg("svg", {viewBox: "0 0 " + layout.width + " " + layout.height,
      width: layout.width, height: layout.height, role: "img", "class": "diagram"});
    root.appendChild(svg("rect", {x: 0, y: 0, width: layout.width, height: layout.height, fill: "#ffffff"}));
    layout.shapes.forEach(function (shape) { root.appendChild(svg(shape.kind, shape.attrs)); });
    layout.labels.forEach(function (label) {
      var text = svg("text", {x: label.x, y: label.y, "text-anchor": "middle",
        "font-family": "sans-serif", "font-size": 11, fill: "#555"});
      text.textContent = label.text;
      root.appendChild(text);
    });
    var cells = cellsOf(frame);
    var before = node.p >= 0 ? cellsOf(game.nodes[node.p].f) : cells;
    cells.forEach(function (code, index) {
      if (!code) { return; }
      var style = layout.pieces[code.charAt(0)] || ["#777777", "#333333"];
      var centre = layout.cells[index];
      root.appendChild(svg("circle", {cx: centre[0], cy: centre[1], r: layout.radius,
        fill: style[0], stroke: style[1], "stroke-width": 2, "class": "piece piece-" + code}));
      if (code.length > 1) {
        var text = svg("text", {x: centre[0], y: centre[1] + 4, "text-anchor": "middle",
          "font-family": "sans-serif", "font-size": 11});
        text.textContent = code;
        root.appendChild(text);
      }
    });
    (frame.marks || []).forEach(function (index) {
      var centre = layout.cells[index];
      root.appendChild(svg("circle", {cx: centre[0], cy: centre[1], r: layout.radius * 0.35,
        fill: "#ffffff", stroke: "#000000", "stroke-width": 1.5, "class": "mark"}));
    });
    cells.forEach(function (code, index) {
      if (code !== (before[index] || "")) {
        var centre = layout.cells[index];
        root.appendChild(svg("circle", {cx: centre[0], cy: centre[1], r: layout.radius + 2,
          fill: "none", stroke: "#00c853", "stroke-width": 3, "class": "last"}));
      }
    });
    board.appendChild(root);
  }

  function span(className, text) {
    var element = document.createElement("span");
    element.className = className;
    element.textContent = text;
    return element;
  }

  // The move list in record order: each move, then the variations that replace
  // it in parentheses, then the line's continuation. An explicit stack: no
  // recursion, however deep the variations nest.
  function drawMoves() {
    while (moves.firstChild) { moves.removeChild(moves.firstChild); }
    spans = {};
    var nodes = game.nodes;
    var needNumber = true;
    (nodes[0].c || []).forEach(function (text) { moves.appendChild(span("comment", "{" + text + "} ")); });
    var stack = [["line", 0]];
    while (stack.length) {
      var action = stack.pop();
      var kind = action[0];
      if (kind === "open") { moves.appendChild(span("var", "( ")); needNumber = true; continue; }
      if (kind === "close") { moves.appendChild(span("var", ") ")); needNumber = true; continue; }
      if (kind === "move") {
        var node = nodes[action[1]];
        (node.s || []).forEach(function (text) { moves.appendChild(span("comment", "{" + text + "} ")); });
        var label = "";
        if (node.n && (needNumber || node.n.slice(-3) !== "...")) { label = node.n + " "; }
        var element = span("mv" + (node.bad ? " bad" : ""), label + node.m + (node.x || ""));
        element.setAttribute("data-node", String(action[1]));
        if (!node.bad) {
          element.addEventListener("click", (function (index) { return function () { go(index); }; })(action[1]));
        }
        moves.appendChild(element);
        moves.appendChild(document.createTextNode(" "));
        spans[action[1]] = element;
        needNumber = false;
        (node.g || []).forEach(function (nag) {
          var named = (data.nags || {})[String(nag)];
          var shown = span("nag", (named ? named[0] : "$" + nag) + " ");
          shown.title = named ? named[1] + " ($" + nag + ")" : "$" + nag;
          moves.appendChild(shown);
        });
        (node.c || []).forEach(function (text) {
          moves.appendChild(span("comment", "{" + text + "} "));
          needNumber = true;
        });
        continue;
      }
      var children = nodes[action[1]].k;
      if (!children.length) { continue; }
      var main = children[0];
      stack.push(["line", main]);
      for (var v = children.length - 1; v >= 1; v--) {
        stack.push(["close"]);
        stack.push(["line", children[v]]);
        stack.push(["move", children[v]]);
        stack.push(["open"]);
      }
      stack.push(["move", main]);
    }
    moves.appendChild(span("status", game.result));
  }

  function plyOf(index) {
    var count = 0;
    while (game.nodes[index].p >= 0) { index = game.nodes[index].p; count++; }
    return count;
  }

  function go(index) {
    if (!game || index < 0 || index >= game.nodes.length || game.nodes[index].bad) { return; }
    if (spans[current]) { spans[current].classList.remove("current"); }
    current = index;
    var node = game.nodes[index];
    drawBoard(node);
    if (spans[index]) {
      spans[index].classList.add("current");
      var top = spans[index].offsetTop - moves.offsetTop;
      if (top < moves.scrollTop || top > moves.scrollTop + moves.clientHeight - 20) { moves.scrollTop = top - 40; }
    }
    var ply = plyOf(index);
    status.textContent = index === 0 ? "start position" :
      "ply " + ply + ": " + (node.n || "") + " " + node.m + (node.k.length ? "" : "  (" + game.result + ")");
    comment.textContent = (node.c || []).join(" ");
  }

  // A stored game: base64 of its deflated JSON text.
  function decode(encoded) {
    var binary = atob(encoded);
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) { bytes[i] = binary.charCodeAt(i); }
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    return new Response(stream).text().then(JSON.parse);
  }

  function open(id) {
    var key = String(id);
    if (!data.games[key]) { return; }
    if (expanded[key]) { show(expanded[key]); return; }
    if (typeof DecompressionStream === "undefined") {
      viewer.hidden = false;
      title.textContent = "Game " + key + ": this browser cannot unpack the stored game (no DecompressionStream)";
      return;
    }
    decode(data.games[key]).then(function (stored) {
      expanded[key] = expand(stored);
      show(expanded[key]);
    });
  }

  function show(found) {
    game = found;
    current = 0;
    title.textContent = "Game " + found.id + ": " + found.title + " (" + found.result + ")";
    while (tags.firstChild) { tags.removeChild(tags.firstChild); }
    found.tags.forEach(function (pair) {
      var row = document.createElement("tr");
      var name = document.createElement("td");
      name.textContent = pair[0];
      var value = document.createElement("td");
      value.textContent = pair[1];
      row.appendChild(name);
      row.appendChild(value);
      tags.appendChild(row);
    });
    viewer.hidden = false;
    viewer.setAttribute("data-game", String(found.id));
    drawMoves();
    go(0);
    viewer.scrollIntoView({block: "start"});
  }

  function step(delta) {
    if (!game) { return; }
    var node = game.nodes[current];
    if (delta > 0) {
      var next = node.k.filter(function (index) { return !game.nodes[index].bad; })[0];
      if (next !== undefined) { go(next); }
    } else if (node.p >= 0) {
      go(node.p);
    }
  }

  function sibling(delta) {
    if (!game || current === 0) { return; }
    var siblings = game.nodes[game.nodes[current].p].k.filter(function (index) { return !game.nodes[index].bad; });
    var at = siblings.indexOf(current);
    var next = siblings[(at + delta + siblings.length) % siblings.length];
    if (next !== undefined) { go(next); }
  }

  function end() {
    if (!game) { return; }
    var index = current;
    for (;;) {
      var next = game.nodes[index].k.filter(function (child) { return !game.nodes[child].bad; })[0];
      if (next === undefined) { break; }
      index = next;
    }
    go(index);
  }

  document.addEventListener("click", function (event) {
    var target = event.target.closest ? event.target.closest("button.open") : null;
    if (target) { open(target.getAttribute("data-game")); }
  });
  document.getElementById("viewer-first").addEventListener("click", function () { go(0); });
  document.getElementById("viewer-back").addEventListener("click", function () { step(-1); });
  document.getElementById("viewer-forward").addEventListener("click", function () { step(1); });
  document.getElementById("viewer-last").addEventListener("click", end);
  document.getElementById("viewer-close").addEventListener("click", function () { viewer.hidden = true; game = null; });
  document.addEventListener("keydown", function (event) {
    if (!game || viewer.hidden || event.altKey || event.ctrlKey || event.metaKey) { return; }
    var handled = true;
    switch (event.key) {
      case "ArrowRight": step(1); break;
      case "ArrowLeft": step(-1); break;
      case "ArrowDown": sibling(1); break;
      case "ArrowUp": sibling(-1); break;
      case "Home": go(0); break;
      case "End": end(); break;
      case "Escape": viewer.hidden = true; game = null; break;
      default: handled = false;
    }
    if (handled) { event.preventDefault(); }
  });
}());
