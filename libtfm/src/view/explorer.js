// tfm-view's explorer: reads the page's data (#tfm-data) and draws the head, model, matrix
// and step views. No network, no libraries: it runs from a file:// URL.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("tfm-data").textContent);
  const $ = (id) => document.getElementById(id);

  // ---- the arrays: base64 little-endian float32, float16 or 16-bit fixed point, decoded once
  function half(h) {
    const sign = h & 0x8000 ? -1 : 1, e = (h >> 10) & 31, m = h & 1023;
    if (e === 0) return sign * m * Math.pow(2, -24);
    if (e === 31) return m ? NaN : sign * Infinity;
    return sign * (1 + m / 1024) * Math.pow(2, e - 15);
  }
  // All arrays lie in one buffer (#tfm-arrays: zlib-deflated, base64), inflated before the
  // first drawing; an array's JSON gives its dtype, shape and first byte.
  let blob = null;
  async function inflate() {
    const bin = atob(document.getElementById("tfm-arrays").textContent.trim());
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    blob = new DataView(await new Response(stream).arrayBuffer());
  }
  function values(a) {
    if (a._v) return a._v;
    const n = a.shape.reduce((x, y) => x * y, 1), out = new Float32Array(n), at = a.at;
    if (a.dtype === "f32") for (let i = 0; i < n; i++) out[i] = blob.getFloat32(at + 4 * i, true);
    else if (a.dtype === "f16") for (let i = 0; i < n; i++) out[i] = half(blob.getUint16(at + 2 * i, true));
    else for (let i = 0; i < n; i++) out[i] = blob.getUint16(at + 2 * i, true) / 65535;
    a._v = out;
    return out;
  }

  // ---- colours: weights white -> blue over [0, 1]; vectors blue - white - red over [-m, m]
  const HEAD_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                        "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939"];
  const headColour = (h) => HEAD_COLOURS[h % HEAD_COLOURS.length];
  const clamp = (x, lo, hi) => Math.min(hi, Math.max(lo, x));
  function weightColour(w) {
    const t = clamp(Number.isFinite(w) ? w : 0, 0, 1);
    return [Math.round(255 + (8 - 255) * t), Math.round(255 + (69 - 255) * t), Math.round(255 + (148 - 255) * t)];
  }
  function valueColour(v, m) {
    const t = m > 0 && Number.isFinite(v) ? clamp(v / m, -1, 1) : 0;
    const end = t >= 0 ? [178, 24, 43] : [33, 102, 172], a = Math.abs(t);
    return end.map((c) => Math.round(255 + (c - 255) * a));
  }
  const css = (rgb) => "rgb(" + rgb[0] + "," + rgb[1] + "," + rgb[2] + ")";
  // Numbers as the page holds them: 4 significant digits (3 in a compact page's float16).
  function num(x, digits) {
    const p = digits || data.digits;
    if (x === -Infinity) return "\u2212\u221e";
    if (!Number.isFinite(x)) return String(x);
    if (x === 0) return "0";
    return Math.abs(x) >= 1e4 || Math.abs(x) < 1e-3 ? x.toExponential(p - 1) : x.toPrecision(p);
  }

  // ---- state
  const state = { block: 0, layer: 0, heads: [], focus: -1, focusKey: -1, token: 0 };
  const block = () => data.blocks[state.block];
  const tokens = (list) => data.tokens[list];
  function chosenHeads() {
    const out = [];
    state.heads.forEach((on, h) => { if (on) out.push(h); });
    return out;
  }
  // Weights [Tq,Tk] of one head, or the mean of the chosen heads.
  function matrixOf(b, layer, heads) {
    const a = b.layers[layer], w = values(a), tq = a.shape[1], tk = a.shape[2];
    const out = new Float32Array(tq * tk);
    for (const h of heads) for (let i = 0; i < tq * tk; i++) out[i] += w[h * tq * tk + i] / heads.length;
    return { w: out, tq: tq, tk: tk };
  }

  // ---- tooltip: elements register what to say at a point
  const tooltip = $("tooltip");
  function hoverText(el, say) {
    el.addEventListener("mousemove", (ev) => {
      const r = el.getBoundingClientRect(), text = say(ev.clientX - r.left, ev.clientY - r.top);
      if (text === null) { tooltip.hidden = true; return; }
      tooltip.textContent = text;
      tooltip.hidden = false;
      tooltip.style.left = ev.clientX + 12 + "px";
      tooltip.style.top = ev.clientY + 12 + "px";
    });
    el.addEventListener("mouseleave", () => { tooltip.hidden = true; });
  }
  const measure = document.createElement("canvas").getContext("2d");
  function textWidth(s, font) { measure.font = font; return Math.ceil(measure.measureText(s).width); }

  // ---- controls
  function fillControls() {
    const sel = $("block");
    sel.textContent = "";
    data.blocks.forEach((b, i) => sel.add(new Option(b.name, String(i))));
    sel.value = String(state.block);
    const b = block(), lsel = $("layer");
    lsel.textContent = "";
    b.layers.forEach((_, l) => lsel.add(new Option(String(l), String(l))));
    lsel.value = String(state.layer);
    const heads = $("heads");
    heads.textContent = "Heads ";
    for (let h = 0; h < b.heads; h++) {
      const label = document.createElement("label"), box = document.createElement("input"), sw = document.createElement("span");
      box.type = "checkbox";
      box.checked = state.heads[h];
      box.dataset.head = String(h);
      box.addEventListener("change", () => { state.heads[h] = box.checked; render(); });
      sw.className = "swatch";
      sw.style.background = headColour(h);
      label.append(box, sw, String(h));
      heads.append(label);
    }
    const tsel = $("token");
    tsel.textContent = "";
    tokens(b.queries).forEach((t, i) => tsel.add(new Option(i + ": " + t, String(i))));
    tsel.value = String(state.token);
  }
  function setBlock(i) {
    state.block = i;
    const b = block();
    state.layer = b.steps ? b.steps.layer : 0;
    state.heads = Array.from({ length: b.heads }, () => true);
    state.token = Math.min(state.token, tokens(b.queries).length - 1);
    state.focus = state.focusKey = -1;
    fillControls();
    render();
  }
  $("block").addEventListener("change", (ev) => setBlock(Number(ev.target.value)));
  $("layer").addEventListener("change", (ev) => { state.layer = Number(ev.target.value); render(); });
  $("token").addEventListener("change", (ev) => { state.token = Number(ev.target.value); drawHeadLines(); renderStepView(); });

  // ---- head view: queries left, keys right, a line per pair and chosen head. The tokens are
  // laid out once per attention block and layer; hovering only marks them and redraws lines.
  const ROW = 18, GAP = 240, FONT = "13px monospace";
  let headLayout = null;
  function renderHeadView() {
    const b = block(), q = tokens(b.queries), k = tokens(b.keys), box = $("head-box"), canvas = $("head-lines");
    box.querySelectorAll(".tok").forEach((e) => e.remove());
    const qw = Math.max(40, ...q.map((t) => textWidth(t, FONT))) + 10, kw = Math.max(40, ...k.map((t) => textWidth(t, FONT))) + 10;
    const height = Math.max(q.length, k.length) * ROW + 6, width = qw + GAP + kw;
    box.style.height = height + "px";
    box.style.width = width + "px";
    canvas.width = width;
    canvas.height = height;
    headLayout = { qw: qw, width: width, height: height, q: [], k: [] };
    const add = (text, i, side) => {
      const e = document.createElement("div");
      e.className = "tok " + side;
      e.textContent = text;
      e.dataset.index = String(i);
      e.style.top = i * ROW + "px";
      if (side === "q") { e.style.left = "0px"; e.style.width = qw - 8 + "px"; } else e.style.left = qw + GAP + "px";
      e.addEventListener("mouseenter", () => { if (side === "q") state.focus = i; else state.focusKey = i; drawHeadLines(); });
      e.addEventListener("mouseleave", () => { state.focus = state.focusKey = -1; drawHeadLines(); });
      if (side === "q") e.addEventListener("click", () => { state.token = i; $("token").value = String(i); renderStepView(); drawHeadLines(); });
      box.append(e);
      headLayout[side].push(e);
    };
    q.forEach((t, i) => add(t, i, "q"));
    k.forEach((t, j) => add(t, j, "k"));
    drawHeadLines();
  }
  function drawHeadLines() {
    const b = block(), canvas = $("head-lines"), L = headLayout;
    L.q.forEach((e, i) => { e.classList.toggle("focus", i === state.focus); e.classList.toggle("chosen", i === state.token); });
    L.k.forEach((e, j) => e.classList.toggle("focus", j === state.focusKey));
    const ctx = canvas.getContext("2d"), a = b.layers[state.layer], w = values(a), tq = a.shape[1], tk = a.shape[2];
    ctx.clearRect(0, 0, L.width, L.height);
    ctx.lineWidth = 2;
    let drawn = 0;
    for (const h of chosenHeads()) {
      ctx.strokeStyle = headColour(h);
      for (let i = 0; i < tq; i++) {
        if (state.focus >= 0 && i !== state.focus) continue;
        for (let j = 0; j < tk; j++) {
          if (state.focusKey >= 0 && j !== state.focusKey) continue;
          const v = w[(h * tq + i) * tk + j];
          if (!(v > 0.005)) continue;
          ctx.globalAlpha = clamp(v, 0, 1);
          ctx.beginPath();
          ctx.moveTo(L.qw - 2, i * ROW + ROW / 2);
          ctx.lineTo(L.qw + GAP + 2, j * ROW + ROW / 2);
          ctx.stroke();
          drawn++;
        }
      }
    }
    ctx.globalAlpha = 1;
    canvas.dataset.lines = String(drawn);
    canvas.dataset.focus = String(state.focus);
  }

  // ---- model view: layers x heads thumbnails of the chosen attention
  function thumbnail(m) {
    const c = document.createElement("canvas");
    c.width = m.tk;
    c.height = m.tq;
    const ctx = c.getContext("2d"), img = ctx.createImageData(m.tk, m.tq);
    for (let i = 0; i < m.tq * m.tk; i++) {
      const rgb = weightColour(m.w[i]);
      img.data.set([rgb[0], rgb[1], rgb[2], 255], 4 * i);
    }
    ctx.putImageData(img, 0, 0);
    return c;
  }
  function renderModelView() {
    const b = block(), grid = $("model-grid"), chosen = chosenHeads();
    document.querySelectorAll(".block-name").forEach((e) => { e.textContent = b.name; });
    grid.textContent = "";
    grid.style.gridTemplateColumns = "70px repeat(" + b.heads + ", 76px)";
    grid.append(document.createElement("span"));
    for (let h = 0; h < b.heads; h++) {
      const e = document.createElement("span");
      e.className = "colhead";
      e.textContent = "head " + h;
      grid.append(e);
    }
    b.layers.forEach((_, l) => {
      const e = document.createElement("span");
      e.className = "rowhead";
      e.textContent = "layer " + l;
      grid.append(e);
      for (let h = 0; h < b.heads; h++) {
        const c = thumbnail(matrixOf(b, l, [h]));
        c.className = "thumb";
        if (l === state.layer && chosen.length === 1 && chosen[0] === h) c.classList.add("open");
        c.dataset.layer = String(l);
        c.dataset.head = String(h);
        c.title = "layer " + l + ", head " + h;
        c.addEventListener("click", () => {
          state.layer = l;
          state.heads = state.heads.map((_, i) => i === h);
          fillControls();
          render();
          $("matrix-view").scrollIntoView();
        });
        grid.append(c);
      }
    });
  }

  // ---- matrix view: one head (or the chosen heads' mean) with labels and a colour scale
  function renderMatrixView() {
    const b = block(), heads = chosenHeads(), q = tokens(b.queries), k = tokens(b.keys), canvas = $("matrix");
    const which = heads.length === 1 ? "head " + heads[0] : heads.length === b.heads ? "mean of all heads" : "mean of heads " + heads.join(", ");
    $("matrix-title").textContent = b.name + ", layer " + state.layer + ", " + which;
    const ctx = canvas.getContext("2d");
    if (!heads.length) { canvas.width = canvas.height = 0; return; }
    const m = matrixOf(b, state.layer, heads), FONTM = "12px monospace";
    const cell = clamp(Math.floor(560 / Math.max(m.tq, m.tk)), 4, 28);
    const left = Math.max(...q.map((t) => textWidth(t, FONTM))) + 10, top = Math.max(...k.map((t) => textWidth(t, FONTM))) + 10;
    canvas.width = left + m.tk * cell + 4;
    canvas.height = top + m.tq * cell + 4;
    Object.assign(canvas.dataset, { left: left, top: top, cell: cell, rows: m.tq, cols: m.tk });
    ctx.fillStyle = "#fff";
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    for (let i = 0; i < m.tq; i++)
      for (let j = 0; j < m.tk; j++) {
        ctx.fillStyle = css(weightColour(m.w[i * m.tk + j]));
        ctx.fillRect(left + j * cell, top + i * cell, cell, cell);
      }
    ctx.fillStyle = "#222";
    ctx.font = FONTM;
    ctx.textBaseline = "middle";
    ctx.textAlign = "right";
    q.forEach((t, i) => ctx.fillText(t, left - 5, top + (i + 0.5) * cell));
    ctx.save();
    ctx.rotate(-Math.PI / 2);
    ctx.textAlign = "left";
    k.forEach((t, j) => ctx.fillText(t, -(top - 5), left + (j + 0.5) * cell));
    ctx.restore();
    canvas._say = (x, y) => {
      const i = Math.floor((y - top) / cell), j = Math.floor((x - left) / cell);
      if (i < 0 || j < 0 || i >= m.tq || j >= m.tk) return null;
      return q[i] + " \u2192 " + k[j] + ": " + m.w[i * m.tk + j].toFixed(4);
    };
    const scale = $("matrix-scale"), sh = Math.max(120, m.tq * cell);
    scale.width = 70;
    scale.height = top + sh + 4;
    const s = scale.getContext("2d");
    for (let y = 0; y < sh; y++) {
      s.fillStyle = css(weightColour(1 - y / (sh - 1)));
      s.fillRect(0, top + y, 18, 1);
    }
    s.fillStyle = "#222";
    s.font = FONTM;
    s.textBaseline = "middle";
    s.fillText("1", 24, top + 6);
    s.fillText("0.5", 24, top + sh / 2);
    s.fillText("0", 24, top + sh - 6);
  }
  hoverText($("matrix"), (x, y) => ($("matrix")._say ? $("matrix")._say(x, y) : null));

  // ---- step view: one head, one query token, as the paper computes it
  function strip(vals, name, mark, width) {
    let m = 0;
    for (const v of vals) if (Number.isFinite(v)) m = Math.max(m, Math.abs(v));
    const px = Math.max(1, Math.min(8, Math.floor((width || 512) / vals.length)));
    const c = document.createElement("canvas");
    c.className = "strip";
    c.width = vals.length * px;
    c.height = 12;
    c.style.width = c.width + "px";
    const ctx = c.getContext("2d");
    vals.forEach((v, i) => { ctx.fillStyle = css(valueColour(v, m)); ctx.fillRect(i * px, 0, px, 12); });
    if (mark) { ctx.strokeStyle = "#000"; ctx.lineWidth = 2; ctx.strokeRect(mark[0] * px + 1, 1, (mark[1] - mark[0]) * px - 2, 10); }
    c.dataset.name = name;
    c.dataset.values = Array.from(vals, (v) => String(v)).join(",");
    hoverText(c, (x) => {
      const i = Math.floor(x / px);
      return i >= 0 && i < vals.length ? name + "[" + i + "] = " + num(vals[i]) : null;
    });
    return c;
  }
  function stripLine(parent, label, vals, name, mark) {
    const line = document.createElement("div"), what = document.createElement("span");
    line.className = "stripline";
    what.className = "what";
    what.textContent = label;
    line.append(what, strip(vals, name, mark));
    parent.append(line);
  }
  const row = (a, i, from, n) => values(a).subarray(i * a.shape[1] + from, i * a.shape[1] + from + n);
  function heading(parent, text, small) {
    const h = document.createElement("h3");
    h.textContent = text;
    if (small) { const s = document.createElement("small"); s.textContent = small; h.append(s); }
    parent.append(h);
  }
  function renderStepView() {
    const b = block(), out = $("steps"), st = b.steps;
    out.textContent = "";
    if (!st) {
      $("step-title").textContent = "(the weights alone: tfm-view -m MODEL or --attend keeps the steps that make them)";
      return;
    }
    const heads = chosenHeads(), h = heads.length ? heads[0] : 0, i = state.token;
    const d = st.q.shape[1], dk = d / b.heads, tq = st.q.shape[0], tk = st.k.shape[0];
    const q = tokens(b.queries), k = tokens(b.keys);
    $("step-title").textContent = b.name + ", layer " + st.layer + " (--step-layer), head " + h +
      " (the first head chosen), token " + i + " \u201c" + q[i] + "\u201d";
    const input = data.inputs.find((e) => e.tokens === b.queries);
    if (input) {
      heading(out, "1. The stack's input", input.sum_label);
      if (input.token) stripLine(out, input.token_label, row(input.token, i, 0, d), "embedding");
      if (input.position) stripLine(out, input.position_label, row(input.position, i, 0, d), "position");
      stripLine(out, input.sum_label.split(" (")[0], row(input.sum, i, 0, d), "x");
    }
    heading(out, "2. Query of token " + i + ", head " + h,
            (st.projected_in ? "q = x W_Q" : "q = x (no projection)") + ", columns " + h * dk + "\u2013" + ((h + 1) * dk - 1) +
            (st.layer > 0 ? "; x is layer " + st.layer + "'s input" : ""));
    stripLine(out, "q", row(st.q, i, h * dk, dk), "q");
    const scores = st.scores ? values(st.scores) : null, w = values(st.weights);
    heading(out, "3. Scores against every key, scaled, masked, softmax",
            st.scores ? "softmax(q\u00b7k \u00d7 " + num(st.scale) + (st.scale === 1 ? " (unscaled)" : " = 1/\u221ad_k") + " + mask)"
                      : "additive scores (not kept by the engine): softmax only");
    const table = document.createElement("table");
    table.className = "steps";
    const hdr = ["key", "k (head " + h + ")", "q\u00b7k", "\u00d7 scale", "mask", "softmax", "v (head " + h + ")"];
    table.createTHead().insertRow().append(...hdr.map((t) => { const th = document.createElement("th"); th.textContent = t; return th; }));
    const body = table.createTBody();
    let best = 0;
    for (let j = 1; j < tk; j++) if (w[(h * tq + i) * tk + j] > w[(h * tq + i) * tk + best]) best = j;
    for (let j = 0; j < tk; j++) {
      const tr = body.insertRow(), at = (h * tq + i) * tk + j;
      const raw = scores ? scores[at] : NaN, masked = scores ? raw === -Infinity : j >= b.key_len;
      if (masked) tr.className = "masked";
      if (j === best) tr.classList.add("top");
      const td = (text, cls, value) => {
        const c = tr.insertCell();
        c.textContent = text;
        if (cls) c.className = cls;
        if (value !== undefined) c.dataset.value = String(value);
        return c;
      };
      td(j + " " + k[j], "tokcell");
      tr.insertCell().append(strip(row(st.k, j, h * dk, dk), "k" + j, null, 160));
      if (scores) {
        td(masked ? "\u2014" : num(raw), "score", masked ? "" : raw);
        td(masked ? "\u2014" : num(Math.fround(raw * st.scale)), "scaled", masked ? "" : Math.fround(raw * st.scale));
      } else { td(""); td(""); }
      td(masked ? "\u2212\u221e" : "0", "mask");
      td(num(w[at], 4), "w", w[at]);
      tr.insertCell().append(strip(row(st.v, j, h * dk, dk), "v" + j, null, 160));
    }
    out.append(table);
    heading(out, "4. The weighted sum of the values", "\u03a3\u2c7c softmax\u2c7c v\u2c7c: head " + h + "'s output for token " + i);
    stripLine(out, "head " + h + " output", row(st.context, i, h * dk, dk), "head");
    heading(out, "5. The heads concatenated, then the output projection",
            st.projected_out ? "concat(head 0 \u2026 head " + (b.heads - 1) + ") W_O + b" : "no output projection");
    stripLine(out, "concat (head " + h + " outlined)", row(st.context, i, 0, d), "concat", [h * dk, (h + 1) * dk]);
    stripLine(out, "output", row(st.output, i, 0, d), "output");
  }

  function render() {
    renderHeadView();
    renderModelView();
    renderMatrixView();
    renderStepView();
  }

  // ---- the page's frame
  $("title").textContent = data.title;
  $("version").textContent = "tfm " + data.version;
  for (const n of data.notes) {
    const li = document.createElement("li");
    li.textContent = n;
    $("notes").append(li);
  }
  inflate().then(() => {
    setBlock(0);
    const ms = performance.now();
    document.body.dataset.renderMs = ms.toFixed(1);
    window.tfmView = { data: data, state: state, render: render, ready: true, renderMs: ms };
  }, (err) => {
    const li = document.createElement("li");
    li.textContent = "the page's data could not be read: " + err;
    $("notes").append(li);
    throw err;
  });
})();
