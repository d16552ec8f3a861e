// A seat's page: follows the seat's snapshots and offers its person the legal moves.
// Every move the page offers is an element carrying data-move="TEXT" (the move in the
// game's notation) with the class "legal": the picture's own elements where it has them,
// else a button under the board. Elements carrying data-part="TEXT" are pieces of a move
// (a square, a hole): clicks (or a drag from one to another) are joined (as they are, or
// with a space) until they make a legal move. Clicking the part chosen last again drops the
// choice; clicking a part that cannot follow but starts a move begins again from it (another
// piece). When the parts clicked so far are PREFIX and the picture holds
// <template data-after="PREFIX">, its content takes the place of the picture's [data-stage]
// element (chess's promotion chooser, Kalah's board after a sowing); otherwise the endings
// are offered as buttons. A move box takes a typed move (the legal ones in the game's
// words as suggestions). The move list steps through the game's positions (the
// spectator's pictures, /api/game/ID/ply/N). Text from the server goes in with
// textContent; the one exception is the picture ("html"), which the server renders with
// everything escaped.
"use strict";

const token = document.body.dataset.token;
// where this app is mounted ("/connect4" in hub serve's site of every game; "" alone)
const ROOT = document.body.dataset.root || "";
const position = document.getElementById("position");
const legalBox = document.getElementById("legal");
const errorLine = document.getElementById("error");
const moveBox = document.getElementById("movebox");
const moveInput = document.getElementById("move-input");
const legalList = document.getElementById("legal-list");
const movesList = document.getElementById("moves");
const viewing = document.getElementById("viewing");
let snapshot = null;
let prefix = "";
let lastPart = "";
let staged = false;
let shownPly = null; // null: the game as it is now; a number: a position of the replay
let wantedPly = null;
let dragFrom = null;
let clocksAt = 0;

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

async function post(path, body) {
  const reply = await fetch(`${ROOT}/play/${encodeURIComponent(token)}/${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const data = await reply.json();
  errorLine.textContent = data.error || "";
}

function play(move) {
  prefix = "";
  lastPart = "";
  for (const node of document.querySelectorAll(".legal, .part")) {
    node.classList.remove("legal", "part");
  }
  moveBox.hidden = true; // until the next snapshot: one move per turn
  post("move", { move });
}

function candidates(text) {
  return snapshot.legal.filter((move) => move === text || move.startsWith(text));
}

function myTurn() {
  return Boolean(snapshot && snapshot.your_turn && shownPly === null);
}

// the picture as the snapshot drew it (no stage, nothing chosen)
function redraw() {
  position.innerHTML = snapshot.html;
  staged = false;
}

function choose(part) {
  if (prefix && part === lastPart) { reset(); return; } // clicked again: dropped
  for (const joined of [prefix + part, prefix ? `${prefix} ${part}` : part]) {
    const matching = candidates(joined);
    if (matching.length === 0) continue;
    if (matching.length === 1 && matching[0] === joined) { play(joined); return; }
    prefix = joined;
    lastPart = part;
    stage(joined);
    offer(matching.filter((move) => move !== joined), joined);
    return;
  }
  if (prefix && candidates(part).length > 0) { // another piece: start again from it
    reset(false);
    choose(part);
    return;
  }
  reset();
}

function reset(mark = true) {
  prefix = "";
  lastPart = "";
  if (staged) redraw();
  if (mark) offer(snapshot.legal, "");
}

// the picture's own drawing of what was chosen (a template for this prefix), if it has one
function stage(chosen) {
  const template = position.querySelector(`template[data-after="${CSS.escape(chosen)}"]`);
  const place = position.querySelector("[data-stage]");
  if (!template || !place) return false;
  place.replaceWith(template.content.cloneNode(true));
  staged = true;
  return true;
}

// moves the picture lets a person make: its data-move elements, and those that start
// with one of its parts
function inPicture(move) {
  for (const node of position.querySelectorAll("[data-move]")) {
    if (node.dataset.move === move) return true;
  }
  for (const node of position.querySelectorAll("[data-part]")) {
    if (move.startsWith(node.dataset.part)) return true;
  }
  return false;
}

function offer(moves, chosen) {
  // mark what the picture can take, then buttons for the rest (or for the endings)
  legalBox.replaceChildren();
  for (const node of position.querySelectorAll("[data-move]")) {
    const move = node.dataset.move;
    const ok = snapshot.legal.includes(move) && (!chosen || (move.startsWith(chosen) && move !== chosen));
    node.classList.toggle("legal", ok);
  }
  for (const node of position.querySelectorAll("[data-part]")) {
    const part = node.dataset.part;
    const next = chosen ? candidates(`${chosen}${part}`).length
      + candidates(`${chosen} ${part}`).length : candidates(part).length;
    const start = chosen && (part === lastPart || candidates(part).length > 0); // (reselect)
    node.classList.toggle("part", myTurn() && (next > 0 || Boolean(start)));
    node.classList.toggle("target", Boolean(chosen) && next > 0);
    node.classList.toggle("chosen", Boolean(chosen) && part === lastPart);
  }
  if (chosen) {
    if (staged || moves.length === 0) return; // the picture shows the choice itself
    for (const move of moves) legalBox.append(moveButton(move));
    return;
  }
  for (const move of moves) {
    if (!inPicture(move)) legalBox.append(moveButton(move));
  }
}

function wordsOf(move) {
  const index = snapshot.legal.indexOf(move);
  return index >= 0 && snapshot.legal_words ? snapshot.legal_words[index] : move;
}

function moveButton(move) {
  const button = el("button", wordsOf(move), "legal");
  button.type = "button";
  button.dataset.move = move;
  return button;
}

function turnWords(next) {
  if (next.waiting) return next.waiting;  // waiting for an opponent, or for a page to open
  if (next.over) return "The game is over.";
  if (next.your_turn) return `Your move (${next.seat_name}).`;
  if (next.to_move) return `Waiting for ${next.to_move}.`;
  return "Waiting for the game to start.";
}

function render(next) {
  snapshot = next;
  prefix = "";
  lastPart = "";
  clocksAt = performance.now();
  if (shownPly === null) redraw();
  document.getElementById("turn").textContent = turnWords(next);
  // the seat's name where it sits now (Kalah's pie swap moves a person to the other side)
  const title = next.title || `${next.game}: you play ${next.seat_name}`;
  const heading = document.querySelector("header h1");
  if ((next.title || next.seat_name) && heading && heading.textContent !== title) {
    heading.textContent = title;
    document.title = `${title} - hub`;
  }
  document.getElementById("status").replaceChildren(...next.status.map((line) => el("li", line)));
  const score = document.getElementById("score"); // a series' running score (the console)
  score.textContent = next.score || "";
  score.hidden = !next.score;
  errorLine.textContent = next.error || "";
  document.getElementById("result").textContent = next.result;
  renderPlayers(next);
  renderMoves(next);
  document.getElementById("resign").disabled = next.over;
  document.getElementById("leave").hidden = !next.can_leave;  // waiting in the queue
  if (next.over) document.getElementById("confirm").hidden = true;
  legalBox.replaceChildren();
  if (myTurn()) offer(next.legal, "");
  moveBox.hidden = !next.your_turn;
  legalList.replaceChildren(...(next.legal_words || []).map((words) => {
    const option = el("option");
    option.value = words;
    return option;
  }));
  document.body.classList.toggle("over", next.over);
  document.body.classList.toggle("my-turn", Boolean(next.your_turn));
  showDraw(next);
  showRematch(next);
}

// a draw offer, in a game that has draws: offered here, or by the other person (accept or
// decline); a built-in player's answer in words
function showDraw(next) {
  const draw = next.draw || { possible: false };
  const button = document.getElementById("draw");
  const box = document.getElementById("draw-offer");
  box.replaceChildren();
  button.hidden = !draw.possible || Boolean(draw.offered_by);
  button.disabled = Boolean(draw.you_offered);
  button.textContent = draw.you_offered ? "Draw offered" : "Offer a draw";
  if (!draw.possible) return;
  if (draw.note) box.append(el("p", draw.note, "note"));
  if (!draw.offered_by) return;
  box.append(el("p", `${draw.offered_by} offers a draw.`, "offer"));
  const accept = el("button", "Accept the draw");
  accept.type = "button";
  accept.id = "accept-draw";
  accept.addEventListener("click", () => post("draw", {}));
  const decline = el("button", "Decline");
  decline.type = "button";
  decline.id = "decline-draw";
  decline.addEventListener("click", () => post("decline-draw", {}));
  box.append(accept, " ", decline);
}

// the players' bar: each seat's name, who is to move, and each clock
function renderPlayers(next) {
  const bar = document.getElementById("bar");
  bar.replaceChildren(...next.players.map((player, seat) => {
    const item = el("li", null, "player");
    item.classList.toggle("to-move", player.to_move);
    item.classList.toggle("you", player.you);
    item.append(el("span", player.seat, "side"), " ", el("span", player.name, "name"));
    if (player.you) item.append(" ", el("span", "(you)", "kind"));
    item.classList.toggle("winner", Boolean(player.winner));
    if (player.winner) item.append(" ", el("span", "wins", "mark"));
    if (player.left_ms !== null && player.left_ms !== undefined) {
      const clock = el("span", "", player.to_move ? "clock running" : "clock");
      clock.dataset.seat = String(seat);
      clock.dataset.left = String(player.left_ms);
      item.append(clock);
    } else if (player.used_ms !== null && player.used_ms !== undefined) {
      // a game without a time limit (the console's): the time each side has used
      const clock = el("span", "", player.to_move ? "clock used running" : "clock used");
      clock.dataset.used = String(player.used_ms);
      clock.title = "time used";
      item.append(clock);
    }
    return item;
  }));
  tick();
}

function renderMoves(next) {
  movesList.classList.toggle("numbered", Boolean(next.numbered)); // chess: "4. e4", not plies
  movesList.replaceChildren(...next.moves.map((move, index) => {
    const item = el("li", move);
    item.dataset.ply = String(index + 1);
    return item;
  }));
  markPly();
}

function clockText(ms) {
  const tenths = Math.max(0, Math.round(ms / 100));
  const minutes = Math.floor(tenths / 600);
  const rest = tenths % 600;
  return `${minutes}:${String(Math.floor(rest / 10)).padStart(2, "0")}.${rest % 10}`;
}

function tick() {
  const gone = performance.now() - clocksAt;
  for (const clock of document.querySelectorAll("#bar .clock")) {
    const running = clock.classList.contains("running") ? gone : 0;
    if (clock.dataset.used !== undefined) {
      clock.textContent = clockText(Number(clock.dataset.used) + running);
      continue;
    }
    clock.textContent = clockText(Number(clock.dataset.left) - running);
  }
}

// -- stepping through the game's positions ----------------------------------------------

function total() { return snapshot ? snapshot.moves.length : 0; }

function markPly() {
  const ply = shownPly === null ? total() : shownPly;
  for (const item of movesList.querySelectorAll("li.current")) item.classList.remove("current");
  const item = movesList.querySelector(`li[data-ply="${ply}"]`);
  if (item) {
    item.classList.add("current");
    if (shownPly !== null) item.scrollIntoView({ block: "nearest" });
  }
  if (shownPly === null) movesList.scrollTop = movesList.scrollHeight;
  document.getElementById("plylabel").textContent = `move ${ply} of ${total()}`;
  viewing.hidden = shownPly === null;
}

async function step(ply) {
  if (!snapshot) return;
  ply = Math.max(0, Math.min(ply, total()));
  wantedPly = ply;
  if (ply === total()) { // back to the game
    shownPly = null;
    render(snapshot);
    return;
  }
  if (!snapshot.game_id) return;
  const reply = await fetch(`${ROOT}/api/game/${encodeURIComponent(snapshot.game_id)}/ply/${ply}`);
  if (!reply.ok || wantedPly !== ply) return;
  const data = await reply.json();
  if (wantedPly !== ply) return; // a later request won
  shownPly = ply;
  position.innerHTML = data.html;
  staged = false;
  legalBox.replaceChildren();
  document.getElementById("status").replaceChildren(...data.status.map((line) => el("li", line)));
  markPly();
}

function current() { return shownPly === null ? total() : shownPly; }

document.getElementById("first").addEventListener("click", () => step(0));
document.getElementById("prev").addEventListener("click", () => step(current() - 1));
document.getElementById("next").addEventListener("click", () => step(current() + 1));
document.getElementById("last").addEventListener("click", () => step(total()));
document.getElementById("back").addEventListener("click", () => step(total()));
movesList.addEventListener("click", (event) => {
  const item = event.target.closest("li[data-ply]");
  if (item) step(Number(item.dataset.ply));
});
document.addEventListener("keydown", (event) => {
  if (event.target.closest && event.target.closest("input, textarea")) return;
  if (event.key === "ArrowLeft") step(current() - 1);
  if (event.key === "ArrowRight") step(current() + 1);
  if (event.key === "Escape" && prefix) reset();
});

// -- after the game ---------------------------------------------------------------------

// once the game is over: the rematch (the seats rotated, colours swapped), started when
// every person in a browser asked; the page then goes to its next seat
function showRematch(next) {
  const box = document.getElementById("rematch");
  const rematch = next.rematch;
  box.replaceChildren();
  if (!next.over || !rematch) return;
  if (next.next) {
    const link = el("a", "Your rematch has started: go to it");
    link.href = ROOT + next.next;
    box.append(link);
    location.assign(ROOT + next.next);
    return;
  }
  if (!rematch.possible) {
    if (rematch.why_not) box.append(el("p", rematch.why_not, "note"));
    return;
  }
  for (const side of rematch.asked_by) box.append(el("p", `${side} offers a rematch.`, "offer"));
  if (rematch.you_asked) {
    box.append(el("p", "You asked for a rematch; waiting for your opponent to accept.", "note"));
    return;
  }
  const button = el("button", rematch.asked_by.length ? "Accept the rematch" : "Rematch");
  button.type = "button";
  button.dataset.action = "rematch";
  button.addEventListener("click", () => { button.disabled = true; post("rematch", {}); });
  box.append(button);
}

// -- input: clicks, drags, the move box --------------------------------------------------

function partAt(event) {
  const under = document.elementFromPoint(event.clientX, event.clientY);
  return under ? under.closest("[data-part].part") : null;
}

// a press on a part chooses it (a piece); letting go over another part is a drag to it
position.addEventListener("pointerdown", (event) => {
  if (!myTurn() || event.button !== 0) return;
  const target = event.target.closest("[data-part].part");
  if (!target || (target.dataset.move !== undefined && target.classList.contains("legal"))) return;
  event.preventDefault();
  dragFrom = target.dataset.part;
  choose(target.dataset.part);
  if (prefix) document.body.classList.add("dragging");
});
document.addEventListener("pointerup", (event) => {
  const from = dragFrom;
  dragFrom = null;
  document.body.classList.remove("dragging");
  if (from === null || !myTurn() || !prefix) return;
  const target = partAt(event);
  if (target && target.dataset.part !== from && position.contains(target)) choose(target.dataset.part);
});
position.addEventListener("click", (event) => {
  if (!myTurn()) return;
  const target = event.target.closest("[data-move].legal");
  if (target) play(target.dataset.move);
});
legalBox.addEventListener("click", (event) => {
  const target = event.target.closest("[data-move].legal");
  if (target) play(target.dataset.move);
});
document.getElementById("leave").addEventListener("click", () => post("leave", {}));
moveBox.addEventListener("submit", (event) => {
  event.preventDefault();
  const typed = moveInput.value.trim();
  if (!typed || !snapshot) return;
  const words = snapshot.legal_words || [];
  // the exact words first (chess's Bxc3 and bxc3 are two moves), then in any case
  let index = words.indexOf(typed);
  if (index < 0) index = words.findIndex((each) => each.toLowerCase() === typed.toLowerCase());
  moveInput.value = "";
  play(index >= 0 ? snapshot.legal[index] : typed);
});

// resigning asks first
const confirmBox = document.getElementById("confirm");
document.getElementById("resign").addEventListener("click", () => { confirmBox.hidden = false; });
document.getElementById("resign-no").addEventListener("click", () => { confirmBox.hidden = true; });
document.getElementById("resign-yes").addEventListener("click", () => {
  confirmBox.hidden = true;
  post("resign", {});
});

document.getElementById("draw").addEventListener("click", () => post("draw", {}));

setInterval(tick, 100);

// a game with a friend: the link to share came in the fragment (never sent to the server)
const share = new URLSearchParams(location.hash.slice(1)).get("share");
if (share) {
  const note = el("p", "Send this link to your opponent: ", "share");
  const link = el("a", new URL(share, location.href).href);
  link.href = link.textContent;
  note.append(link);
  document.querySelector(".play aside").prepend(note);
}

// A friend's seat (a shared link) is played under the name this browser keeps (picked on a
// lobby page, with its token), if any: said before the page follows the seat (which is when
// the game may start); without one, or if it may not be, the seat stays the guest "friend".
async function bringName() {
  if (!document.body.dataset.nameable) return;
  let kept = null;
  try {
    kept = JSON.parse(localStorage.getItem("hub-name") || "null");
  } catch (error) { /* an unreadable entry: no name */ }
  if (!kept || typeof kept.name !== "string" || typeof kept.token !== "string") return;
  try {
    await post("name", { name: kept.name, token: kept.token });
  } catch (error) { /* the game goes on with the guest's name */ }
}

let source = null;
bringName().finally(() => {
  source = new EventSource(`${ROOT}/play/${encodeURIComponent(token)}/events`);
  source.onmessage = (event) => {
    const next = JSON.parse(event.data);
    render(next);
    const waiting = next.rematch && next.rematch.possible && !next.next;
    if (next.over && !waiting && !next.follows) source.close(); // (the console's page follows)
  };
});
