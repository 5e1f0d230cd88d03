// The explorer's picture of a position, drawn from its fields (docs/api.md: a position
// is space-separated name=value fields) and the spec's parameters, never from a game's
// name: hands and prizes are drawn as cards, coins and a wrestler's place as a ring,
// heaps as rows of counters, a board as a grid of cells, edges as a graph standing on
// the ground (SVG). A position whose fields the page does not know is not drawn.
// A card in a hand, a heap's counter, an empty cell and an edge left are also moves: the
// element of a legal action carries class "move" with data-player and data-action (the
// API's action codes, docs/api.md), and explorer.js plays it when clicked, as a row.
"use strict";

const SVG = "http://www.w3.org/2000/svg";

// {name: text} of "a=1 b=2,3" (the word "start" has none).
function positionFields(text) {
  return Object.fromEntries(text.split(/\s+/).filter((f) => f.includes("="))
    .map((f) => [f.slice(0, f.indexOf("=")), f.slice(f.indexOf("=") + 1)]));
}

// {name: text} of "name(a=1,b=x,c=0-1,1-2)" (a value may hold commas).
function specParams(spec) {
  const inner = spec.slice(spec.indexOf("(") + 1, spec.lastIndexOf(")"));
  return Object.fromEntries(inner.split(/,(?=[a-z_]+=)/).filter((p) => p.includes("="))
    .map((p) => [p.slice(0, p.indexOf("=")), p.slice(p.indexOf("=") + 1)]));
}

function numbers(text) {
  return !text || text === "-" ? [] : text.split(",").map(Number);
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function svg(tag, attributes, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

// The picture of ``shown`` (an /api/show answer), or null.
function drawPosition(shown) {
  const fields = positionFields(shown.position);
  const params = specParams(shown.spec);
  if ("hand1" in fields && "hand2" in fields) return drawCards(fields, params, shown);
  if ("coins1" in fields && "pos" in fields) return drawRing(fields, params);
  if (shown.payoff !== null) delete fields.mover;  // the game is over: nobody moves
  if ("heaps" in fields) return drawHeaps(fields, shown);
  if ("board" in fields) return drawGrid(fields, shown);
  if ("edges" in fields && params.edges) return drawGraph(fields, params, shown);
  return null;
}

// Mark ``node`` as ``player``'s move ``action`` where that is a legal action here (its
// title: the move's name); return ``node``.
function asMove(node, shown, player, action) {
  if (!(shown.actions[String(player)] || []).includes(action)) return node;
  node.classList.add("move");
  node.setAttribute("data-player", String(player));
  node.setAttribute("data-action", String(action));
  node.setAttribute("tabindex", "0");
  node.setAttribute("role", "button");
  const name = `${shown.names[String(player)][String(action)]} (player ${player})`;
  if (node instanceof SVGElement) node.prepend(svg("title", {}, name));
  else node.title = shown.names[String(player)][String(action)];
  return node;
}

// The player who moves in a turn-based position (the other only passes), or null.
function moverOf(shown) {
  const movers = [1, 2].filter((p) => (shown.actions[String(p)] || []).length > 1 ||
    ((shown.actions[String(p)] || []).length === 1 && shown.names[String(p)][String(shown.actions[String(p)][0])] !== "pass"));
  return movers.length === 1 ? movers[0] : null;
}

function cardRow(label, cards, className, gone = [], playable = (face) => face) {
  const row = el("div", "cards");
  row.append(el("span", "what", label));
  const all = [...cards.map((c) => [c, false]), ...gone.map((c) => [c, true])].sort((a, b) => a[0] - b[0]);
  for (const [card, out] of all) {
    const face = el("span", `card ${className}${out ? " gone" : ""}`, String(card));
    face.title = out ? `${card}: played` : `${card}: in hand`;
    row.append(out ? face : playable(face, card));
  }
  if (!all.length) row.append(el("span", "none", "none"));
  return row;
}

function range(n) { return Array.from({length: n}, (_, i) => i + 1); }

// Cards in both hands (played ones faded), the prize on the table, the prizes left and
// taken, and the score (a pot of carried points where the position has one).
function drawCards(fields, params, shown) {
  const hand1 = numbers(fields.hand1), hand2 = numbers(fields.hand2);
  const n = Number(params.num_cards) || Math.max(0, ...hand1, ...hand2);
  const box = el("div", "drawing table-top");
  box.dataset.kind = "cards";
  const playable = (player) => (face, card) => asMove(face, shown, player, card);
  box.append(cardRow("player 1", hand1, "p1", range(n).filter((c) => !hand1.includes(c)),
                     playable(1)));
  if ("prizes" in fields) {
    const left = numbers(fields.prizes);
    const prize = fields.prize ? Number(fields.prize) : null;
    const taken = range(n).filter((c) => !left.includes(c) && c !== prize);
    const table = el("span", "card prize", prize === null ? "?" : String(prize));
    table.title = prize === null ? "the prize is drawn next" : "the prize on the table";
    // each word with its cards: a narrow screen breaks the row between them, not after
    // a word (a group wider than the screen still wraps inside itself)
    const group = (word, cards) => {
      const part = el("span", "group");
      part.append(el("span", "what", word), ...(cards.length ? cards : [el("span", "none", "none")]));
      return part;
    };
    const middle = el("div", "cards prizes");
    middle.append(group("prize", [table]),
                  group("left", left.map((c) => el("span", "card small", String(c)))),
                  group("taken", taken.map((c) => el("span", "card small gone", String(c)))));
    box.append(middle);
  }
  box.append(cardRow("player 2", hand2, "p2", range(n).filter((c) => !hand2.includes(c)),
                     playable(2)));
  const diff = Number(fields.diff || 0);
  const pot = Number(fields.pot || 0);
  const score = diff > 0 ? `player 1 leads by ${diff}` : diff < 0 ? `player 2 leads by ${-diff}` : "level";
  box.append(el("div", "score", `score: ${score}` + (pot ? `; pot: ${pot} carried to this round` : "")));
  return box;
}

// The field -size..size with its two off-field squares, the wrestler, both players' coins.
function drawRing(fields, params) {
  const size = Number(params.size) || 3;
  const coins = Number(params.coins) || Math.max(Number(fields.coins1), Number(fields.coins2), 1);
  const pos = Number(fields.pos);
  const cells = 2 * size + 3, w = 30, height = 70;
  const picture = svg("svg", {viewBox: `0 0 ${cells * w} ${height}`, class: "drawing ring", role: "img"});
  picture.dataset.kind = "ring";
  picture.append(svg("title", {}, `wrestler at ${pos}; player 1 pushes toward +`));
  for (let i = 0; i < cells; i++) {
    const at = i - size - 1, off = Math.abs(at) === size + 1;
    picture.append(svg("rect", {x: i * w + 1, y: 8, width: w - 2, height: 26, rx: 3,
                                class: off ? "off" : at === 0 ? "centre" : "field", "data-at": at}));
    picture.append(svg("text", {x: i * w + w / 2, y: 48, class: "at"}, String(at)));
  }
  const x = (pos + size + 1) * w + w / 2;
  picture.append(svg("circle", {cx: x, cy: 21, r: 9, class: "wrestler"}));
  const bar = (player, y) => {
    const left = Number(fields[`coins${player}`]);
    const full = cells * w - 90;
    picture.append(svg("rect", {x: 0, y, width: full, height: 6, class: "coins-bg"}));
    picture.append(svg("rect", {x: 0, y, width: full * Math.min(1, left / coins), height: 6,
                                class: `coins p${player}`}));
    picture.append(svg("text", {x: full + 6, y: y + 6, class: "count"}, `p${player}: ${left} coins`));
  };
  picture.setAttribute("viewBox", `0 0 ${cells * w} ${height + 20}`);
  bar(1, 58);
  bar(2, 72);
  return picture;
}

// Heaps as rows of counters. A counter is the move that takes it and the counters after
// it (a heap move's code is 100 x heap + take, docs/api.md; of equal heaps the first is
// the move's heap).
function drawHeaps(fields, shown) {
  const box = el("div", "drawing heaps");
  box.dataset.kind = "heaps";
  const sizes = numbers(fields.heaps), mover = moverOf(shown);
  sizes.forEach((size, i) => {
    const row = el("div", "heap");
    row.append(el("span", "what", `heap ${i + 1}`));
    const first = sizes.indexOf(size) + 1;
    for (let k = 0; k < size; k++) {
      const counter = el("span", "counter");
      row.append(mover ? asMove(counter, shown, mover, 100 * first + size - k) : counter);
    }
    row.append(el("span", "count", String(size)));
    box.append(row);
  });
  if (fields.mover) box.append(el("div", "score", `player ${fields.mover} to move`));
  return box;
}

// A board as a grid of cells, row by row; an empty cell is the move that marks it (its
// action code is the cell's number).
function drawGrid(fields, shown) {
  const cells = [...fields.board];
  const side = Math.round(Math.sqrt(cells.length)) || 1;
  const grid = el("div", "drawing grid");
  grid.dataset.kind = "grid";
  grid.style.gridTemplateColumns = `repeat(${side}, 48px)`;
  const mover = moverOf(shown);
  cells.forEach((mark, i) => {
    const cell = el("span", "cell" + (mark === "." ? " empty" : ""), mark === "." ? String(i) : mark);
    cell.title = mark === "." ? `cell ${i}: empty` : `cell ${i}: ${mark}`;
    grid.append(mark === "." && mover ? asMove(cell, shown, mover, i) : cell);
  });
  const box = el("div", "drawing-box");
  box.append(grid);
  if (fields.mover) box.append(el("div", "score", `player ${fields.mover} to move`));
  return box;
}

// Edges as a graph standing on the ground: vertex 0 is the ground line, the others are
// placed by their distance from it; each edge is labelled with its number (the move
// that erases it: the edge and its number are clicked to erase it); an erased or fallen
// edge is drawn faint and dashed.
function drawGraph(fields, params, shown) {
  const mover = moverOf(shown);
  const edges = params.edges.split(",").map((e) => e.split("-").map(Number));
  const left = new Set(numbers(fields.edges));
  const depth = {0: 0}, queue = [0];  // breadth first: each vertex's distance from the ground
  while (queue.length) {
    const a = queue.shift();
    for (const [u, v] of edges) {
      const b = u === a ? v : v === a ? u : null;
      if (b !== null && !(b in depth)) { depth[b] = depth[a] + 1; queue.push(b); }
    }
  }
  const levels = {};
  for (const [vertex, d] of Object.entries(depth)) if (d > 0) (levels[d] = levels[d] || []).push(Number(vertex));
  const deepest = Math.max(1, ...Object.values(depth));
  const width = 320, rowHeight = 70, groundY = deepest * rowHeight + 30;
  const place = {};
  for (const [d, vertices] of Object.entries(levels)) {
    vertices.sort((a, b) => a - b).forEach((v, i) => {
      place[v] = [width * (i + 1) / (vertices.length + 1), groundY - Number(d) * rowHeight];
    });
  }
  const picture = svg("svg", {viewBox: `0 0 ${width} ${groundY + 24}`, class: "drawing graph", role: "img"});
  picture.dataset.kind = "graph";
  picture.append(svg("title", {}, "the picture: edges left solid, erased ones dashed"));
  picture.append(svg("line", {x1: 0, y1: groundY, x2: width, y2: groundY, class: "ground"}));
  const seen = {};
  edges.forEach(([u, v], i) => {
    const number = i + 1, on = left.has(number);
    // a ground end stands under the other end (vertex 0 is the whole ground line)
    const end = (a, b) => (a === 0 ? [place[b] ? place[b][0] : width / 2, groundY] : place[a]);
    const loopAt = [width - 24 - 40 * (seen["0-0"] || 0), groundY];  // ground loops: at the right
    const [x1, y1] = u === 0 && v === 0 ? loopAt : end(u, v);
    const [x2, y2] = u === 0 && v === 0 ? loopAt : end(v, u);
    const key = [u, v].sort().join("-");
    const twin = (seen[key] = (seen[key] || 0) + 1) - 1;  // repeated edges bend apart
    let path, lx, ly;
    if (u === v) {  // a loop
      const r = 16 + 6 * twin;
      path = `M ${x1} ${y1} C ${x1 - 2 * r} ${y1 - 2.5 * r}, ${x1 + 2 * r} ${y1 - 2.5 * r}, ${x1} ${y1}`;
      [lx, ly] = [x1, y1 - 2 * r];
    } else {
      const bend = twin ? 24 * Math.ceil(twin / 2) * (twin % 2 ? 1 : -1) : 0;
      const mx = (x1 + x2) / 2, my = (y1 + y2) / 2;
      const dx = x2 - x1, dy = y2 - y1, length = Math.hypot(dx, dy) || 1;
      const cx = mx - (dy / length) * bend, cy = my + (dx / length) * bend;
      path = `M ${x1} ${y1} Q ${cx} ${cy} ${x2} ${y2}`;
      [lx, ly] = [(x1 + 2 * cx + x2) / 4, (y1 + 2 * cy + y2) / 4];
    }
    const group = svg("g", {class: "edge-group"});
    group.append(svg("path", {d: path, class: "edge" + (on ? "" : " gone"), "data-edge": number}));
    if (on) group.append(svg("path", {d: path, class: "hit"}));  // a wide target to click
    group.append(svg("text", {x: lx + 7, y: ly - 5, class: "label" + (on ? "" : " gone")}, String(number)));
    picture.append(on && mover ? asMove(group, shown, mover, number) : group);
  });
  for (const [v, [x, y]] of Object.entries(place)) {
    picture.append(svg("circle", {cx: x, cy: y, r: 4, class: "vertex", "data-vertex": v}));
  }
  const box = el("div", "drawing-box");
  box.append(picture);
  if (fields.mover) box.append(el("div", "score", `player ${fields.mover} to move`));
  return box;
}
