/* picker.js — the first screen's workload picker: offline, no library, no network.
 *
 * first_screen.py inlines this file into report.html (and side_by_side.py into compare.html)
 * beside the JSON of advise.answers(facts), in <script type="application/json">. It answers the
 * picked workload exactly as advise.advise() does in Python, from that JSON alone:
 *
 *   - the nearest measured row size and writer count for the engine (the larger on a tie),
 *     with a note when they differ from the asked ones (the same sentences as advise.py);
 *   - the precomputed ranking at that point, walked in order; a candidate is dropped when a
 *     required promise is not kept (ok !== true), when its capacity at the writers point is
 *     below the asked rate, or when its database server is not the workload's engine
 *     (engine_rules, precomputed by advise.answers from advise._engine_reason);
 *   - each subject once (its first surviving candidate); the subjects left out, each with its
 *     reason (a measured failure before a "not measured") and source.
 *
 * All of the ranking itself (figures, order) is Python's: this file only filters and draws.
 * advise() below is pure; under Node (module.exports) nothing touches a DOM, which is how
 * first_screen_test.py checks it against advise.py workload by workload.
 *
 * The page: every <form data-idbench-picker> drives every [data-idbench-ranking] element; each
 * ranking element reads the JSON whose id its data-answers names, so compare.html draws the
 * answers of two runs for one picked workload (data-compare-with names the other ranking; a
 * subject placed differently there is marked).
 */
(function () {
  "use strict";

  // ---------------------------------------------------------------------------------------
  // the answer (pure)

  /** The measured point nearest `want` (the larger on a tie); null when nothing was. */
  function nearest(points, want) {
    let best = null;
    for (const p of points || []) {
      if (best === null) { best = p; continue; }
      const d = Math.abs(p - want), bd = Math.abs(best - want);
      if (d < bd || (d === bd && p > best)) best = p;
    }
    return best;
  }

  /** Python's f"{float(f'{v:.3g}'):g}" for the rates a person types (round half to even). */
  function g3(v) {
    if (v === 0 || !isFinite(v)) return String(v);
    const k = 2 - Math.floor(Math.log10(Math.abs(v)));
    const scale = Math.pow(10, k);
    const scaled = v * scale;
    let r = Number(v.toPrecision(3));
    const lo = Math.floor(scaled);
    if (scaled - lo === 0.5 && (lo + 0.5) / scale === v) r = (lo % 2 === 0 ? lo : lo + 1) / scale;
    return String(Number(r.toPrecision(3)));
  }

  /** units.si: 3 significant digits with a k/M/G prefix. */
  function si(x) {
    for (const [factor, prefix] of [[1e9, "G"], [1e6, "M"], [1e3, "k"]]) {
      if (Math.abs(x) >= factor * 0.9995) return `${g3(x / factor)} ${prefix}`;
    }
    return g3(x);
  }

  function cmp(a, b) { return a < b ? -1 : a > b ? 1 : 0; }

  /** advise.advise(facts, workload) over the embedded answers: {used, row, writers, ranked,
   * ruledOut}. `w` is {engine, row_bytes, writers, rate, musts}. */
  function advise(A, w) {
    const pts = A.points[w.engine] || {rows: [0], writers: [1]};
    const row = nearest(pts.rows, w.row_bytes), writers = nearest(pts.writers, w.writers);
    const used = [];
    if (w.engine !== "none" && row !== w.row_bytes) {
      used.push(`${w.row_bytes} B rows asked: ${row} B, the nearest measured row size`);
    }
    if (writers !== w.writers) {
      const most = pts.writers[pts.writers.length - 1];
      const why = writers === most && writers < w.writers ? "the most measured" : "the nearest measured";
      used.push(`${w.writers} writers asked: ${writers}, ${why}`);
    }
    if (w.musts.includes("clock-step-back") && A.step_back) {
      used.push(`clock step back as measured: ${A.step_back}`);
    }
    const placed = [], ruled = new Map(), seen = new Set();
    for (const entry of A.rankings[`${w.engine}|${row}|${writers}`] || []) {
      const c = A.candidates[entry.id];
      const fails = w.musts.filter((p) => c.promises[p].ok !== true)
        .map((p) => [c.promises[p].ok === null, `${p}: ${c.promises[p].why}`,
                     c.promises[p].source])
        .sort((a, b) => (a[0] - b[0]) || cmp(a[1], b[1]) || cmp(a[2], b[2]));
      const cap = c.capacity[String(writers)];
      const value = cap ? cap.value : null;
      const unknown = value === null || value === undefined;
      const slow = !w.rate ? null
        : unknown ? [true, "IDs/s not measured (a rate was asked)", cap ? cap.source : ""]
        : value < w.rate
          ? [false, `${cap.text} IDs/s measured (${cap.label}) < ${si(w.rate)}/s asked`, cap.source]
          : null;
      const rule = (c.engine_rules || {})[w.engine];
      const wrongEngine = rule ? [false, rule.why, rule.source] : null;
      if (fails.length || slow || wrongEngine) {
        // A measured reason before an unmeasured one; a broken promise before the rate and
        // the engine (advise.py sorts the same way).
        const reasons = fails.map((f) => [f[0], 0, f[1], f[2]])
          .concat((slow ? [slow] : []).concat(wrongEngine ? [wrongEngine] : [])
            .map((f) => [f[0], 1, f[1], f[2]]))
          .sort((a, b) => (a[0] - b[0]) || (a[1] - b[1]) || cmp(a[2], b[2]) || cmp(a[3], b[3]));
        const [unmeasured, , reason, source] = reasons[0];
        const prev = ruled.get(c.subject);
        if (!prev || (prev.unmeasured && !unmeasured)) {
          ruled.set(c.subject, {unmeasured, label: c.label, subject: c.subject, reason, source});
        }
        continue;
      }
      if (!seen.has(c.subject)) {
        seen.add(c.subject);
        placed.push({id: entry.id, candidate: c, figures: entry.figures});
      }
    }
    const ruledOut = [...ruled.values()].filter((r) => !seen.has(r.subject));
    return {used, row, writers, ranked: placed, ruledOut};
  }

  if (typeof module !== "undefined" && module.exports) {
    module.exports = {advise, nearest, si};
    return;
  }

  // ---------------------------------------------------------------------------------------
  // the page

  const answersCache = {};
  function answersOf(id) {
    if (!(id in answersCache)) {
      const el = document.getElementById(id);
      answersCache[id] = el ? JSON.parse(el.textContent) : null;
    }
    return answersCache[id];
  }

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") e.className = v; else if (k === "text") e.textContent = v;
      else e.setAttribute(k, v);
    }
    for (const c of children) if (c !== null && c !== undefined) e.append(c);
    return e;
  }

  function intOf(input, min, fallback) {
    const v = Number(input.value);
    const ok = input.value.trim() !== "" && Number.isInteger(v) && v >= min;
    input.classList.toggle("fs-invalid", !ok);
    return ok ? v : fallback;
  }

  function workloadOf(form) {
    const rate = Number(form.elements.rate.value);
    const rateOk = form.elements.rate.value.trim() === "" || (isFinite(rate) && rate >= 0);
    form.elements.rate.classList.toggle("fs-invalid", !rateOk);
    return {
      engine: form.elements.engine.value,
      row_bytes: intOf(form.elements.row_bytes, 0, 0),
      writers: intOf(form.elements.writers, 1, 1),
      rate: rateOk && form.elements.rate.value.trim() !== "" ? rate : 0,
      musts: [...form.querySelectorAll("input[name=must]")].filter((x) => x.checked)
        .map((x) => x.value),
    };
  }

  function sameWorkload(p, w) {
    return p.engine === w.engine && p.writers === w.writers && p.rate === w.rate
      && (w.engine === "none" || p.row_bytes === w.row_bytes)
      && [...p.musts].sort().join() === [...w.musts].sort().join();
  }

  function setForm(form, p) {
    form.elements.engine.value = p.engine;
    form.elements.row_bytes.value = p.row_bytes;
    form.elements.writers.value = p.writers;
    form.elements.rate.value = p.rate;
    for (const x of form.querySelectorAll("input[name=must]")) x.checked = p.musts.includes(x.value);
  }

  // One column per kind of figure, in advise.figures' order.
  const COLUMNS = [
    ["fill", "leaf fill", (l) => l.startsWith("leaf fill")],
    ["splits", "splits/1k", (l) => l.startsWith("splits")],
    ["rate", "IDs/s", (l) => l.startsWith("IDs/s")],
    ["p99", "p99", (l) => l.startsWith("p99")],
    ["step", "clock step back", (l) => l.startsWith("clock step back")],
  ];

  function figureCell(f, c) {
    const nm = f.text === "not measured";
    let cls = nm ? "fs-nm" : "";
    if (!f.at_point) cls += " fs-off";
    if (f.label.startsWith("clock step back")) {
      const ok = c.promises["clock-step-back"] ? c.promises["clock-step-back"].ok : null;
      cls += ok === true ? " fs-good" : ok === false ? " fs-bad" : "";
    }
    const title = `${f.label}: ${f.text}\nsource: ${f.source}` +
      (f.at_point ? "" : "\n(measured at another row size or writer count: ranked after the " +
                         "figures measured at the point)");
    const text = nm ? "–" : (f.at_point ? "" : "≈") + f.text;
    return el("td", {class: cls.trim() || null, title},
              f.label.startsWith("clock step back") ? el("span", {class: "fs-clip", text}) : text);
  }

  function describe(A, w) {
    const parts = [A.engine_labels[w.engine] || w.engine,
                   `${w.writers} writer${w.writers === 1 ? "" : "s"}`];
    if (w.engine !== "none") parts.push(w.row_bytes === 0 ? "key-only rows" : `${w.row_bytes} B rows`);
    parts.push(w.rate ? `${si(w.rate)} IDs/s` : "any rate");
    parts.push(w.musts.length ? "must: " + w.musts.join(", ") : "no promise asked");
    return parts.join(" · ");
  }

  const SHOWN = 8;  // ranked rows shown before "show all"

  function draw(box, w, state) {
    const A = answersOf(box.dataset.answers);
    box.textContent = "";
    if (!A) { box.append(el("p", {class: "fs-nm", text: "no answers embedded"})); return null; }
    const a = advise(A, w);
    const name = box.dataset.name ? `${box.dataset.name}: ` : "";
    box.append(el("div", {class: "fs-ask"}, `${name}The answer `,
                  el("span", {text: "for " + describe(A, w)})));
    if (a.used.length) {
      box.append(el("div", {class: "fs-used", text: "Measured point used: " + a.used.join("; ")}));
    }
    if (!a.ranked.length) {
      box.append(el("p", {class: "fs-none", text: "Nothing measured keeps every promise asked."}));
    } else {
      const cols = COLUMNS.filter(([, , m]) => a.ranked.some((r) => r.figures.some((f) => m(f.label))));
      const head = el("tr", {}, el("th", {text: "#"}), el("th", {text: "candidate"}),
                      ...cols.map(([, h]) => el("th", {text: h})));
      const body = el("tbody");
      a.ranked.forEach((r, i) => {
        const c = r.candidate;
        const tr = el("tr", {"data-subject": c.subject, "data-id": r.id,
                             class: i >= SHOWN && !state.all ? "fs-hidden" : null},
                      el("td", {class: "fs-rank", text: String(i + 1)}),
                      el("td", {class: "fs-label", title: `${c.label} (${c.kind === "system" ?
                        "a real system, measured as it runs" : "a scheme, measured in process"})`},
                         el("span", {class: "fs-clip", text: c.label}),
                         c.kind === "system" ? el("span", {class: "fs-tag", text: "real"}) : null));
        for (const [, , match] of cols) {
          const f = r.figures.find((x) => match(x.label));
          tr.append(f ? figureCell(f, c) : el("td", {class: "fs-nm", text: "–"}));
        }
        body.append(tr);
      });
      box.append(el("table", {class: "fs-ranking"}, el("thead", {}, head), body));
      if (a.ranked.length > SHOWN) {
        const more = el("button", {type: "button", class: "fs-more",
                                   text: state.all ? "show the first " + SHOWN
                                     : `show all ${a.ranked.length}`});
        more.addEventListener("click", () => { state.all = !state.all; refresh(); });
        box.append(more);
      }
    }
    if (a.ruledOut.length) {
      const p = el("div", {class: "fs-ruled"}, el("b", {text: `Ruled out (${a.ruledOut.length}): `}));
      a.ruledOut.forEach((r, i) => {
        if (i) p.append(" · ");
        p.append(el("span", {"data-subject": r.subject, title: `${r.label}: ${r.reason}\nsource: ${r.source}`},
                    el("span", {class: "fs-rlabel", text: r.label}), ` — ${r.reason}`));
      });
      box.append(p);
    }
    return a;
  }

  function markMoves(boxes, answers) {
    for (const box of boxes) {
      const other = box.dataset.compareWith;
      if (!other || !answers[other] || !answers[box.id]) continue;
      const there = new Map(answers[other].ranked.map((r, i) => [r.candidate.subject, i + 1]));
      const otherName = document.getElementById(other).dataset.name || other;
      box.querySelectorAll("tr[data-subject]").forEach((tr) => {
        const rank = Number(tr.querySelector(".fs-rank").textContent);
        const at = there.get(tr.dataset.subject);
        if (at === rank) return;
        tr.classList.add("fs-moved");
        tr.querySelector(".fs-label").append(el("span", {class: "fs-was",
          text: at === undefined ? `not ranked in ${otherName}` : `#${at} in ${otherName}`}));
      });
    }
  }

  let refresh = () => {};

  function bind() {
    const forms = [...document.querySelectorAll("form[data-idbench-picker]")];
    const boxes = [...document.querySelectorAll("[data-idbench-ranking]")];
    if (!forms.length || !boxes.length) return;
    const form = forms[0];
    const A = answersOf(form.dataset.answers);
    const profile = form.elements.profile;
    const state = {all: false};
    refresh = () => {
      const w = workloadOf(form);
      form.elements.row_bytes.disabled = w.engine === "none";
      if (A) {
        const i = A.profiles.findIndex((p) => sameWorkload(p, w));
        profile.value = i < 0 ? "" : String(i);
      }
      const drawn = {};
      for (const box of boxes) drawn[box.id] = draw(box, w, state);
      markMoves(boxes, drawn);
    };
    profile.addEventListener("change", () => {
      if (A && profile.value !== "") setForm(form, A.profiles[Number(profile.value)]);
      state.all = false;
      refresh();
    });
    form.addEventListener("input", (e) => { if (e.target !== profile) refresh(); });
    form.addEventListener("change", (e) => { if (e.target !== profile) refresh(); });
    form.addEventListener("submit", (e) => { e.preventDefault(); refresh(); });
    // A link to the evidence opens its folded block.
    document.addEventListener("click", (e) => {
      const a = e.target.closest && e.target.closest("a[href^='#fs-ev-']");
      const ev = a && document.getElementById("fs-evidence");
      if (ev) ev.open = true;
    });
    refresh();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", bind);
  else bind();
})();
