// The page of `markerkit serve`: the live picture over a WebSocket (one picture at a time, asked for
// once the last is drawn), the capture assistant's state that comes with it, and the buttons, which call
// the server's API. No build step, no libraries.
"use strict";

const $ = (id) => document.getElementById(id);
// The run's secret, put in the page by the server: the API and the live socket take only requests that
// carry it, so no other web page can use them.
const token = document.querySelector('meta[name="markerkit-token"]').content || new URLSearchParams(location.search).get("token");
const state = { client: null, controls: false, views: 0, status: null, url: null, shown: 0, times: [] };
// For tests and the curious: pictures drawn, and the rate over the last two seconds.
window.markerkit = { framesShown: 0, fps: 0, status: null, controls: false };

const verdicts = {
  noBoard: "no board in view", moving: "hold the board still", holding: "holding…", blurred: "too blurred",
  notNew: "seen already: move the board somewhere new", kept: "view kept",
};

function withToken(path) {
  return token ? path + (path.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(token) : path;
}

async function call(path, body) {
  const headers = { "Content-Type": "application/json" };
  if (state.client) headers["X-MarkerKit-Client"] = state.client;
  if (token) headers["X-MarkerKit-Token"] = token;
  const response = await fetch(path, { method: body === undefined ? "GET" : "POST", headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!response.ok) {
    let message = response.status + " " + response.statusText;
    try { message = (await response.json()).error || message; } catch (e) { /* not JSON */ }
    throw new Error(message);
  }
  return response;
}

function say(element, text, error) {
  element.textContent = text;
  element.classList.toggle("error", !!error);
}

// The live picture.
function connect() {
  const socket = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + withToken("/live"));
  socket.binaryType = "blob";
  socket.onmessage = (event) => {
    if (typeof event.data !== "string") { show(event.data, socket); return; }
    const message = JSON.parse(event.data);
    state.controls = message.controls;
    window.markerkit.controls = message.controls;
    if (message.type === "hello") { state.client = message.client; role(message); return; }
    role(message);
    if (message.status) update(message.status);
    if (!message.frame) socket.send("next");
  };
  socket.onclose = () => { $("role").textContent = "reconnecting"; $("role").className = "chip"; setTimeout(connect, 1000); };
}

function show(blob, socket) {
  const url = URL.createObjectURL(blob);
  const img = $("frame");
  img.onload = () => {
    if (state.url) URL.revokeObjectURL(state.url);
    state.url = url;
    const now = performance.now();
    state.times.push(now);
    while (state.times.length && now - state.times[0] > 2000) state.times.shift();
    window.markerkit.framesShown += 1;
    window.markerkit.fps = state.times.length > 1 ? (state.times.length - 1) * 1000 / (now - state.times[0]) : 0;
    $("browser-fps").textContent = window.markerkit.fps.toFixed(1);
    drawMap();
    socket.send("next");
  };
  img.onerror = () => socket.send("next");
  img.src = url;
}

function role(message) {
  const chip = $("role");
  chip.textContent = message.controls ? "you control the camera" : "watching (another browser controls the camera)";
  chip.className = "chip " + (message.controls ? "controls" : "watches");
  for (const id of ["keep", "calibrate"]) $(id).disabled = !message.controls;
}

function update(status) {
  state.status = status;
  window.markerkit.status = status;
  $("source").textContent = status.device + " · " + (status.board || "no board: markers shown") + " · views saved in " + status.directory;
  $("phase").textContent = status.phase;
  $("camera-fps").textContent = status.fps.toFixed(1);
  $("frames").textContent = status.frames;
  $("dropped").textContent = status.dropped;
  $("bad-frames").textContent = status.bad > 0 ? `, ${status.bad} damaged skipped` : "";
  $("message").hidden = !status.message;
  $("message").textContent = status.message || "";
  $("message").classList.toggle("error", status.phase === "failed");
  $("views").textContent = status.views;
  $("views-label").textContent = status.rig ? "Sets" : "Views";
  $("keep").textContent = status.rig ? "Keep set" : "Keep view";
  $("count").textContent = status.count;
  if (status.board) {
    const found = status.corners != null ? " · " + status.corners + " corners found" : "";
    $("verdict").textContent = (verdicts[status.verdict] || status.verdict || "–") + found;
  } else {
    $("verdict").textContent = (status.markers ?? 0) + " markers in view · keep view saves the frame";
  }
  const rig = status.rig;
  if (rig) {
    // A rig: each camera's verdict and coverage, then how sure a rig from the sets so far is of each pair.
    $("source").textContent = rig.cameras.map((c) => c.name + " " + c.device).join(" + ") + " · " + status.board + " · sets saved in " + status.directory;
    const gap = rig.gap != null ? `frames ${(rig.gap * 1000).toFixed(1)} ms apart (at most ${(rig.maxGap * 1000).toFixed(1)})` : "";
    // The first camera's assistant decides; the others' boards are shown as found until it keeps its view.
    const seen = (c) => c.verdict ? verdicts[c.verdict] || c.verdict : c.corners != null ? "board found" : "no board in view";
    $("verdict").textContent = rig.cameras.map((c) => c.name + ": " + seen(c)).join(" · ") + (gap ? " · " + gap : "");
    $("coverage").replaceChildren(...rig.cameras.flatMap((c) => {
      const title = document.createElement("p");
      title.className = "camera-name";
      title.textContent = `${c.name} (${c.width}x${c.height})` + (c.corners != null ? ` · ${c.corners} corners` : "");
      return [title, ...c.coverage.map(bar)];
    }));
    $("pairs").hidden = false;
    $("pairs").replaceChildren(...(rig.pairs.length ? rig.pairs.map((p) => {
      const line = document.createElement("p");
      line.textContent = `${p.first}–${p.second}: baseline ${p.baseline.toFixed(2)} ± ${p.baselineSigma.toFixed(3)} ${p.units}, direction ± ${p.directionSigma.toFixed(3)}°, rotation ± ${p.rotationSigma.toFixed(3)}° from ${p.sets} sets`;
      return line;
    }) : [Object.assign(document.createElement("p"), { textContent: "the pair's baseline and rotation sigma come from 3 sets on" })]));
  } else {
    $("coverage").replaceChildren(...status.coverage.map(bar));
  }
  const u = status.uncertainty;
  $("uncertainty").hidden = !u;
  if (u) {
    $("worst-place").textContent = `the ${u.place} of the image (${Math.round(u.worst.x)}, ${Math.round(u.worst.y)})`;
    $("u-views").textContent = u.views;
    $("worst").textContent = u.worst.sigma.toFixed(3);
    $("median").textContent = u.median.toFixed(3);
    $("until").textContent = status.untilSigma ? `(goal ${status.untilSigma} px)` : "";
  }
  if (status.views !== state.views) thumbnails(status);
  $("calibrate").disabled = !state.controls || !status.board || status.views === 0;
}

// One coverage bar, built element by element: the page's Content-Security-Policy allows no inline style attribute.
function bar(c) {
  const row = document.createElement("div");
  row.className = "bar";
  const name = document.createElement("span"), track = document.createElement("span"), fill = document.createElement("span"), value = document.createElement("span");
  name.textContent = c.name;
  track.className = "track";
  fill.className = "fill";
  fill.style.width = Math.round(c.value * 100) + "%";
  fill.style.display = "block";
  track.append(fill);
  value.textContent = Math.round(c.value * 100) + "%";
  row.append(name, track, value);
  return row;
}

function thumbnails(status) {
  const box = $("thumbnails");
  for (let i = state.views; i < status.views; i++) {
    const figure = document.createElement("figure");
    const img = document.createElement("img");
    img.src = withToken(`/api/views/${i}/thumbnail.jpg`);
    img.alt = `view ${i}`;
    const caption = document.createElement("figcaption");
    caption.textContent = status.sharpness[i] != null ? `#${i} sharp ${Math.round(status.sharpness[i])}` : `#${i}`;
    figure.append(img, caption);
    box.append(figure);
  }
  state.views = status.views;
}

// The uncertainty map over the picture: one cell per grid point, colour by log sigma (blue 0.05 px, red 2 px and more).
function drawMap() {
  const canvas = $("map"), img = $("frame"), u = state.status && state.status.uncertainty;
  canvas.width = img.clientWidth;
  canvas.height = img.clientHeight;
  const g = canvas.getContext("2d");
  g.clearRect(0, 0, canvas.width, canvas.height);
  if (!u || !$("show-map").checked || !state.status.width) return;
  const sx = canvas.width / state.status.width, sy = canvas.height / state.status.height;
  const xs = u.points.slice(0, u.columns).map((p) => p.x), ys = u.points.filter((_, i) => i % u.columns === 0).map((p) => p.y);
  const dx = xs.length > 1 ? xs[1] - xs[0] : state.status.width, dy = ys.length > 1 ? ys[1] - ys[0] : state.status.height;
  for (const p of u.points) {
    const t = Math.max(0, Math.min(1, (Math.log10(p.sigma) + 1.3) / 1.6));
    g.fillStyle = `hsla(${240 - 240 * t}, 90%, 50%, 0.28)`;
    g.fillRect((p.x - dx / 2) * sx, (p.y - dy / 2) * sy, dx * sx, dy * sy);
  }
  g.strokeStyle = "#ff1744";
  g.lineWidth = 3;
  g.beginPath();
  g.arc(u.worst.x * sx, u.worst.y * sy, 18, 0, 2 * Math.PI);
  g.stroke();
}

// The buttons.
$("keep").onclick = async () => {
  try { await call("/api/keep", {}); say($("action"), "keeping the next frame with the board in it"); } catch (e) { say($("action"), e.message, true); }
};

// The verdict above the summary: grade and reason, then what to do, coloured by grade.
function showVerdict(verdict) {
  const p = $("grade");
  p.className = verdict ? "verdict " + verdict.grade.replace(/ /g, "-") : "";
  p.textContent = verdict ? [`${verdict.grade}: ${verdict.reason}`, ...verdict.advice.map((a) => "to do: " + a)].join("\n") : "";
}

$("calibrate").onclick = async () => {
  say($("action"), "calibrating…");
  $("calibrate").disabled = true;
  try {
    const result = await (await call("/api/calibrate", { model: $("model").value })).json();
    say($("action"), `calibrated from ${result.used} of ${result.images} views`);
    $("result").hidden = false;
    showVerdict(result.verdict);
    $("summary").textContent = result.lines.join("\n");
    $("not-used").textContent = result.notUsed.length ? "not used: " + result.notUsed.join("; ") : "";
    $("report").href = withToken("/api/result/report.pdf");
    $("report").hidden = !!result.rig;
    $("formats").replaceChildren(...result.formats.map((f) => {
      if (f.problem) {
        const span = document.createElement("span");
        span.className = "unavailable";
        span.textContent = f.name;
        span.title = f.problem;
        return span;
      }
      const a = document.createElement("a");
      a.href = withToken("/api/result/" + f.name);
      a.textContent = f.name;
      a.className = "format";
      return a;
    }));
    const problems = result.formats.filter((f) => f.problem).map((f) => f.name + ": " + f.problem);
    $("format-problems").textContent = problems.join("; ");
  } catch (e) {
    say($("action"), e.message, true);
  } finally {
    $("calibrate").disabled = !state.controls;
  }
};

$("store-form").onsubmit = async (event) => {
  event.preventDefault();
  try {
    const stored = await (await call("/api/store", { name: $("store-name").value, force: $("store-force").checked })).json();
    say($("action"), "stored " + stored.stored);
    $("summary").textContent = stored.lines.join("\n");
    listStored();
  } catch (e) { say($("action"), e.message, true); }
};

async function listStored() {
  try {
    const list = await (await call("/api/calibrations")).json();
    $("stored-list").replaceChildren(...list.map((c) => {
      const row = document.createElement("tr");
      const cells = c.problem ? [c.name, "unreadable: " + c.problem, "", "", ""]
        : c.cameras ? [c.name, `rig of ${c.cameras.join(", ")}`, `${c.width}x${c.height}`, `baseline ${c.baseline.toFixed(2)} ${c.units}`, c.rms != null ? c.rms.toFixed(3) + " px" : "–"]
        : [c.name, c.model, `${c.width}x${c.height}`, `${c.fx.toFixed(1)}, ${c.fy.toFixed(1)}`, c.rms != null ? c.rms.toFixed(3) + " px" : "–"];
      for (const text of cells) { const td = document.createElement("td"); td.textContent = text; row.append(td); }
      const links = document.createElement("td");
      if (!c.problem) {
        for (const f of c.formats || ["json", "opencv-yaml", "ros"]) {
          const a = document.createElement("a");
          a.href = withToken(`/api/calibrations/${encodeURIComponent(c.name)}/${f}`);
          a.textContent = f;
          links.append(a);
        }
      }
      row.append(links);
      return row;
    }));
  } catch (e) { say($("action"), e.message, true); }
}

// The sheet form: only the fields of the chosen kind are shown and sent.
function sheetFields() {
  const kind = $("sheet-kind").value;
  for (const label of document.querySelectorAll("#sheet-form [data-for]")) label.hidden = !label.dataset.for.split(" ").includes(kind);
  $("sheet-spec").disabled = kind === "markers";
}
$("sheet-kind").onchange = sheetFields;

async function sheet(spec) {
  const form = $("sheet-form");
  const body = { kind: form.kind.value, page: form.page.value, landscape: form.landscape.checked, spec };
  for (const label of form.querySelectorAll("[data-for]")) {
    if (label.hidden) continue;
    const field = label.querySelector("input, select");
    body[field.name] = field.value;
  }
  try {
    const response = await call("/api/sheet", body);
    const name = (response.headers.get("Content-Disposition") || "").replace(/.*filename="([^"]+)".*/, "$1") || "sheet.pdf";
    const a = document.createElement("a");
    a.href = URL.createObjectURL(await response.blob());
    a.download = name;
    document.body.append(a);
    a.click();
    a.remove();
    say($("sheet-message"), "made " + name);
  } catch (e) { say($("sheet-message"), e.message, true); }
}
// The camera's focus, exposure and white balance: what the lock holds, changed from here by the page
// that controls the camera. Read again every two seconds (an autofocus left on moves the focus).
const controlLabels = {
  focus_automatic_continuous: "autofocus", focus_absolute: "focus", auto_exposure: "exposure mode",
  exposure_time_absolute: "exposure time", gain: "gain", white_balance_automatic: "auto white balance",
  white_balance_temperature: "white balance (K)", zoom_absolute: "zoom",
};

function controlInput(c) {
  let input;
  if (c.kind === "bool") {
    input = document.createElement("input");
    input.type = "checkbox";
    input.checked = c.value === 1;
  } else if (c.kind === "menu") {
    input = document.createElement("select");
    for (const entry of c.menu) input.append(new Option(entry.name, String(entry.index), false, entry.index === c.value));
  } else {
    input = document.createElement("input");
    input.type = "number";
    Object.assign(input, { min: c.minimum, max: c.maximum, step: c.step, value: c.value ?? "" });
  }
  input.id = "control-" + c.name;
  input.disabled = c.inactive || !state.controls;
  input.onchange = async () => {
    const value = c.kind === "bool" ? (input.checked ? "1" : "0") : input.value;
    try {
      cameraSettings(await (await call("/api/camera", { name: c.name, value })).json());
      say($("camera-message"), controlLabels[c.name] + " set to " + value);
    } catch (e) { say($("camera-message"), e.message, true); cameraSettings(); }
  };
  return input;
}

async function cameraSettings(settings) {
  if (!settings) {
    try { settings = await (await call("/api/camera")).json(); } catch (e) { return; }
  }
  window.markerkit.camera = settings;
  $("camera").hidden = settings.controls.length === 0;
  $("held").textContent = settings.held.length
    ? "held for calibration from the start (" + settings.held.join(", ") + "); changes made here hold too, and everything is put back when serve stops"
    : "not held: the camera's automatic modes work as they are set";
  $("camera-controls").replaceChildren(...settings.controls.map((c) => {
    const label = document.createElement("label");
    label.className = "control" + (c.inactive ? " inactive" : "");
    label.append((controlLabels[c.name] || c.name) + " ", controlInput(c));
    if (c.inactive) label.title = "an automatic mode drives it";
    return label;
  }));
}
setInterval(() => { if (!$("camera").contains(document.activeElement)) cameraSettings(); }, 2000);

$("sheet-form").onsubmit = (event) => { event.preventDefault(); sheet(false); };
$("sheet-spec").onclick = () => sheet(true);

sheetFields();
listStored();
cameraSettings();
connect();
