// The page of `tabuleiro serve`: forms for a game, the table the server draws for your seat, clickable moves.
// Everything shown comes from the server's view of one seat; the page only posts the move a person clicks.
"use strict";

const state = { games: [], table: null, replay: null, run: 0, paused: false };
const $ = (sel) => document.querySelector(sel);
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
const playDelay = () => Number($("#play-delay").value) || 0;

async function api(method, url, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : JSON.stringify(body);
    init.headers["content-type"] = "application/json";
  }
  const response = await fetch(url, init);
  const data = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function showError(err) {
  const box = $("#error");
  box.textContent = err ? String(err.message || err) : "";
  box.classList.toggle("hidden", !err);
}

// -- forms ----------------------------------------------------------------------------------------
function configFields(fieldset, defaults) {
  fieldset.querySelectorAll("label").forEach((l) => l.remove());
  for (const [key, value] of Object.entries(defaults)) {
    const label = document.createElement("label");
    label.textContent = key + " ";
    const input = document.createElement("input");
    input.dataset.key = key;
    if (typeof value === "boolean") {
      input.type = "checkbox";
      input.checked = value;
      input.dataset.kind = "bool";
    } else if (typeof value === "number") {
      input.type = "number";
      input.value = value;
      input.dataset.kind = "number";
    } else {
      input.value = JSON.stringify(value);
      input.dataset.kind = "json";
    }
    input.dataset.initial = input.type === "checkbox" ? String(input.checked) : input.value;
    label.appendChild(input);
    fieldset.appendChild(label);
  }
}

function readConfig(fieldset) {
  const config = {};
  for (const input of fieldset.querySelectorAll("input")) {
    const now = input.type === "checkbox" ? String(input.checked) : input.value;
    if (now === input.dataset.initial) continue; // only what was changed: the game's defaults stay its own
    if (input.dataset.kind === "bool") config[input.dataset.key] = input.checked;
    else if (input.dataset.kind === "number") config[input.dataset.key] = Number(input.value);
    else config[input.dataset.key] = JSON.parse(input.value);
  }
  return config;
}

function wireGameSelect(form) {
  const select = form.querySelector(".game-select");
  for (const game of state.games) select.add(new Option(game.name, game.name));
  const update = () => {
    const game = state.games.find((g) => g.name === select.value);
    configFields(form.querySelector(".config"), game.config);
  };
  select.addEventListener("change", update);
  update();
}

function seedOf(form) {
  const text = form.elements.seed.value.trim();
  return text === "" ? null : Number(text);
}

// -- the table ------------------------------------------------------------------------------------
function who(view, p) {
  return p === view.seat ? "you" : `player_${p}`;
}

function render(view) {
  const table = $("#table");
  table.classList.remove("hidden");
  table.dataset.game = view.game;
  table.dataset.ply = view.ply ?? view.step;
  table.dataset.done = view.done ? "yes" : "no";
  table.dataset.yourTurn = view.your_turn ? "yes" : "no";
  $("#board").innerHTML = view.svg; // drawn by the server from this seat's view, every text escaped there
  $("#text").textContent = view.text;
  const log = $("#log");
  log.replaceChildren(...view.log.map((line) => Object.assign(document.createElement("li"), { textContent: line })));
  log.scrollTop = log.scrollHeight;
  const lineup = view.agents.map((a, p) => `player_${p} ${a === "human" ? "(you)" : a}`).join(", ");
  let status;
  if (view.step !== undefined) {
    status = `${view.name}: step ${view.step}/${view.steps}, viewed as ${view.seat === null ? "a spectator (everything)" : "player_" + view.seat}`;
  } else if (view.done) {
    status = "game over";
  } else {
    status = view.your_turn ? "your turn: click a move" : `${who(view, view.to_act)} to move`;
  }
  $("#status").textContent = `${view.game} — ${lineup} — ${status}`;
  const result = view.returns ? "returns: " + view.returns.map((r, p) => `${who(view, p)} ${r}`).join(", ") : "";
  $("#result").textContent = result + (view.replay ? ` — saved as ${view.replay}` : "");
  const download = $("#download");
  const finishedTable = view.done && view.step === undefined;
  download.classList.toggle("hidden", !finishedTable);
  if (finishedTable) download.href = `/api/tables/${view.id}/replay`;
  if (view.done) $("#watch-pause").disabled = true;
  offerMoves(view);
}

function offerMoves(view) {
  const box = $("#moves");
  box.replaceChildren();
  if (!view.your_turn) return;
  const board = $("#board");
  const covered = new Set();
  board.querySelectorAll("[data-move]").forEach((el) => {
    covered.add(el.dataset.move);
    el.addEventListener("click", () => play(el.dataset.move));
  });
  const targets = board.querySelectorAll(".target");
  targets.forEach((target) => {
    const names = target.dataset.moves.split("|");
    names.forEach((n) => covered.add(n));
    target.addEventListener("click", () => chooseCell(target, names));
  });
  for (const name of view.moves.filter((m) => !covered.has(m))) {
    const button = document.createElement("button");
    button.textContent = name;
    button.dataset.move = name;
    button.addEventListener("click", () => play(name));
    box.appendChild(button);
  }
}

function chooseCell(target, names) {
  // a cell where the tile may go: its legal rotations become clickable, the others fade out
  const board = $("#board");
  board.querySelectorAll(".target.selected").forEach((t) => t.classList.remove("selected"));
  target.classList.add("selected");
  const byRot = new Map(names.map((n) => [n.slice(n.lastIndexOf("=") + 1), n]));
  board.querySelectorAll(".rot").forEach((rot) => {
    const name = byRot.get(rot.dataset.rot);
    rot.classList.toggle("allowed", Boolean(name));
    rot.onclick = name ? () => play(name) : null;
  });
}

async function play(name) {
  const table = state.table;
  try {
    showError(null);
    const view = await api("POST", `/api/tables/${table.id}/move`, { move: name, ply: table.view.ply });
    table.view = view;
    render(view);
    await advance(table, playDelay);
  } catch (err) {
    showError(err);
  }
}

async function advance(table, delay) {
  // the agents' moves, one request (and one picture) each, until it is the person's turn or the game ends
  const run = state.run;
  while (!table.view.done && !table.view.your_turn && run === state.run && !state.paused) {
    await sleep(delay());
    if (run !== state.run || state.paused) return;
    table.view = await api("POST", `/api/tables/${table.id}/advance`, { ply: table.view.ply });
    render(table.view);
  }
}

async function startTable(url, body, delay) {
  state.run += 1;
  state.paused = false;
  const view = await api("POST", url, body);
  state.table = { id: view.id, view };
  state.replay = null;
  render(view);
  await advance(state.table, delay);
}

// -- replays --------------------------------------------------------------------------------------
async function openReplay(promise) {
  state.run += 1;
  const view = await promise;
  state.replay = { id: view.id, step: 0, steps: view.steps, seat: "all" };
  const seat = $("#replay-seat");
  seat.replaceChildren(new Option("everything (spectator)", "all"));
  for (let p = 0; p < view.players; p++) seat.add(new Option(`player_${p}`, String(p)));
  $("#replay-controls").classList.remove("hidden");
  showReplay(view);
}

function showReplay(view) {
  render(view);
  $("#replay-step").textContent = `step ${view.step} / ${view.steps}`;
  $("#replay-controls").dataset.step = view.step;
}

async function stepReplay(to) {
  const r = state.replay;
  if (!r) return;
  r.step = Math.max(0, Math.min(r.steps, to));
  try {
    showError(null);
    showReplay(await api("GET", `/api/replays/${r.id}?step=${r.step}&seat=${r.seat}`));
  } catch (err) {
    showError(err);
  }
}

// -- wiring ---------------------------------------------------------------------------------------
function showPanel(name) {
  document.querySelectorAll(".tab").forEach((t) => t.classList.toggle("active", t.dataset.panel === name));
  document.querySelectorAll(".panel").forEach((p) => p.classList.toggle("hidden", p.id !== `panel-${name}`));
}

async function main() {
  const data = await api("GET", "/api/games");
  state.games = data.games;
  document.querySelectorAll(".tab").forEach((t) => t.addEventListener("click", () => showPanel(t.dataset.panel)));
  const playForm = $("#play-form");
  const watchForm = $("#watch-form");
  wireGameSelect(playForm);
  wireGameSelect(watchForm);
  playForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      showError(null);
      const f = playForm.elements;
      const body = {
        game: f.game.value,
        seat: Number(f.seat.value),
        opponents: f.opponents.value,
        seed: seedOf(playForm),
        config: readConfig(playForm.querySelector(".config")),
      };
      await startTable("/api/play", body, playDelay);
    } catch (err) {
      showError(err);
    }
  });
  watchForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      showError(null);
      const f = watchForm.elements;
      const body = { game: f.game.value, agents: f.agents.value, seed: seedOf(watchForm) };
      body.config = readConfig(watchForm.querySelector(".config"));
      $("#watch-pause").disabled = false;
      $("#watch-pause").textContent = "Pause";
      await startTable("/api/watch", body, () => Number($("#watch-delay").value) || 0);
    } catch (err) {
      showError(err);
    }
  });
  $("#watch-pause").addEventListener("click", async () => {
    state.paused = !state.paused;
    $("#watch-pause").textContent = state.paused ? "Resume" : "Pause";
    if (!state.paused && state.table) {
      try {
        await advance(state.table, () => Number($("#watch-delay").value) || 0);
      } catch (err) {
        showError(err);
      }
    }
  });
  const list = $("#replay-list");
  for (const name of data.replays) list.add(new Option(name, name));
  list.addEventListener("change", async () => {
    if (!list.value) return;
    try {
      showError(null);
      await openReplay(api("POST", "/api/replays/open", { name: list.value }));
    } catch (err) {
      showError(err);
    }
  });
  $("#replay-file").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    if (!file) return;
    try {
      showError(null);
      await openReplay(api("POST", "/api/replays", await file.text()));
    } catch (err) {
      showError(err);
    }
  });
  $("#replay-first").addEventListener("click", () => stepReplay(0));
  $("#replay-back").addEventListener("click", () => stepReplay(state.replay.step - 1));
  $("#replay-forward").addEventListener("click", () => stepReplay(state.replay.step + 1));
  $("#replay-last").addEventListener("click", () => stepReplay(state.replay.steps));
  $("#replay-seat").addEventListener("change", (event) => {
    state.replay.seat = event.target.value;
    stepReplay(state.replay.step);
  });
  document.body.dataset.ready = "yes";
}

main().catch(showError);
