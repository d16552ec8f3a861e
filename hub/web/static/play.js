// A seat's page: follows the seat's snapshots and offers its person the legal moves.
// Every move the page offers is an element carrying data-move="TEXT" (the move in the
// game's notation) with the class "legal": the picture's own elements where it has them,
// else a button under the board. Elements carrying data-part="TEXT" are pieces of a move
// (a square, a hole): clicks are joined (as they are, or with a space) until they make a
// legal move; when several moves share what was clicked, their endings are offered as
// buttons (a promotion). Text from the server goes in with textContent; the one exception is
// the picture ("html"), which the server renders with everything escaped.
"use strict";

const token = document.body.dataset.token;
const position = document.getElementById("position");
const legalBox = document.getElementById("legal");
const errorLine = document.getElementById("error");
let snapshot = null;
let prefix = "";
let deadline = null;

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

async function post(path, body) {
  const reply = await fetch(`/play/${encodeURIComponent(token)}/${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const data = await reply.json();
  errorLine.textContent = data.error || "";
}

function play(move) {
  prefix = "";
  for (const node of document.querySelectorAll(".legal")) node.classList.remove("legal");
  post("move", { move });
}

function candidates(text) {
  return snapshot.legal.filter((move) => move === text || move.startsWith(text));
}

function choose(part) {
  for (const joined of [prefix + part, prefix ? `${prefix} ${part}` : part]) {
    const matching = candidates(joined);
    if (matching.length === 0) continue;
    if (matching.length === 1 && matching[0] === joined) { play(joined); return; }
    prefix = joined;
    offer(matching.filter((move) => move !== joined), joined);
    return;
  }
  prefix = "";
  offer(snapshot.legal, "");
}

function offer(moves, chosen) {
  // mark what the picture can take, then buttons for the rest (or for the endings)
  legalBox.replaceChildren();
  const inPicture = new Set();
  for (const node of position.querySelectorAll("[data-move]")) {
    const move = node.dataset.move;
    const ok = !chosen && snapshot.legal.includes(move);
    node.classList.toggle("legal", ok);
    if (ok) inPicture.add(move);
  }
  for (const node of position.querySelectorAll("[data-part]")) {
    const next = chosen ? candidates(`${chosen}${node.dataset.part}`).length
      + candidates(`${chosen} ${node.dataset.part}`).length : candidates(node.dataset.part).length;
    node.classList.toggle("part", snapshot.your_turn && next > 0);
    node.classList.toggle("chosen", Boolean(chosen) && node.dataset.part === chosen.slice(-node.dataset.part.length));
  }
  if (chosen && moves.length === 0) return;
  for (const move of moves) {
    if (!chosen && inPicture.has(move)) continue;  // (a move made of parts is listed too)
    const button = el("button", move, "legal");
    button.type = "button";
    button.dataset.move = move;
    legalBox.append(button);
  }
}

function render(next) {
  snapshot = next;
  prefix = "";
  position.innerHTML = next.html;
  document.getElementById("turn").textContent = next.waiting ? next.waiting : next.over
    ? "The game is over."
    : next.your_turn ? `Your move (${next.seat_name}).`
      : next.to_move ? `Waiting for ${next.to_move}.` : "Waiting for the game to start.";
  errorLine.textContent = next.error || "";
  document.getElementById("result").textContent = next.result;
  const moves = document.getElementById("moves");
  moves.classList.toggle("numbered", Boolean(next.numbered)); // chess: "4. e4", not plies
  moves.replaceChildren(...next.moves.map((move) => el("li", move)));
  moves.scrollTop = moves.scrollHeight;
  deadline = next.left_ms === null ? null : performance.now() + next.left_ms;
  document.getElementById("resign").disabled = next.over;
  document.getElementById("leave").hidden = !next.can_leave;  // waiting in the queue
  if (next.seat_name) document.querySelector("header h1").textContent = `${next.game}: you play ${next.seat_name}`;
  legalBox.replaceChildren();
  if (next.your_turn) offer(next.legal, "");
  document.body.classList.toggle("over", next.over);
  showRematch(next);
}

// once the game is over: the rematch (the seats rotated, colours swapped), started when
// every person in a browser asked; the page then goes to its next seat
function showRematch(next) {
  const box = document.getElementById("rematch");
  const rematch = next.rematch;
  box.replaceChildren();
  if (!next.over || !rematch) return;
  if (next.next) {
    const link = el("a", "Your rematch has started: go to it");
    link.href = next.next;
    box.append(link);
    location.assign(next.next);
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

position.addEventListener("click", (event) => {
  if (!snapshot || !snapshot.your_turn) return;
  const target = event.target.closest("[data-move].legal, [data-part].part");
  if (!target) return;
  if (target.dataset.move !== undefined && target.classList.contains("legal")) play(target.dataset.move);
  else choose(target.dataset.part);
});
legalBox.addEventListener("click", (event) => {
  const target = event.target.closest("[data-move].legal");
  if (target) play(target.dataset.move);
});
document.getElementById("resign").addEventListener("click", () => post("resign", {}));
document.getElementById("leave").addEventListener("click", () => post("leave", {}));

setInterval(() => {
  const clock = document.getElementById("clock");
  if (deadline === null || !snapshot || snapshot.over) { clock.textContent = ""; return; }
  const tenths = Math.max(0, Math.round((deadline - performance.now()) / 100));
  const minutes = Math.floor(tenths / 600);
  const rest = tenths % 600;
  clock.textContent = `${minutes}:${String(Math.floor(rest / 10)).padStart(2, "0")}.${rest % 10}`;
}, 100);

// a game with a friend: the link to share came in the fragment (never sent to the server)
const share = new URLSearchParams(location.hash.slice(1)).get("share");
if (share) {
  const note = el("p", "Send this link to your opponent: ", "share");
  const link = el("a", new URL(share, location.href).href);
  link.href = link.textContent;
  note.append(link);
  document.querySelector(".play aside").prepend(note);
}

const source = new EventSource(`/play/${encodeURIComponent(token)}/events`);
source.onmessage = (event) => {
  const next = JSON.parse(event.data);
  render(next);
  const waiting = next.rematch && next.rematch.possible && !next.next;
  if (next.over && !waiting) source.close();
};
