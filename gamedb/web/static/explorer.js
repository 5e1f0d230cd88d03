// The gamedb explorer: one page over the JSON API (docs/api.md). No framework, no build.
// Every rule of a game stays on the server: the page shows what /api/show says and asks
// /api/next where a pair of actions leads, so it works for every family alike.
"use strict";

const $ = (id) => document.getElementById(id);
const state = {
  db: null,         // served file name
  shown: null,      // the /api/show answer of the current position
  line: [],         // breadcrumb: [{position, label}], the last one is the current position
  picked: {1: null, 2: null},
  seat: null,       // null: exploring; 1 or 2: playing against the equilibrium
  unfolded: {1: false, 2: false},  // actions never played listed one by one
  first: true,
  matrixOpen: false,  // the value of each pair of moves shown      // the page's first position replaces the entry it was opened with
  unknown: null,    // the #db= of the address names no served file
};

function busy(on) { document.body.dataset.busy = on ? "1" : "0"; }

async function api(path, params) {
  const query = new URLSearchParams(params).toString();
  const response = await fetch(`/api/${path}${query ? "?" + query : ""}`);
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
  return body;
}

function showError(error) {
  const box = $("error");
  box.textContent = error ? String(error.message || error) : "";
  box.hidden = !error;
}

function signed(x, digits = 4) {
  const r = Number(x.toFixed(digits)) + 0;  // no -0.0000
  return (r >= 0 ? "+" : "") + r.toFixed(digits);
}

async function loadFiles() {
  const {dbs} = await api("dbs", {});
  const select = $("db");
  select.replaceChildren(...dbs.map((d) => {
    const option = document.createElement("option");
    option.value = d.name;
    option.textContent = d.info ? `${d.info.spec}  (${d.name})` : `${d.name}: ${d.error}`;
    option.disabled = !d.info;  // a file damaged since the server started
    return option;
  }));
  const wanted = new URLSearchParams(location.hash.slice(1));
  const named = wanted.get("db");
  if (named && dbs.some((d) => d.info && d.name === named)) {
    select.value = named;
  } else {
    if (select.selectedOptions[0]?.disabled) select.value = dbs.find((d) => d.info)?.name ?? "";
    if (named) {  // a stale, mistyped or unreadable link: say so, never show another file silently
      const what = dbs.some((d) => d.name === named) ? "the served file %s cannot be read"
        : "no served file is named %s";
      state.unknown = what.replace("%s", JSON.stringify(named.slice(0, 80))) +
        `; showing ${select.value} instead (pick a file above)`;
      return "start";
    }
  }
  return wanted.get("position") || "start";
}

// Go to a position: a fresh line (from the form) or one step along the line. Each
// position is a browser history entry (Back and Forward walk the line; the address is a
// shareable link); ``restore`` shows an entry again without adding one.
async function goTo(position, label, {fresh = false, restore = null} = {}) {
  busy(true);
  showError(null);
  try {
    const shown = await api("show", {db: state.db, position, ...(state.matrixOpen ? {matrix: "1"} : {})});
    if (restore) state.line = restore.line;
    else {
      if (fresh) state.line = [];
      state.line.push({position: shown.position, label: label || shown.position});
    }
    state.shown = shown;
    state.picked = {1: null, 2: null};
    $("position").value = shown.position;
    const address = "#" + new URLSearchParams({db: state.db, position: shown.position});
    const entry = {db: state.db, line: state.line};
    if (restore) history.replaceState(entry, "", address);
    else if (!history.state || state.first) history.replaceState(entry, "", address);
    else history.pushState(entry, "", address);
    state.first = false;
    render();
    document.body.dataset.loads = String(Number(document.body.dataset.loads || 0) + 1);
    if (state.seat !== null) await playOn();
  } catch (error) {
    if (state.seat !== null) {  // e.g. below an opening book: the game cannot go on
      log(`The game stops here: ${error.message || error}`);
      stopPlaying();
    }
    showError(error);
    // a position from a link or the box that cannot be shown stays in the box, to mend
    if (!$("position").value && !restore) $("position").value = position;
    document.body.dataset.loads = String(Number(document.body.dataset.loads || 0) + 1);
  } finally {
    busy(false);
  }
}

// Back or Forward: show the entry's position and line (playing stops: a game is not
// replayed from the history).
async function onHistory(event) {
  const entry = event.state;
  const wanted = new URLSearchParams(location.hash.slice(1));
  if (state.seat !== null) stopPlaying();
  const db = (entry && entry.db) || wanted.get("db");
  if (db && db !== state.db && [...$("db").options].some((o) => o.value === db)) {
    state.db = db;
    $("db").value = db;
  }
  const line = entry && entry.line ? entry.line : [{position: wanted.get("position") || "start", label: null}];
  await goTo(line[line.length - 1].position, null, {restore: {line}});
}

function render() {
  const shown = state.shown;
  $("summary").hidden = false;  // hidden until there is a position to show
  $("spec").textContent = shown.spec;
  $("where-text").textContent = shown.position;
  $("value").textContent = signed(shown.value);
  const bar = $("value-bar");  // -1..1 (win/loss); other payoffs are clipped to the meter
  const width = Math.min(1, Math.abs(shown.value)) * 50;
  bar.style.width = `${width}%`;
  bar.style.left = shown.value >= 0 ? "50%" : `${50 - width}%`;
  bar.className = shown.value >= 0 ? "good" : "bad";
  $("status").textContent = statusText(shown);
  const odd = $("unreachable");  // e.g. a score the cards played cannot give
  odd.hidden = !shown.unreachable;
  odd.textContent = shown.unreachable ? `No play reaches this position: ${shown.unreachable}. ` +
    "The value is that of the position as written." : "";
  renderCrumbs();
  const picture = drawPosition(shown);  // board.js
  if (picture) wireDrawing(picture);
  $("board").replaceChildren(...(picture ? [picture] : []));
  $("board").hidden = !picture;
  renderChance(shown);
  for (const player of [1, 2]) renderPlayer(shown, player);
  renderMatrix(shown);
}

// The drawing's moves (board.js marks them) are clicked like the table's rows: a player's
// own when playing, either player's when exploring; a picked one stays marked.
function wireDrawing(picture) {
  for (const node of picture.querySelectorAll(".move")) {
    const player = Number(node.getAttribute("data-player"));
    const action = Number(node.getAttribute("data-action"));
    if (state.picked[player] === action) node.classList.add("picked");
    if (!clickable(player)) {
      node.classList.add("locked");
      node.removeAttribute("tabindex");
      continue;
    }
    node.addEventListener("click", () => pick(player, action));
    node.addEventListener("keydown", (e) => { if (e.key === "Enter") pick(player, action); });
  }
}

// The value of each pair of actions (player 1's, rows against player 2's columns), on
// demand: /api/show?matrix=1. Cells both players play are marked.
function renderMatrix(shown) {
  const both = shown.actions["1"].length > 1 && shown.actions["2"].length > 1;
  $("matrix").hidden = !both || !shown.moves;
  $("matrix-toggle").textContent = state.matrixOpen ? "hide the matrix" :
    "show the value of each pair of moves (matrix)";
  const box = $("matrix-table");
  if (!state.matrixOpen || !shown.matrix) { box.replaceChildren(); return; }
  const table = document.createElement("table");
  table.className = "matrix";
  const head = table.createTHead().insertRow();
  head.append(Object.assign(document.createElement("th"), {textContent: "p1 \\ p2"}));
  for (const b of shown.actions["2"]) {
    head.append(Object.assign(document.createElement("th"), {textContent: shown.names["2"][b]}));
  }
  const body = table.createTBody();
  const played = (p, a) => (shown.strategy[String(p)] || {})[String(a)] > 0;
  shown.actions["1"].forEach((a, i) => {
    const row = body.insertRow();
    row.append(Object.assign(document.createElement("th"), {textContent: shown.names["1"][a]}));
    shown.actions["2"].forEach((b, j) => {
      const td = cell(row, signed(shown.matrix[i][j], 3), "num");
      if (played(1, a) && played(2, b)) td.classList.add("support");
    });
  });
  box.replaceChildren(table);
}

async function toggleMatrix() {
  state.matrixOpen = !state.matrixOpen;
  if (state.matrixOpen && state.shown && !state.shown.matrix) {
    busy(true);
    try {
      state.shown = await api("show", {db: state.db, position: state.shown.position, matrix: "1"});
    } catch (error) {
      showError(error);
    } finally {
      busy(false);
    }
  }
  render();
  document.body.dataset.loads = String(Number(document.body.dataset.loads || 0) + 1);
}

function statusText(shown) {
  if (shown.payoff !== null) {
    const p = shown.payoff;
    const verdict = p > 0 ? "player 1 wins" : p < 0 ? "player 2 wins" : "a draw";
    if (state.seat !== null) {
      const mine = state.seat === 1 ? p : -p;
      return `Game over: ${mine > 0 ? "you win" : mine < 0 ? "you lose" : "a draw"} (payoff ${signed(p, 2)} for player 1).`;
    }
    return `Game over: ${verdict} (payoff ${signed(p, 2)}).`;
  }
  if (shown.chance.length) return "A chance draw comes next.";
  const a = /^[aeiou]/.test(shown.noun) ? "an" : "a";
  if (state.seat !== null) return `Your move: pick ${a} ${shown.noun} (you are player ${state.seat}).`;
  const movers = [1, 2].filter((player) => shown.actions[String(player)].length > 1);
  if (movers.length === 1) return `Player ${movers[0]} picks ${a} ${shown.noun}.`;  // the other passes
  return `Pick ${a} ${shown.noun} for each player to move.`;
}

function renderCrumbs() {
  const nav = $("crumbs");
  nav.replaceChildren(...state.line.map((step, i) => {
    const item = document.createElement(i === state.line.length - 1 ? "span" : "a");
    item.textContent = i === 0 ? "start: " + shortText(step.position) : step.label;
    item.title = step.position;
    if (i < state.line.length - 1) {
      item.href = "#";
      item.addEventListener("click", (event) => { event.preventDefault(); back(i); });
    }
    return item;
  }));
}

function shortText(text) { return text.length > 48 ? text.slice(0, 45) + "..." : text; }

function back(index) {
  if (state.seat !== null) stopPlaying();
  const target = state.line[index];
  state.line = state.line.slice(0, index);
  goTo(target.position, target.label);
}

function renderChance(shown) {
  const section = $("chance");
  section.hidden = !shown.chance.length;
  $("outcomes").replaceChildren(...shown.chance.map((draw, i) => {
    const button = document.createElement("button");
    button.className = "outcome";
    button.dataset.index = i;
    button.append(labelled(draw.label || draw.position), bar(draw.prob), percent(draw.prob),
                  drawValue(draw));
    button.disabled = state.seat !== null;
    button.addEventListener("click", () => goTo(draw.position, draw.label));
    return button;
  }));
}

// A draw's value for player 1 (left out below an opening book, where it is not stored).
function drawValue(draw) {
  const span = labelled(draw.value === undefined ? "" : "value " + signed(draw.value));
  span.classList.add("value");
  return span;
}

function renderPlayer(shown, player) {
  const box = $(`player${player}`);
  const names = shown.names[String(player)];
  const actions = shown.actions[String(player)];
  const heading = document.createElement("h2");
  heading.textContent = `player ${player}` + (state.seat === player ? " (you)" :
    state.seat !== null ? " (the equilibrium)" : "");
  if (!actions.length) {
    box.replaceChildren(heading, labelled("no move here"));
    return;
  }
  // ``moves`` is left out where the file lacks the successors (an opening book's last layer)
  const moves = Object.fromEntries(((shown.moves || {})[String(player)] || []).map((m) => [m.action, m]));
  const table = document.createElement("table");
  const head = table.createTHead().insertRow();
  for (const title of [shown.noun, "equilibrium", "", `value (player ${player})`, "loss"]) {
    const th = document.createElement("th");
    th.textContent = title;
    head.append(th);
  }
  const body = table.createTBody();
  const strategy = shown.strategy[String(player)] || {};
  const best = Math.min(...actions.map((a) => moves[a] ? moves[a].loss : 0));
  // Many actions never played (e.g. high bids): past a few, they fold into one row.
  const unplayed = actions.filter((a) => !((strategy[String(a)] || 0) > 0));
  const fold = unplayed.length > FOLD_OVER && !state.unfolded[player];
  const folded = fold ? new Set(unplayed) : new Set();
  for (const action of actions) {
    if (folded.has(action)) continue;
    const prob = strategy[String(action)] || 0;
    const row = body.insertRow();
    row.className = "action" + (prob > 0 ? " played" : "") + (state.picked[player] === action ? " picked" : "");
    row.dataset.player = player;
    row.dataset.action = action;
    const move = moves[action];
    cell(row, names[String(action)], "name");
    cell(row, "", "barcell").append(bar(prob));
    cell(row, (prob * 100).toFixed(1) + "%", "num");
    // the value for the player who picks the action: player 2's is player 1's negated
    cell(row, move ? signed(player === 1 ? move.value : -move.value) : "", "num");
    const loss = cell(row, move ? (move.loss < 5e-7 ? "best" : Math.max(0, move.loss).toFixed(4)) : "", "num loss");
    if (move && move.loss <= best + 5e-7) loss.classList.add("best");
    if (clickable(player)) {
      row.tabIndex = 0;
      row.addEventListener("click", () => pick(player, action));
      row.addEventListener("keydown", (e) => { if (e.key === "Enter") pick(player, action); });
    } else {
      row.classList.add("locked");
    }
  }
  if (fold || state.unfolded[player] && unplayed.length > FOLD_OVER) {
    const row = body.insertRow();
    row.className = "fold";
    const td = row.insertCell();
    td.colSpan = 5;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "fold";
    button.textContent = fold ? `show ${unplayed.length} ${shown.noun}s never played` : "hide the ones never played";
    button.addEventListener("click", () => { state.unfolded[player] = fold; render(); });
    td.append(button);
  }
  const note = shown.moves ? [] : [labelled("values and losses: not in this file (the positions these moves lead to are below the opening book)")];
  box.replaceChildren(heading, table, ...note);
}

// Actions never played shown one by one up to this many; more fold into one row.
const FOLD_OVER = 8;

function clickable(player) {
  return state.seat === null || state.seat === player;
}

function cell(row, text, className) {
  const td = row.insertCell();
  td.textContent = text;
  td.className = className;
  return td;
}

function labelled(text) {
  const span = document.createElement("span");
  span.className = "label";
  span.textContent = text;
  return span;
}

function bar(prob) {
  const outer = document.createElement("span");
  outer.className = "bar";
  const inner = document.createElement("span");
  inner.style.width = `${(prob * 100).toFixed(2)}%`;
  outer.append(inner);
  return outer;
}

function percent(prob) { return labelled((prob * 100).toFixed(1) + "%"); }

// The single action of a player (the one not on move passes) is picked for them.
function autoPicks(shown) {
  const picked = {};
  for (const player of [1, 2]) {
    const actions = shown.actions[String(player)];
    if (actions.length === 1) picked[player] = actions[0];
  }
  return picked;
}

function pick(player, action) {
  if (document.body.dataset.busy === "1") return;
  choose(player, action);
}

// Record a player's action (and, when playing, the equilibrium's sampled answer); move
// once both players have one.
async function choose(player, action) {
  const picked = {...state.picked, ...autoPicks(state.shown)};
  picked[player] = action;
  if (state.seat !== null) picked[3 - player] = sample(state.shown.strategy[String(3 - player)]);
  state.picked = picked;
  render();
  if (picked[1] !== null && picked[2] !== null) await move(picked[1], picked[2]);
}

async function move(a1, a2) {
  busy(true);
  const shown = state.shown;
  try {
    const {outcomes} = await api("next", {db: state.db, position: shown.position, a1, a2});
    const played = playedLabel(shown, a1, a2);
    if (state.seat !== null) logMove(shown, a1, a2);
    if (outcomes.length === 1 || state.seat !== null) {
      const chosen = outcomes.length === 1 ? outcomes[0] : drawOne(outcomes);
      busy(false);
      await goTo(chosen.position, played + (chosen.label ? ", " + chosen.label : ""));
    } else {  // let the user pick the draw, as at a chance node
      busy(false);
      renderChanceAfterMove(outcomes, played);
    }
  } catch (error) {
    showError(error);
    busy(false);
  }
}

// "3 v 5"; a forced action (the pass of the player not on move) is left out: "101 (player 1)".
function playedLabel(shown, a1, a2) {
  const chose = [[1, a1], [2, a2]].filter(([p]) => shown.actions[String(p)].length > 1);
  const name = (p, a) => shown.names[String(p)][a];
  if (chose.length === 1) return `${name(...chose[0])} (player ${chose[0][0]})`;
  return `${name(1, a1)} v ${name(2, a2)}`;
}

function logMove(shown, a1, a2) {
  const actions = {1: a1, 2: a2}, seat = state.seat, other = 3 - seat;
  const said = [];
  if (shown.actions[String(seat)].length > 1) said.push(`you played ${shown.names[String(seat)][actions[seat]]}`);
  if (shown.actions[String(other)].length > 1) said.push(`the equilibrium played ${shown.names[String(other)][actions[other]]}`);
  log(said.length ? said.join(", ") : `${playedLabel(shown, a1, a2)} (nothing to choose)`);
}

function renderChanceAfterMove(outcomes, played) {
  $("chance").hidden = false;
  $("status").textContent = `${played} played; the draw comes next.`;
  $("outcomes").replaceChildren(...outcomes.map((o, i) => {
    const button = document.createElement("button");
    button.className = "outcome";
    button.dataset.index = i;
    button.append(labelled(o.label || o.position), bar(o.prob), percent(o.prob));
    button.addEventListener("click", () => goTo(o.position, `${played}, ${o.label}`));
    return button;
  }));
  for (const row of document.querySelectorAll("tr.action")) row.classList.add("locked");
}

function drawOne(outcomes) {
  const picked = sample(Object.fromEntries(outcomes.map((o, i) => [i, o.prob])));
  const chosen = outcomes[picked];
  if (chosen.label) log(`drawn: ${chosen.label}`);
  return chosen;
}

// Sample a key of {key: probability}.
function sample(distribution) {
  const entries = Object.entries(distribution || {});
  let u = Math.random() * entries.reduce((s, [, p]) => s + p, 0);
  for (const [key, p] of entries) {
    u -= p;
    if (u <= 0) return Number(key);
  }
  return Number(entries[entries.length - 1][0]);
}

// Playing: chance draws are sampled; the game stops at its end.
async function playOn() {
  const shown = state.shown;
  if (shown.payoff !== null) {
    log(statusText(shown));
    return;
  }
  if (shown.chance.length) {
    const chosen = drawOne(shown.chance);
    busy(false);
    await goTo(chosen.position, chosen.label);
    return;
  }
  const mine = shown.actions[String(state.seat)];
  if (mine.length === 1) await choose(state.seat, mine[0]);  // nothing to decide: a pass
}

function log(text) {
  $("log").hidden = false;
  const item = document.createElement("li");
  item.textContent = text;
  $("log-lines").append(item);
}

function startPlaying() {
  state.seat = Number($("seat").value);
  $("log-lines").replaceChildren();
  $("log").hidden = false;
  $("play").hidden = true;
  $("explore").hidden = false;
  log(`new game: you are player ${state.seat}`);
  goTo("start", null, {fresh: true});
}

function stopPlaying() {
  state.seat = null;
  $("play").hidden = false;
  $("explore").hidden = true;
  if (state.shown) render();
}

async function main() {
  busy(true);
  try {
    const position = await loadFiles();
    state.db = $("db").value;
    $("db").addEventListener("change", () => {
      state.db = $("db").value;
      stopPlaying();
      goTo("start", null, {fresh: true});
    });
    $("where").addEventListener("submit", (event) => {
      event.preventDefault();
      goTo($("position").value.trim() || "start", null, {fresh: true});
    });
    $("start").addEventListener("click", () => goTo("start", null, {fresh: true}));
    $("play").addEventListener("click", startPlaying);
    $("explore").addEventListener("click", stopPlaying);
    window.addEventListener("popstate", onHistory);
    $("matrix-toggle").addEventListener("click", toggleMatrix);
    await goTo(position, null, {fresh: true});
    if (state.unknown) showError(state.unknown);
  } catch (error) {
    showError(error);
  } finally {
    busy(false);
  }
}

main();
