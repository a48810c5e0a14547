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
// ?seed=N makes the first game reproducible: its deal, and each move's chance (a nonce)
const S = {
  games: {}, planners: [], agents: {}, limits: {}, view: null, busy: false, autoplay: false,
  seed: null, queue: [], record: null, assist: null, review: null,
};
const MARK_CLASSES = ["inaccuracy", "mistake", "blunder"];
const PLURALS = { inaccuracy: "inaccuracies", mistake: "mistakes", blunder: "blunders" };
const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const ASSISTED = ["threes", "2048"]; // the games assist follows

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
  $("two-player").hidden = game().num_players !== 2;
  const spec = game().default_agent;
  const name = spec.split(":")[0];
  if (S.planners.includes(name)) $("planner").value = name;
  renderPlannerOptions();
  showKeys();
}

function showKeys() {
  const two = game().num_players === 2;
  $("pad").hidden = two || Boolean(S.assist);
  $("keys").textContent = S.assist
    ? "Type what happened in the entry box: the swipe (h j k l, none for the suggested " +
      "move), where the card or tile came in, Threes' next card; u undoes. h hint, n new game."
    : two
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

// The planner's options, as GET /api/agents declares them (name, type, default, cap).
function renderPlannerOptions() {
  const box = $("planner-options");
  box.innerHTML = "";
  const agent = S.agents[$("planner").value];
  $("planner").title = agent ? agent.summary : "";
  for (const option of agent ? agent.options : []) {
    const label = document.createElement("label");
    label.textContent = option.name.replaceAll("_", " ") + " ";
    label.title = option.help;
    const input = document.createElement("input");
    input.dataset.option = option.name;
    input.dataset.type = option.type;
    if (option.type === "str") input.type = "text";
    else {
      input.type = "number";
      input.min = option.type === "int" ? "1" : "0";
      input.step = option.type === "int" ? "1" : "any";
      if (option.cap !== null) input.max = String(option.cap);
    }
    input.placeholder = option.default === null ? "auto" : String(option.default);
    label.appendChild(input);
    box.appendChild(label);
  }
}

function agentRequest() {
  const planner = $("planner").value;
  const spec = game().default_agent;
  const agent = spec.split(":")[0] === planner ? spec : planner;
  const settings = {};
  for (const input of $("planner-options").querySelectorAll("[data-option]")) {
    const value = input.value.trim();
    if (value === "") continue;
    settings[input.dataset.option] = input.dataset.type === "str" ? value : Number(value);
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
  if (!view) return;
  view.seed = seed;
  view.ply = 0;
  S.record = {
    game: game().name, kwargs: readRules(), seed: null, start: view.start,
    moves: [...view.record], players: players(),
  };
  if (S.assist && ASSISTED.includes(view.game)) {
    // assisting: the new game's board takes the entries, as a typed-in one does
    const { agent, settings } = agentRequest();
    S.assist = { stack: [view], agent, settings };
    S.record.players = ["human"];
    showAssisted(view);
    const data = await busy(() => api("/api/hint", { game: view.game, state: view.state, agent, settings }));
    if (data && S.assist && S.assist.stack[0] === view) {
      view.hint = data;
      showAssisted(view);
    }
    return;
  }
  stopAssist();
  show(view);
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
  if (S.assist) { showError(new Error(ASSIST_KEYS)); return; }
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
  // two-player searches say which values are solved: exact, or a depth-limited estimate
  const judged = Boolean(data.note);
  table.dataset.exact = judged ? String(data.exact) : "";
  for (const entry of data.ranked) {
    const row = body.insertRow();
    if (entry.action === data.action) row.className = "best";
    row.insertCell().textContent = entry.label;
    const cell = row.insertCell();
    cell.className = "value";
    cell.textContent = entry.text;
    if (judged) {
      const exact = data.exact_moves.includes(entry.action);
      cell.classList.add(exact ? "exact" : "estimate");
      cell.title = exact ? "exact (solved)" : "estimate (depth-limited search)";
    }
  }
  table.tHead.hidden = false;
  const seconds = data.stats.seconds !== undefined ? ` in ${data.stats.seconds.toFixed(2)} s` : "";
  $("hint-note").textContent = `${data.agent}${seconds}${judged ? " · " + data.note : ""}`;
}

// ---------------------------------------------------------------- events
const ASSIST_KEYS = "this board follows a game played elsewhere: type what happened in the entry box";

function onKey(event) {
  const target = event.target;
  if (["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName)) return;
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
  const inReview = target.closest && target.closest("#review-panel");
  if (inReview && (key in TILE_KEYS || /^[0-9]$/.test(key))) return; // never the game's
  if (key === "h") hint();
  else if (key === "p") toggleAutoplay();
  else if (key === "n") newGame();
  else if (key === "r") reviewGame();
  else if (S.assist && key in TILE_KEYS) showError(new Error(ASSIST_KEYS)); // no move
  else if (S.view && S.view.kind === "tiles" && key in TILE_KEYS) queueMove(TILE_KEYS[key]);
  else if (S.view && S.view.kind !== "tiles" && /^[0-9]$/.test(key)) {
    queueMove(S.view.kind === "pile" ? Number(key) - 1 : Number(key));
  } else return;
  event.preventDefault();
}

async function init() {
  const [data, agents] = await Promise.all([api("/api/games"), api("/api/agents")]);
  S.planners = data.planners;
  S.limits = { file: data.max_file_bytes, cli: data.cli_max_file_bytes };
  for (const agent of agents.agents) S.agents[agent.name] = agent;
  for (const g of data.games) {
    S.games[g.name] = g;
    $("game").add(new Option(g.name, g.name));
  }
  for (const p of S.planners) $("planner").add(new Option(p, p));
  for (const [spec, label] of data.opponents) $("opponent").add(new Option(label, spec));
  $("game").addEventListener("change", () => {
    $("game").blur();
    if (!ASSISTED.includes(game().name)) stopAssist();
    renderRules();
    newGame();
  });
  $("planner").addEventListener("change", renderPlannerOptions);
  $("new-game").addEventListener("click", newGame);
  $("review-button").addEventListener("click", () => reviewGame());
  $("save-game").addEventListener("click", saveGame);
  $("open-game").addEventListener("change", openGame);
  $("review-moves").addEventListener("click", (event) => {
    const row = event.target.closest("tr[data-index]");
    if (row) selectReviewed(Number(row.dataset.index));
  });
  $("review-graph").addEventListener("click", graphClick);
  $("review-panel").addEventListener("keydown", reviewKey);
  window.addEventListener("resize", () => { if (S.review) drawGraph(); });
  $("assist-start").addEventListener("click", assistStart);
  $("assist-stop").addEventListener("click", () => { stopAssist(); show(S.view); });
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
    if (button && S.assist) showError(new Error(ASSIST_KEYS));
    else if (button) move(Number(button.dataset.move));
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

// The same line as playahead review for a file over the size the page opens.
function tooBig(name, size) {
  const mib = (n) => Math.floor(n / 2 ** 20);
  if (size > S.limits.cli) return `${name} is over ${mib(S.limits.cli)} MiB: not a game file`;
  return `${name} is over ${mib(S.limits.file)} MiB: the page opens game files up to ` +
    `${mib(S.limits.file)} MiB (playahead review reads it)`;
}

// A game file goes to the server as its bytes: the server reads it as playahead review
// does (a 63-bit seed exactly, the same one-line messages for a file that is not one).
async function openGame(event) {
  const file = event.target.files[0];
  event.target.value = ""; // the same file can be opened again
  if (!file) return null;
  showError(null);
  if (file.size > S.limits.file) {
    showError(new Error(tooBig(file.name, file.size)));
    return null;
  }
  let data;
  try {
    const response = await fetch("/api/open?name=" + encodeURIComponent(file.name), {
      method: "POST", headers: { "Content-Type": "application/octet-stream" }, body: file,
    });
    data = await response.json();
    if (!response.ok) throw new Error(data.error || response.statusText);
  } catch (err) {
    showError(err);
    return null;
  }
  return reviewGame(data);
}

// Who played the game: the file's players ("human" is you).
function whoPlayed(data) {
  const players = (data.file.players || []).map((p) => (p === "human" ? "you" : p));
  const names = NAMES[data.game];
  if (names && players.length === 2) {
    return `${names[0]}: ${players[0]} · ${names[1]}: ${players[1]}`;
  }
  const who = players[0] || "an unnamed player";
  return who === "you" ? "your game" : `${who}'s game`;
}

// Review: /api/replay (or /api/open) gives every position; /api/review values each
// move, one by one. Without data: the game played on the page.
async function reviewGame(data) {
  showError(null);
  if (!data) {
    try {
      data = await api("/api/replay", { file: recordedFile() });
    } catch (err) {
      showError(err);
      return null;
    }
  }
  // the planner chosen on the page, if it is for this game; else the game's default
  const { agent, settings } = data.game === game().name ? agentRequest() : { settings: {} };
  S.review = { data, rows: [], selected: null, who: whoPlayed(data) };
  $("review-title").textContent = "Review of " + S.review.who;
  const body = $("review-moves").tBodies[0];
  body.innerHTML = "";
  $("review-moves").hidden = false;
  $("review-position").hidden = true;
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
  if (kind === "pons_score") return value ? `${value > 0 ? "+" : ""}${Math.round(value)}` : "0";
  if (kind === "score" || Math.abs(value) >= 1000) return Math.round(value).toLocaleString("en-US");
  return Math.abs(value) >= 10 ? value.toFixed(1) : value.toFixed(3);
}

// The graph's layout, in the SVG's own pixels (its viewBox is its drawn size).
const GRAPH = { height: 190, band: 110, left: 64, right: 12, top: 24, bottom: 34 };

function svgNode(parent, name, attrs, text) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  parent.appendChild(node);
  return node;
}

// x of move i (0-based) on a graph `width` wide, for a game of n moves
function graphX(i, n, width) {
  const span = width - GRAPH.left - GRAPH.right;
  return GRAPH.left + (n <= 1 ? span / 2 : (span * i) / (n - 1));
}

function drawGraph() {
  const { rows, data, selected } = S.review;
  const svg = $("review-graph");
  svg.removeAttribute("hidden"); // an SVG element has no hidden property
  const width = Math.max(200, Math.round(svg.getBoundingClientRect().width) || 600);
  // one band a unit: values in different units (the solver's exact scores, minimax's
  // estimates) never share an axis; each band after the first makes the graph taller
  const kinds = [...new Set(rows.map((r) => r.value_kind))];
  const { left, right, top, bottom } = GRAPH;
  const height = GRAPH.height + GRAPH.band * (Math.max(kinds.length, 1) - 1);
  svg.style.height = `${height}px`;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.innerHTML = "";
  const n = data.moves.length;
  const unit = !rows.length ? "value" : kinds.length === 1 ? rows[0].unit
    : `${kinds.length} units (one band each)`;
  const by = rows.length ? ` by ${rows[0].agent}` : "";
  svgNode(svg, "text", { class: "title", x: 6, y: 15 }, `${S.review.who}: ${unit}${by}`);
  // axes: value (for player 0 in two-player games) against the move number
  svgNode(svg, "line", { class: "axis", x1: left, y1: top, x2: left, y2: height - bottom });
  svgNode(svg, "line", {
    class: "axis", x1: left, y1: height - bottom, x2: width - right, y2: height - bottom,
  });
  svgNode(svg, "text", { class: "label", x: (left + width - right) / 2, y: height - 4 }, "move");
  const ticks = n <= 1 ? [0] : [...new Set([0, 0.25, 0.5, 0.75, 1].map((f) => Math.round(f * (n - 1))))];
  for (const i of ticks) {
    const x = graphX(i, n, width);
    svgNode(svg, "line", { class: "tick", x1: x, y1: height - bottom, x2: x, y2: height - bottom + 4 });
    svgNode(svg, "text", { class: "xtick", x, y: height - bottom + 15 }, String(i + 1));
  }
  if (!rows.length) return;
  const y = rows.map((r) => (r.player === 1 ? -r.best_value : r.best_value));
  const band = (height - top - bottom) / kinds.length;
  const py = {};
  kinds.forEach((kind, k) => {
    const mine = y.filter((v, i) => rows[i].value_kind === kind);
    let lo = Math.min(...mine), hi = Math.max(...mine);
    if (hi === lo) { lo -= 1; hi += 1; }
    const b0 = top + k * band + (kinds.length > 1 ? 14 : 0), b1 = top + (k + 1) * band - 4;
    if (kinds.length > 1) {
      const r = rows.find((row) => row.value_kind === kind);
      svgNode(svg, "text", { class: "band", x: left + 6, y: b0 - 4 }, r.unit.split(/[:,]| in \[/)[0]);
    }
    py[kind] = (v) => b0 + ((b1 - b0) * (hi - v)) / (hi - lo);
    const ys = kinds.length > 1 ? [lo, hi] : [lo, (lo + hi) / 2, hi];
    for (const v of ys) {
      svgNode(svg, "line", { class: "grid", x1: left, y1: py[kind](v), x2: width - right, y2: py[kind](v) });
      svgNode(svg, "text", { class: "ytick", x: left - 4, y: py[kind](v) + 4 }, valueText(v, kind));
    }
    // the band's moves, a line through each run of consecutive moves
    let run = [];
    const flush = () => {
      if (run.length) svgNode(svg, "polyline", { class: "best", "data-kind": kind, points: run.join(" ") });
      run = [];
    };
    rows.forEach((r, i) => {
      if (r.value_kind === kind) run.push(`${graphX(i, n, width)},${py[kind](y[i])}`);
      else flush();
    });
    flush();
  });
  const at = (i) => py[rows[i].value_kind](y[i]);
  rows.forEach((r, i) => {
    if (!MARK_CLASSES.includes(r.mark)) return;
    svgNode(svg, "circle", { class: r.mark, cx: graphX(i, n, width), cy: at(i), r: 3.5 });
  });
  if (selected !== null && selected < rows.length) {
    const x = graphX(selected, n, width);
    svgNode(svg, "line", { class: "marker", x1: x, y1: top, x2: x, y2: height - bottom });
    svgNode(svg, "circle", { class: "marker", cx: x, cy: at(selected), r: 5 });
  }
}

function graphClick(event) {
  if (!S.review || !S.review.rows.length) return;
  const svg = $("review-graph");
  const box = svg.getBoundingClientRect();
  const width = Number(svg.getAttribute("viewBox").split(" ")[2]);
  const x = ((event.clientX - box.left) * width) / box.width;
  const n = S.review.data.moves.length;
  const span = width - GRAPH.left - GRAPH.right;
  const i = n <= 1 ? 0 : Math.round(((x - GRAPH.left) * (n - 1)) / span);
  selectReviewed(Math.max(0, Math.min(S.review.rows.length - 1, i)));
}

// Arrow keys in the review (after a click on the graph or a move) step through it.
function reviewKey(event) {
  const step = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 }[event.key];
  const target = event.target;
  if (!step || !S.review || !S.review.rows.length || ["INPUT", "BUTTON"].includes(target.tagName)) return;
  event.preventDefault();
  event.stopPropagation();
  const current = S.review.selected === null ? -1 : S.review.selected;
  selectReviewed(Math.max(0, Math.min(S.review.rows.length - 1, current + step)));
}

function selectReviewed(i) {
  showReviewed(i);
  $("review-graph").focus({ preventScroll: true });
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
  const units = [...new Set(rows.map((r) => r.unit))].join("; ");
  $("review-status").textContent =
    `${rows.length} moves of ${S.review.who} reviewed by ${rows[0].agent} (${units})`;
  // losses add up within one unit (the solver's exact scores, minimax's estimates)
  const kinds = [...new Set(rows.map((r) => r.value_kind))];
  let loss = `loss: total ${valueText(total, kind)}, mean ${valueText(total / rows.length, kind)}`;
  if (kinds.length > 1) {
    loss = "loss: " + kinds.map((k) => {
      const some = rows.filter((r) => r.value_kind === k);
      const sum = some.reduce((s, r) => s + r.loss, 0);
      return `${valueText(sum, k)} over ${some.length} moves in ${some[0].unit}`;
    }).join("; ");
  }
  const judged = rows.filter((r) => r.note);
  const exact = judged.filter((r) => r.exact).length;
  const rest = exact < rows.length ? ", depth-limited estimates on the others" : "";
  const exactness = judged.length ? ` · exact values on ${exact} of ${rows.length} moves${rest}` : "";
  $("review-summary").textContent = `accuracy ${((100 * best) / rows.length).toFixed(1)}% ` +
    `(${best} of ${rows.length} moves the best) · ${loss} · ${marks.join(", ")}${exactness}`;
}

// A reviewed move: its board (and Threes' next card), the move played against the
// best one, and every move's value there.
function showReviewed(i) {
  const { data, rows } = S.review;
  const row = rows[i];
  S.review.selected = i;
  for (const tr of $("review-moves").tBodies[0].rows) {
    const selected = tr.dataset.index === String(i);
    tr.classList.toggle("selected", selected);
    if (selected) tr.scrollIntoView({ block: "nearest" });
  }
  drawGraph();
  const position = data.positions[i];
  const played = data.moves[i].action;
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
  for (const cell of board.querySelectorAll("[data-move]")) {
    const action = Number(cell.dataset.move);
    cell.classList.toggle("played-move", action === played);
    cell.classList.toggle("best-move", action === row.action);
  }
  const where = $("review-where");
  where.innerHTML = "";
  if (kind === "tiles") where.append(...statusParts({ kind, game: data.game, info: position.info, done: false }));
  else where.textContent = `${NAMES[data.game][position.player]} to move`;
  const caption = $("review-caption");
  caption.innerHTML = "";
  const span = (cls, text) => {
    const node = document.createElement("span");
    node.className = cls;
    node.textContent = text;
    return node;
  };
  const t = (text) => document.createTextNode(text);
  caption.append(t(`Move ${i + 1}: played `), span("played", row.played),
    t(` ${valueText(row.played_value, row.value_kind)}`));
  if (row.loss > 0) {
    caption.append(t(" · best "), span("best", row.best), t(` ${valueText(row.best_value, row.value_kind)}`),
      t(` · loss ${valueText(row.loss, row.value_kind)}`));
    if (row.mark) caption.append(t(" · "), span(row.mark, row.mark));
  } else {
    caption.append(t(" · "), span("best", "the best move"));
  }
  if (row.note) caption.append(t(` · ${row.note}`));
  const body = $("review-values").tBodies[0];
  body.innerHTML = "";
  $("review-values").tHead.rows[0].cells[1].textContent = row.unit;
  for (const entry of row.ranked) {
    const tr = body.insertRow();
    const tags = [];
    if (entry.action === row.action) { tr.classList.add("best"); tags.push("best"); }
    if (entry.action === played) { tr.classList.add("played"); tags.push("played"); }
    const move = tr.insertCell();
    move.textContent = entry.label;
    if (tags.length) move.append(" ", Object.assign(document.createElement("span"),
      { className: "tag", textContent: tags.join(", ") }));
    tr.insertCell().textContent = entry.text;
  }
  $("review-position").hidden = false;
}

// ---------------------------------------------------------------- assist
// Assist follows a Threes or 2048 game played elsewhere: a typed-in board (Start), or
// a new game's (n) while assisting. Its entries go in the box under the board; the
// board moves only by them (arrow keys do not move it).
async function assistStart() {
  stopAutoplay();
  const name = game().name;
  if (!ASSISTED.includes(name)) {
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
  showAssisted(view);
  $("table").scrollIntoView({ block: "start" });
  $("assist-entry").focus({ preventScroll: true });
}

function stopAssist() {
  S.assist = null;
  $("assist-bar").hidden = true;
  $("assist-entry").disabled = true;
  showKeys();
}

function showAssisted(view) {
  show(view);
  showKeys();
  $("assist-bar").hidden = false;
  $("assist-entry").disabled = false;
  const suggestion = $("assist-suggestion");
  if (view.hint) {
    showHint(view.hint);
    const best = view.hint.ranked.find((entry) => entry.action === view.hint.action);
    suggestion.textContent = `suggested: ${view.hint.label} (${best ? best.text : ""})`;
  } else {
    suggestion.textContent = view.done ? "game over" : "";
  }
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
  if (!view || S.assist !== a) return; // refused (the error says why), or assist ended
  a.stack.push(view);
  S.record.moves.push(view.move);
  $("assist-entry").value = "";
  showAssisted(view);
}

init().catch(showError);
