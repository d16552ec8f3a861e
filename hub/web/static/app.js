// The pages' script: follows the server-sent events of the page and replays games.
// Text from the server is only ever put in with textContent; the one exception is the
// board fragment ("html"), which the server renders with everything escaped.
"use strict";

const page = document.body.dataset.page;
const gameId = document.body.dataset.id;
// where this app is mounted ("/connect4" in hub serve's site of every game; "" alone)
const ROOT = document.body.dataset.root || "";

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

// Follows a stream; onMessage(message, stop) may call stop() when nothing more will come
// (a finished game): the "live" badge goes and the browser does not reconnect.
function follow(url, onMessage) {
  const live = document.getElementById("live");
  const source = new EventSource(url);
  const stop = () => { source.close(); live.hidden = true; };
  source.onopen = () => { live.hidden = false; };
  source.onerror = () => { live.hidden = true; };
  source.onmessage = (event) => onMessage(JSON.parse(event.data), stop);
}

// -- clocks: the mover's clock counts down between events -------------------------------

function clockText(seconds) {
  const tenths = Math.max(0, Math.round(seconds * 10));
  const minutes = Math.floor(tenths / 600);
  const rest = tenths % 600;
  return `${minutes}:${String(Math.floor(rest / 10)).padStart(2, "0")}.${rest % 10}`;
}

function startClocks(container) {
  const now = performance.now();
  for (const clock of container.querySelectorAll(".clock.running")) {
    clock.dataset.since = String(now);
  }
}

setInterval(() => {
  const now = performance.now();
  for (const clock of document.querySelectorAll(".clock.running")) {
    const left = Number(clock.dataset.left) - (now - Number(clock.dataset.since || now)) / 1000;
    clock.textContent = clockText(left);
  }
}, 100);

// -- lobby ------------------------------------------------------------------------------

function lobbyRow(game) {
  const row = el("tr");
  row.dataset.id = game.id;
  const link = el("a", game.game);
  link.href = `${ROOT}/game/${encodeURIComponent(game.id)}`;
  const first = el("td");
  first.append(link);
  let state = "playing";
  if (game.status === "finished" || game.elsewhere) state = game.words || game.result;
  else if (game.to_move !== null && game.to_move < game.players.length) {
    state = `${game.players[game.to_move].name} to move`;
  }
  row.append(first, el("td", game.players.map((p) => p.name).join(", ")), el("td", game.ply),
    el("td", state));
  return row;
}

function setEmpty() {
  for (const name of ["running", "recent"]) {
    document.getElementById(`no-${name}`).hidden =
      document.getElementById(name).rows.length > 0;
  }
}

function lobby() {
  const running = document.getElementById("running");
  const recent = document.getElementById("recent");
  follow(`${ROOT}/events`, (message) => {
    if (message.type === "lobby") {
      running.replaceChildren(...message.running.map(lobbyRow));
      recent.replaceChildren(...message.recent.map(lobbyRow));
    } else if (message.type === "game") {
      const game = message.game;
      const old = document.querySelector(`tr[data-id="${CSS.escape(game.id)}"]`);
      if (old) old.remove();
      if (game.status === "finished") {
        recent.prepend(lobbyRow(game));
        while (recent.rows.length > 200) recent.deleteRow(-1);
      } else {
        running.prepend(lobbyRow(game));
      }
    }
    setEmpty();
  });
}

// -- a game: live moves and the replay ----------------------------------------------------

class GameView {
  constructor() {
    this.position = document.getElementById("position");
    this.status = document.getElementById("status");
    this.moves = document.getElementById("moves");
    this.result = document.getElementById("result");
    this.slider = document.getElementById("slider");
    this.label = document.getElementById("plylabel");
    this.game = null;
    this.plies = new Map(); // ply -> {html, status}
    this.shown = null;
    this.wanted = null;
    if (this.slider) this.bindControls();
  }

  bindControls() {
    const go = (ply) => this.show(Math.max(0, Math.min(ply, this.total())));
    document.getElementById("first").onclick = () => go(0);
    document.getElementById("prev").onclick = () => go(this.current() - 1);
    document.getElementById("next").onclick = () => go(this.current() + 1);
    document.getElementById("last").onclick = () => go(this.total());
    this.slider.oninput = () => go(Number(this.slider.value));
    this.moves.onclick = (event) => {
      const item = event.target.closest("li[data-ply]");
      if (item) go(Number(item.dataset.ply));
    };
    document.addEventListener("keydown", (event) => {
      if (event.key === "ArrowLeft") go(this.current() - 1);
      if (event.key === "ArrowRight") go(this.current() + 1);
    });
  }

  total() { return this.game ? this.game.moves.length : 0; }
  current() { return this.shown === null ? this.total() : this.shown; }
  following() { return this.shown === null || this.shown === this.total(); }

  load(game) {
    this.game = game;
    this.plies.clear();
    this.moves.replaceChildren(...game.moves.map((move, i) => this.moveItem(move, i + 1)));
    this.result.textContent = game.status === "finished"
      ? game.words : "";
    if (game.latest) this.plies.set(game.latest.ply, game.latest);
    this.shown = null;
    this.draw(game.latest);
  }

  moveItem(move, ply) {
    const item = el("li");
    item.dataset.ply = String(ply);
    if (move === null) {
      item.textContent = "\u2026";
    } else {
      // A game that numbers its moves (chess: "4." and "4...") replaces the ply numbers.
      if (move.number) item.classList.add("numbered");
      item.append(el("span", move.number || move.side, "side"), " ", move.words || move.move);
    }
    return item;
  }

  moved(message) {
    const follow = this.following();
    this.game.moves[message.ply - 1] = message;
    this.moves.append(this.moveItem(message, message.ply));
    this.plies.set(message.ply, message);
    if (follow) {
      this.shown = null;
      this.draw(message);
    } else {
      this.updateControls();
    }
  }

  async show(ply) {
    this.wanted = ply;
    let data = this.plies.get(ply);
    if (!data) {
      const reply = await fetch(`${ROOT}/api/game/${encodeURIComponent(this.game.id)}/ply/${ply}`);
      if (!reply.ok) return;
      data = await reply.json();
      this.plies.set(ply, data);
    }
    if (this.wanted !== ply) return; // a later request won
    this.shown = ply;
    this.draw(data);
  }

  draw(data) {
    if (data) {
      this.position.innerHTML = data.html;
      startClocks(this.position);
      this.status.replaceChildren(...data.status.map((line) => el("li", line)));
    }
    this.updateControls();
  }

  updateControls() {
    const ply = this.current();
    for (const item of this.moves.querySelectorAll("li.current")) item.classList.remove("current");
    const item = this.moves.querySelector(`li[data-ply="${ply}"]`);
    if (item) {
      item.classList.add("current");
      item.scrollIntoView({ block: "nearest" });
    }
    if (!this.slider) return;
    this.slider.max = String(this.total());
    this.slider.value = String(ply);
    this.label.textContent = `ply ${ply} of ${this.total()}`;
  }
}

function gamePage() {
  const view = new GameView();
  follow(`${ROOT}/game/${encodeURIComponent(gameId)}/events`, (message, stop) => {
    if (message.type === "snapshot") {
      view.load(message.game);
      if (message.game.status === "finished") stop();
    } else if (message.type === "move" && view.game) {
      view.moved(message);
    } else if (message.type === "missing") {
      stop(); // not in memory: a game from the records store
      fetch(`${ROOT}/api/game/${encodeURIComponent(gameId)}`)
        .then((reply) => (reply.ok ? reply.json() : null))
        .then((game) => { if (game) view.load(game); });
    }
  });
}

function consolePage() {
  const view = new GameView();
  const score = document.getElementById("score");
  follow(`${ROOT}/console/events`, (message) => {
    if (message.type !== "console") return;
    if (message.game) view.load(message.game);
    score.replaceChildren("Score: White ", el("b", message.score.white),
      ", Black ", el("b", message.score.black));
  });
}

// The person's name: picked once on the lobby page; the server gives it a token that only
// this browser keeps (localStorage), sent with every game it starts.
const NAME_KEY = "hub-name";

function myName() {
  try {
    const kept = JSON.parse(localStorage.getItem(NAME_KEY) || "null");
    if (kept && typeof kept.name === "string" && typeof kept.token === "string") return kept;
  } catch (error) { /* an unreadable entry: no name */ }
  return null;
}

function showName() {
  const kept = myName();
  const named = document.getElementById("named");
  if (!named) return;
  named.hidden = !kept;
  document.getElementById("name-form").hidden = Boolean(kept);
  if (kept) document.getElementById("my-name").textContent = kept.name;
}

function nameForm() {
  const form = document.getElementById("name-form");
  if (!form) return;
  showName();
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const error = document.getElementById("name-error");
    const reply = await fetch(`${ROOT}/name`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name: document.getElementById("name-input").value }),
    });
    const data = await reply.json();
    if (data.error) { error.textContent = data.error; return; }
    error.textContent = "";
    localStorage.setItem(NAME_KEY, JSON.stringify({ name: data.name, token: data.token }));
    showName();
  });
}

// The lobby's "Play" buttons (hub serve GAME --web): start a game with the time control
// and options chosen above them (the server checks them), then go to its seat's page; a
// game with a friend opens a page that shows the link to share.
function startButtons() {
  const section = document.getElementById("play");
  if (!section) return;
  section.addEventListener("click", async (event) => {
    const button = event.target.closest("button[data-opponent]");
    if (!button) return;
    const request = { opponent: button.dataset.opponent, settings: {} };
    const tc = document.getElementById("tc");
    if (tc) request.tc = tc.value;
    for (const field of section.querySelectorAll("[data-setting]")) {
      const kind = field.dataset.kind;
      request.settings[field.dataset.setting] =
        kind === "bool" ? field.checked : (kind === "int" || kind === "float") ? Number(field.value) : field.value;
    }
    const kept = myName();
    if (kept) { request.name = kept.name; request.token = kept.token; }
    const reply = await fetch(`${ROOT}/new`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(request),
    });
    const data = await reply.json();
    if (data.error) { document.getElementById("start-error").textContent = data.error; return; }
    const target = new URL(ROOT + data.play, location.href);
    if (data.share) target.hash = `share=${encodeURIComponent(ROOT + data.share)}`;
    location.href = target.href;
  });
}

// "Your adjourned games" (hub serve): the games a shutdown adjourned that this browser's
// name may resume, each with a Resume button that takes its seat again (its page then waits
// for the other players to come back).
async function adjournedGames() {
  const play = document.getElementById("play");
  const kept = myName();
  if (!play || !kept) return;
  const reply = await fetch(`${ROOT}/adjourned`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ name: kept.name, token: kept.token }),
  });
  if (!reply.ok) return;
  const games = (await reply.json()).games || [];
  if (!games.length) return;
  const section = el("section");
  section.id = "adjourned";
  section.append(el("h2", "Your adjourned games"));
  const list = el("ul", "", "choices");
  const error = el("p", "", "error");
  for (const game of games) {
    const item = el("li", `${game.players.join(" vs ")}, after ${game.moves} moves `);
    const button = el("button", "Resume", "resume");
    button.type = "button";
    button.dataset.game = game.game_id;
    button.addEventListener("click", async () => {
      const answer = await fetch(`${ROOT}/resume`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ game_id: game.game_id, name: kept.name, token: kept.token }),
      });
      const data = await answer.json();
      if (data.error) { error.textContent = data.error; return; }
      location.href = new URL(ROOT + data.play, location.href).href;
    });
    item.append(button);
    list.append(item);
  }
  section.append(list, error);
  play.after(section);
}

// The match page: its standings (tables and charts, drawn by the server from the match's
// JSON), fetched again every second while the match goes on.
function matchPage() {
  const box = document.getElementById("standings");
  let shown = box.innerHTML;
  const refresh = async () => {
    const reply = await fetch(`${ROOT}/api/match`);
    if (!reply.ok) return;
    const html = (await reply.json()).html;
    if (html !== shown) { box.innerHTML = html; shown = box.innerHTML; }
  };
  setInterval(refresh, 1000);
}

if (page === "lobby") { nameForm(); startButtons(); adjournedGames(); lobby(); }
else if (page === "match") matchPage();
else if (page === "game") gamePage();
else if (page === "console") consolePage();
