// playahead serve: the page holds the game; the server (POST /api/...) is stateless.
"use strict";

const CHOICES = { bonus_preview: ["window", "plus"], rule: ["last_chip", "even_total"] };
// what the rule options and their choices mean, for people (the raw name is the tooltip)
const RULE_NAMES = {
  bonus_preview: "bonus card preview", merge_6144: "6144s merge (and end the game)",
  size: "board size", n: "pile", k: "most per take", misere: "misère (last take loses)",
  rule: "who wins", window: "up to 3 candidates", plus: "only \"+\"",
  last_chip: "taking the last chip", even_total: "holding an even number",
};
const QUEUE_MAX = 8; // move keys pressed while the server is busy wait here, in order
const CHECKED = { merge_6144: true, misere: false };
const NAMES = {
  tictactoe: ["X", "O"], connect4: ["red", "yellow"], nim: ["player 0", "player 1"],
  chips: ["player 0", "player 1"],
};
const TILE_KEYS = {
  ArrowUp: 0, ArrowRight: 1, ArrowDown: 2, ArrowLeft: 3, w: 0, d: 1, s: 2, a: 3,
};
const OPPONENTS = [
  ["random", "random"], ["greedy", "greedy"], ["mcts:n_simulations=400", "mcts (400 simulations)"],
  ["mcts:n_simulations=3000", "mcts (3000 simulations)"], ["minimax:time_limit=1", "minimax (1 s)"],
];
// planner -> which settings the depth and simulations boxes set
const SETTINGS = {
  expectimax: { depth: "depth" }, minimax: { depth: "depth" },
  mcts: { simulations: "n_simulations" }, mc: { simulations: "n_rollouts" },
  lookahead: { depth: "depth", simulations: "n_sims" },
};

// ?seed=N makes the first game reproducible: its deal, and each move's chance (a nonce)
const S = {
  games: {}, planners: [], view: null, busy: false, autoplay: false, seed: null, queue: [],
  record: null, assist: null, review: null,
};
const MARK_CLASSES = ["inaccuracy", "mistake", "blunder"];
const PLURALS = { inaccuracy: "inaccuracies", mistake: "mistakes", blunder: "blunders" };
const $ = (id) => document.getElementById(id);

async function api(path, body) {
  const response = await fetch(path, {
    method: body === undefined ? "GET" : "POST",
    headers: { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function showError(err) { $("error").textContent = err ? String(err.message || err) : ""; }

async function busy(task) {
  if (S.busy) return null;
  S.busy = true;
  document.body.classList.add("busy");
  try {
    showError(null);
    return await task();
  } catch (err) {
    showError(err);
    return null;
  } finally {
    S.busy = false;
    document.body.classList.remove("busy");
  }
}

// ---------------------------------------------------------------- setup
function game() { return S.games[$("game").value]; }

function renderRules() {
  const box = $("rules");
  box.innerHTML = "";
  for (const [name, type] of Object.entries(game().options)) {
    const label = document.createElement("label");
    label.textContent = (RULE_NAMES[name] || name) + " ";
    label.title = name;
    let input;
    if (CHOICES[name]) {
      input = document.createElement("select");
      for (const choice of CHOICES[name]) input.add(new Option(RULE_NAMES[choice] || choice, choice));
    } else {
      input = document.createElement("input");
      input.type = type === "bool" ? "checkbox" : type === "int" ? "number" : "text";
      input.checked = Boolean(CHECKED[name]);
      if (type === "int") input.placeholder = "default";
    }
    input.dataset.rule = name;
    input.dataset.type = type;
    label.appendChild(input);
    box.appendChild(label);
  }
  const two = game().num_players === 2;
  $("two-player").hidden = !two;
  $("pad").hidden = two;
  const spec = game().default_agent;
  const name = spec.split(":")[0];
  if (S.planners.includes(name)) $("planner").value = name;
  $("keys").textContent = two
    ? "Click a cell, column or amount (digits work too). h hint, p autoplay, n new game."
    : "Arrow keys or w/a/s/d slide. h hint, p autoplay, n new game.";
}

function readRules() {
  const options = {};
  for (const input of document.querySelectorAll("[data-rule]")) {
    const type = input.dataset.type;
    if (type === "bool") options[input.dataset.rule] = input.checked;
    else if (type === "int") {
      if (input.value !== "") options[input.dataset.rule] = Number(input.value);
    } else options[input.dataset.rule] = input.value;
  }
  return options;
}

function side() {
  const value = $("side").value;
  return value === "hotseat" ? null : Number(value);
}

function agentRequest() {
  const planner = $("planner").value;
  const spec = game().default_agent;
  const agent = spec.split(":")[0] === planner ? spec : planner;
  const settings = {};
  for (const [box, option] of Object.entries(SETTINGS[planner] || {})) {
    const value = $(box).value;
    if (value !== "") settings[option] = Number(value);
  }
  return { agent, settings };
}

// ---------------------------------------------------------------- actions
async function newGame() {
  stopAutoplay();
  S.queue.length = 0;
  const seed = S.seed;
  S.seed = null;
  const view = await busy(() => api("/api/new", {
    game: game().name, options: readRules(), side: side(), opponent: $("opponent").value, seed,
  }));
  if (view) {
    view.seed = seed;
    view.ply = 0;
    S.assist = null;
    S.record = {
      game: game().name, kwargs: readRules(), seed: null, start: view.start,
      moves: [...view.record], players: players(),
    };
    show(view);
  }
}

function players() {
  if (game().num_players === 1) return ["human"];
  const opponent = $("opponent").value;
  const who = { 0: ["human", opponent], 1: [opponent, "human"] }[String(side())];
  return who || ["human", "human"];
}

async function move(action) {
  if (!S.view || S.view.done || !S.view.legal.includes(action)) return null;
  const { seed, ply } = S.view;
  const nonce = seed === null ? null : `${seed}:${ply}`;
  const view = await busy(() => api("/api/move", {
    game: S.view.game, state: S.view.state, move: action, opponent: $("opponent").value, nonce,
  }));
  if (view) {
    Object.assign(view, { seed, ply: ply + 1 });
    if (S.record) S.record.moves.push(...view.record);
    show(view);
  }
  return view;
}

// Move keys never get lost: each waits its turn (the board it was meant for comes first).
async function queueMove(action) {
  if (S.queue.length >= QUEUE_MAX) return;
  S.queue.push(action);
  if (S.draining) return;
  S.draining = true;
  try {
    while (S.queue.length) {
      while (S.busy) await new Promise((resolve) => setTimeout(resolve, 15));
      await move(S.queue.shift());
    }
  } finally {
    S.draining = false;
  }
}

async function hint() {
  if (!S.view || S.view.done) return null;
  const { agent, settings } = agentRequest();
  const data = await busy(() => api("/api/hint", {
    game: S.view.game, state: S.view.state, agent, settings,
  }));
  if (data) showHint(data);
  return data;
}

function stopAutoplay() {
  S.autoplay = false;
  $("autoplay").setAttribute("aria-pressed", "false");
}

async function toggleAutoplay() {
  if (S.autoplay) { stopAutoplay(); return; }
  S.autoplay = true;
  $("autoplay").setAttribute("aria-pressed", "true");
  while (S.autoplay && S.view && !S.view.done) {
    const data = await hint();
    if (!data || !S.autoplay) break;
    if (!(await move(data.action))) break;
    await new Promise((done) => setTimeout(done, Number($("delay").value) || 0));
  }
  stopAutoplay();
}

// ---------------------------------------------------------------- drawing
function show(view) {
  S.view = view;
  $("hint").tBodies[0].innerHTML = "";
  $("hint").tHead.hidden = true;
  $("hint-note").textContent = "";
  const board = $("board");
  board.className = "board " + view.kind + " " + (view.game === "2048" ? "twenty48" : view.game);
  board.innerHTML = "";
  board.dataset.board = JSON.stringify(view.board);
  ({ tiles: drawTiles, grid: drawGrid, columns: drawColumns, pile: drawPile })[view.kind](view, board);
  $("status").innerHTML = "";
  $("status").append(...statusParts(view));
}

function tileClass(game, value) {
  if (!value) return "tile";
  const size = value >= 1000 ? " huge" : value >= 100 ? " big" : "";
  if (game === "threes") {
    return "tile v" + value + (value >= 3 ? " card" : "") + (value >= 48 ? " high" : "") + size;
  }
  return "tile v" + value + (value > 2048 ? " high" : "") + size;
}

function drawTiles(view, board) {
  for (const row of view.board) {
    for (const value of row) {
      const tile = document.createElement("div");
      tile.className = tileClass(view.game, value);
      tile.textContent = value ? String(value) : "";
      board.appendChild(tile);
    }
  }
}

function playable(view, action) {
  const info = view.info;
  const mine = info.agent_player === null || info.agent_player === info.current_player;
  return !view.done && mine && view.legal.includes(action);
}

function drawGrid(view, board) {
  const size = view.board.length;
  board.style.gridTemplateColumns = `repeat(${size}, var(--cell))`;
  view.board.flat().forEach((value, cell) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "cell p" + value;
    button.textContent = value ? NAMES.tictactoe[value - 1] : "";
    button.title = "cell " + cell;
    button.dataset.move = String(cell);
    button.disabled = !playable(view, cell);
    board.appendChild(button);
  });
}

function drawColumns(view, board) {
  view.board.forEach((row) => row.forEach((value, col) => {
    const disc = document.createElement("button");
    disc.type = "button";
    disc.className = "disc p" + value;
    disc.title = "column " + col;
    disc.dataset.move = String(col);
    disc.disabled = !playable(view, col);
    board.appendChild(disc);
  }));
}

function drawPile(view, board) {
  const [pile, held0, held1, most] = view.board;
  const sticks = document.createElement("div");
  sticks.className = "sticks";
  sticks.textContent = pile ? "|".repeat(pile) : "(empty)";
  const held = document.createElement("div");
  held.textContent = `pile ${pile} · player 0 holds ${held0} · player 1 holds ${held1}`;
  const takes = document.createElement("div");
  takes.className = "takes";
  for (let take = 1; take <= most; take++) {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = "take " + take;
    button.dataset.move = String(take - 1);
    button.disabled = !playable(view, take - 1);
    takes.appendChild(button);
  }
  board.append(sticks, held, takes);
}

function statusParts(view) {
  const info = view.info;
  const parts = [];
  const text = (t) => document.createTextNode(t);
  if (view.kind === "tiles") {
    parts.push(text(`Score ${info.score} · moves ${info.moves}`));
    if (info.next_card !== undefined && !view.done) {
      const card = document.createElement("span");
      // next_card is 0 for a bonus card; next_range gives its smallest and largest value
      const [lo, hi] = info.next_range || [info.next_card, info.next_card];
      const values = [];
      for (let v = lo; v <= hi && values.length < 12; v *= 2) values.push(v);
      card.className = "next v" + lo;
      card.textContent = info.next_card ? String(info.next_card) : values.join("/");
      parts.push(text(" · next "), card);
    }
    if (view.done) parts.push(text(` · game over, max tile ${info.max_tile}`));
    return parts;
  }
  const names = NAMES[view.game];
  const me = info.agent_player;
  if (view.done) {
    if (info.winner < 0) parts.push(text("Draw"));
    else if (me === null) parts.push(text(`${names[info.winner]} wins`));
    else parts.push(text(info.winner === me ? "You win!" : "You lose"));
  } else if (me === null) {
    parts.push(text(`${names[info.current_player]} to move`));
  } else {
    parts.push(text(`Your move (${names[me]})`));
  }
  const last = (view.moves || []).map((m) => `${names[m.player]}: ${m.label}`).join(" · ");
  if (last) parts.push(text(" — " + last));
  return parts;
}

function showHint(data) {
  // the server formats each value ("412,300") and names their unit ("expected final score")
  const table = $("hint");
  table.tHead.rows[0].cells[1].textContent = data.unit;
  const body = table.tBodies[0];
  body.innerHTML = "";
  for (const entry of data.ranked) {
    const row = body.insertRow();
    if (entry.action === data.action) row.className = "best";
    row.insertCell().textContent = entry.label;
    const cell = row.insertCell();
    cell.className = "value";
    cell.textContent = entry.text;
  }
  table.tHead.hidden = false;
  const seconds = data.stats.seconds !== undefined ? ` in ${data.stats.seconds.toFixed(2)} s` : "";
  $("hint-note").textContent = `${data.agent}${seconds}`;
}

// ---------------------------------------------------------------- events
function onKey(event) {
  const target = event.target;
  if (target.tagName === "INPUT" || target.tagName === "SELECT") return;
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
  if (key === "h") hint();
  else if (key === "p") toggleAutoplay();
  else if (key === "n") newGame();
  else if (key === "r") reviewGame();
  else if (S.view && S.view.kind === "tiles" && key in TILE_KEYS) queueMove(TILE_KEYS[key]);
  else if (S.view && S.view.kind !== "tiles" && /^[0-9]$/.test(key)) {
    queueMove(S.view.kind === "pile" ? Number(key) - 1 : Number(key));
  } else return;
  event.preventDefault();
}

async function init() {
  const data = await api("/api/games");
  S.planners = data.planners;
  for (const g of data.games) {
    S.games[g.name] = g;
    $("game").add(new Option(g.name, g.name));
  }
  for (const p of S.planners) $("planner").add(new Option(p, p));
  for (const [spec, label] of OPPONENTS) {
    if (S.planners.includes(spec.split(":")[0])) $("opponent").add(new Option(label, spec));
  }
  $("game").addEventListener("change", () => {
    $("game").blur();
    renderRules();
    newGame();
  });
  $("new-game").addEventListener("click", newGame);
  $("review-button").addEventListener("click", () => reviewGame());
  $("save-game").addEventListener("click", saveGame);
  $("open-game").addEventListener("change", openGame);
  $("review-moves").addEventListener("click", (event) => {
    const row = event.target.closest("tr[data-index]");
    if (row) showReviewed(Number(row.dataset.index));
  });
  $("assist-start").addEventListener("click", assistStart);
  $("assist-entry").addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return;
    event.preventDefault();
    assistEntry($("assist-entry").value);
  });
  $("hint-button").addEventListener("click", hint);
  $("autoplay").addEventListener("click", toggleAutoplay);
  $("board").addEventListener("click", (event) => {
    const button = event.target.closest("[data-move]");
    if (button && !button.disabled) move(Number(button.dataset.move));
  });
  $("pad").addEventListener("click", (event) => {
    const button = event.target.closest("[data-move]");
    if (button) move(Number(button.dataset.move));
  });
  document.addEventListener("keydown", onKey);
  const query = new URLSearchParams(location.search);
  const wanted = query.get("game");
  if (wanted && S.games[wanted]) $("game").value = wanted;
  if (/^[0-9]+$/.test(query.get("seed") || "")) S.seed = Number(query.get("seed"));
  renderRules();
  await newGame();
}

// ---------------------------------------------------------------- game files, review
// A game file as the page recorded it (the server adds its sha256 and checks it).
function recordedFile() {
  const r = S.record;
  if (!r || !r.moves.length) throw new Error("no moves yet: play a move first");
  return {
    format: "playahead-game", version: 1, env: S.games[r.game].env_id, kwargs: r.kwargs,
    seed: r.seed, start: r.start, players: r.players, moves: r.moves,
  };
}

async function saveGame() {
  const data = await busy(async () => api("/api/replay", { file: recordedFile() }));
  if (!data) return;
  const blob = new Blob([JSON.stringify(data.file)], { type: "application/json" });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = `playahead-${data.game}.json`;
  link.click();
  URL.revokeObjectURL(link.href);
}

async function openGame(event) {
  const file = event.target.files[0];
  if (!file) return;
  try {
    await reviewGame(JSON.parse(await file.text()));
  } catch (err) {
    showError(err);
  }
}

// Review: /api/replay gives every position; /api/review values each move, one by one.
async function reviewGame(file) {
  showError(null);
  let data;
  try {
    data = await api("/api/replay", { file: file || recordedFile() });
  } catch (err) {
    showError(err);
    return null;
  }
  // the planner chosen on the page, if it is for this game; else the game's default
  const { agent, settings } = data.game === game().name ? agentRequest() : { settings: {} };
  S.review = { data, rows: [] };
  const body = $("review-moves").tBodies[0];
  body.innerHTML = "";
  $("review-moves").hidden = false;
  $("review-summary").textContent = "";
  const n = data.moves.length;
  for (let i = 0; i < n; i++) {
    $("review-status").textContent = `reviewing move ${i + 1} of ${n}`;
    let row;
    try {
      row = await api("/api/review", {
        game: data.game, state: data.positions[i].state, move: data.moves[i].action,
        agent, settings,
      });
    } catch (err) {
      showError(err);
      break;
    }
    if (S.review.data !== data) return null; // another review started
    S.review.rows.push(row);
    addReviewRow(body, i, row);
    drawGraph();
  }
  summarize();
  return S.review;
}

function addReviewRow(body, i, row) {
  const tr = body.insertRow();
  tr.dataset.index = String(i);
  if (row.mark) tr.className = row.mark;
  const loss = row.loss > 0 ? valueText(row.loss, row.value_kind) : "0";
  for (const text of [String(i + 1), row.played, valueText(row.played_value, row.value_kind),
    row.best, valueText(row.best_value, row.value_kind), loss, row.mark]) {
    tr.insertCell().textContent = text;
  }
}

function valueText(value, kind) {
  if (kind === "score" || Math.abs(value) >= 1000) return Math.round(value).toLocaleString("en-US");
  return Math.abs(value) >= 10 ? value.toFixed(1) : value.toFixed(3);
}

function drawGraph() {
  const rows = S.review.rows;
  const svg = $("review-graph");
  svg.removeAttribute("hidden"); // an SVG element has no hidden property
  svg.innerHTML = "";
  if (!rows.length) return;
  // two-player values are for the mover: drawn for player 0
  const y = rows.map((r) => (r.player === 1 ? -r.best_value : r.best_value));
  const lo = Math.min(...y), hi = Math.max(...y);
  const px = (i) => (rows.length === 1 ? 300 : (600 * i) / (rows.length - 1));
  const py = (v) => (hi === lo ? 75 : 145 - (140 * (v - lo)) / (hi - lo));
  const ns = "http://www.w3.org/2000/svg";
  const line = document.createElementNS(ns, "polyline");
  line.setAttribute("class", "best");
  line.setAttribute("points", y.map((v, i) => `${px(i)},${py(v)}`).join(" "));
  svg.appendChild(line);
  rows.forEach((r, i) => {
    if (!MARK_CLASSES.includes(r.mark)) return;
    const dot = document.createElementNS(ns, "circle");
    dot.setAttribute("class", r.mark);
    dot.setAttribute("cx", px(i));
    dot.setAttribute("cy", py(y[i]));
    dot.setAttribute("r", 3);
    svg.appendChild(dot);
  });
}

function summarize() {
  const rows = S.review.rows;
  if (!rows.length) return;
  const best = rows.filter((r) => r.loss === 0).length;
  const total = rows.reduce((sum, r) => sum + r.loss, 0);
  const marks = MARK_CLASSES.map((m) => {
    const n = rows.filter((r) => r.mark === m).length;
    return `${n} ${n === 1 ? m : PLURALS[m]}`;
  });
  const kind = rows[0].value_kind;
  $("review-status").textContent = `${rows.length} moves reviewed by ${rows[0].agent} (${rows[0].unit})`;
  $("review-summary").textContent = `accuracy ${((100 * best) / rows.length).toFixed(1)}% ` +
    `(${best} of ${rows.length} moves the best) · loss: total ${valueText(total, kind)}, mean ` +
    `${valueText(total / rows.length, kind)} · ${marks.join(", ")}`;
}

// A reviewed move: its board, and every move's value there.
function showReviewed(i) {
  const { data, rows } = S.review;
  for (const tr of $("review-moves").tBodies[0].rows) {
    tr.classList.toggle("selected", tr.dataset.index === String(i));
  }
  const position = data.positions[i];
  const kind = { tictactoe: "grid", connect4: "columns", nim: "pile", chips: "pile" }[data.game] || "tiles";
  const board = $("review-board");
  board.className = "board " + kind + " " + (data.game === "2048" ? "twenty48" : data.game);
  board.innerHTML = "";
  board.dataset.move = String(i + 1);
  const fake = {
    game: data.game, kind, board: position.board, legal: [], done: true,
    info: { agent_player: -1, current_player: position.player },
  };
  ({ tiles: drawTiles, grid: drawGrid, columns: drawColumns, pile: drawPile })[kind](fake, board);
  const body = $("review-values").tBodies[0];
  body.innerHTML = "";
  $("review-values").tHead.rows[0].cells[1].textContent = rows[i].unit;
  for (const entry of rows[i].ranked) {
    const tr = body.insertRow();
    if (entry.label === rows[i].played) tr.className = "played";
    if (entry.action === rows[i].action) tr.classList.add("best");
    tr.insertCell().textContent = entry.label;
    tr.insertCell().textContent = entry.text;
  }
  $("review-position").hidden = false;
}

// ---------------------------------------------------------------- assist
async function assistStart() {
  stopAutoplay();
  const name = game().name;
  if (name !== "threes" && name !== "2048") {
    showError(new Error("assist follows threes and 2048: choose one of them above"));
    return;
  }
  const { agent, settings } = agentRequest();
  const position = { board: $("assist-board").value };
  if ($("assist-next").value) position.next = $("assist-next").value;
  if ($("assist-deck").value) position.deck = $("assist-deck").value;
  const view = await busy(() => api("/api/assist", { game: name, position, agent, settings }));
  if (!view) return;
  S.assist = { stack: [view], agent, settings };
  S.record = { game: name, kwargs: {}, seed: null, start: view.start, moves: [], players: ["human"] };
  $("assist-entry").disabled = false;
  $("assist-entry").focus();
  showAssisted(view);
}

function showAssisted(view) {
  show(view);
  if (view.hint) showHint(view.hint);
}

async function assistEntry(text) {
  const a = S.assist;
  if (!a) return;
  const top = a.stack[a.stack.length - 1];
  if (text.trim().toLowerCase() === "u") {
    if (a.stack.length > 1) {
      a.stack.pop();
      S.record.moves.pop();
      showAssisted(a.stack[a.stack.length - 1]);
    }
    $("assist-entry").value = "";
    return;
  }
  const view = await busy(() => api("/api/assist", {
    game: top.game, state: top.state, entry: text, agent: a.agent, settings: a.settings,
    suggestion: top.hint ? top.hint.action : null,
  }));
  if (!view) return; // refused: the error says why, nothing changed
  a.stack.push(view);
  S.record.moves.push(view.move);
  $("assist-entry").value = "";
  showAssisted(view);
}

init().catch(showError);
