#!/usr/bin/env node
/* browser_test.js — report.html's first screen in a real browser (Debian's /usr/bin/chromium,
 * headless, driven by puppeteer-core, which downloads no browser).
 *
 *   node browser_test.js --html OUT/report.html --expect expected.json [--shots DIR] [--name N]
 *
 * On one rendered report it asserts, and prints one line per assertion ("ok: ..." or
 * "FAIL: ..."):
 *   - no console error, no page error, and no request but file: and data: (every other request
 *     is failed by interception: the page works offline);
 *   - at 1,366 × 768 the picker, the ranked answer and the matrix lie inside the first screen
 *     (their boxes within 0..768 vertically and 0..1,366 across), and the page has no
 *     horizontal scroll (scrollWidth <= 1,366);
 *   - every <img> decodes (complete, naturalWidth > 0) and every inline <svg> has a box, with
 *     every <details> opened (the report folds its sections);
 *   - the page's answer equals advise.py's (expected.json: advise.py --json for the preset
 *     profile and for the two workloads below, rank by rank and the subjects ruled out);
 *   - MariaDB, 8 writers, any rate, no promise: going from key-only rows (0 B) to 1,000 B rows
 *     moves the 8-writer Snowflake from above UUIDv4 to below it (what the planted locality
 *     figures say must happen).
 * With --shots it saves <name>-first-screen.png (1,366 × 768, as loaded) and
 * <name>-full-page.png (the whole page, its sections folded, showing the 1,000 B answer).
 *
 * Exit status: 0 every assertion held; 1 an assertion failed; 2 the browser or the page could
 * not be driven at all (the runner tells that apart from a failed assertion).
 */
"use strict";

const fs = require("fs");
const os = require("os");
const path = require("path");

const WIDTH = 1366, HEIGHT = 768;
const CHROMIUM = process.env.IDBENCH_CHROMIUM || "/usr/bin/chromium";

function args(argv) {
  const out = {shots: "", name: "report"};
  for (let i = 0; i < argv.length; i += 2) {
    const k = argv[i].replace(/^--/, ""), v = argv[i + 1];
    if (!["html", "expect", "shots", "name"].includes(k) || v === undefined) {
      console.error(`browser_test: unknown or incomplete argument ${argv[i]}`);
      process.exit(2);
    }
    out[k] = v;
  }
  if (!out.html || !out.expect) {
    console.error("browser_test: usage: browser_test.js --html REPORT.html --expect EXPECTED.json "
                  + "[--shots DIR] [--name NAME]");
    process.exit(2);
  }
  return out;
}

const results = [];
function check(ok, what, detail) {
  results.push(ok);
  console.log(`${ok ? "ok" : "FAIL"}: ${what}${!ok && detail ? ` (${detail})` : ""}`);
  return ok;
}

/** Sets the picker's fields as a person would: select, type, click. */
async function pick(page, w) {
  await page.select("#idbench-picker-form select[name=engine]", w.engine);
  for (const [name, value] of [["writers", w.writers], ["rate", w.rate],
                               ["row_bytes", w.row_bytes]]) {
    const sel = `#idbench-picker-form input[name=${name}]`;
    await page.$eval(sel, (e) => { e.value = ""; e.focus(); });
    await page.keyboard.type(String(value));
  }
  for (const box of await page.$$("#idbench-picker-form input[name=must]")) {
    const [value, checked] = await box.evaluate((e) => [e.value, e.checked]);
    if (checked !== w.musts.includes(value)) await box.click();
  }
}

async function shown(page) {
  return page.evaluate(() => {
    const box = document.getElementById("idbench-ranking");
    if (!box) return null;
    return {
      ranked: [...box.querySelectorAll("tr[data-subject]")].map((tr) => ({
        subject: tr.dataset.subject,
        label: tr.querySelector(".fs-label .fs-clip")?.textContent ?? "",
      })),
      ruled: [...box.querySelectorAll(".fs-ruled [data-subject]")].map(
        (s) => s.querySelector(".fs-rlabel")?.textContent ?? ""),
      used: box.querySelector(".fs-used")?.textContent ?? "",
    };
  });
}

function sameAsAdvise(what, got, want) {
  if (!got) return check(false, `${what}: the page shows advise.py's answer`, "no ranking element");
  const gotRanked = got.ranked.map((r) => r.label), wantRanked = want.ranked.map((r) => r.label);
  check(JSON.stringify(gotRanked) === JSON.stringify(wantRanked),
        `${what}: the page ranks as advise.py does`,
        `page ${JSON.stringify(gotRanked)}, advise.py ${JSON.stringify(wantRanked)}`);
  const wantRuled = want.ruled_out.map((r) => r.label);
  check(JSON.stringify(got.ruled) === JSON.stringify(wantRuled),
        `${what}: the page rules out what advise.py does`,
        `page ${JSON.stringify(got.ruled)}, advise.py ${JSON.stringify(wantRuled)}`);
  const wantUsed = want.points_used.length ? "Measured point used: " + want.points_used.join("; ") : "";
  check(got.used === wantUsed, `${what}: the page names the measured point advise.py used`,
        `page ${JSON.stringify(got.used)}, advise.py ${JSON.stringify(wantUsed)}`);
}

function rankOf(list, subject) {
  const i = list.ranked.findIndex((r) => r.subject === subject);
  return i < 0 ? Infinity : i + 1;
}

async function main() {
  const a = args(process.argv.slice(2));
  const expected = JSON.parse(fs.readFileSync(a.expect, "utf8"));
  const html = path.resolve(a.html);
  let puppeteer;
  try {
    puppeteer = require("puppeteer-core");
  } catch (e) {
    console.error(`browser_test: puppeteer-core is not installed (npm ci in ${__dirname}): ${e.message}`);
    return 2;
  }
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "idbench-chromium-"));
  let browser;
  try {
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
             `--user-data-dir=${profile}`],
    });
  } catch (e) {
    fs.rmSync(profile, {recursive: true, force: true});
    console.error(`browser_test: cannot start ${CHROMIUM}: ${e.message}`);
    return 2;
  }
  try {
    const page = await browser.newPage();
    const errors = [], requests = [];
    page.on("console", (m) => { if (m.type() === "error") errors.push(`console: ${m.text()}`); });
    page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
    await page.setRequestInterception(true);
    page.on("request", (r) => {
      const url = r.url();
      if (url.startsWith("file:") || url.startsWith("data:")) return r.continue();
      requests.push(url);
      return r.abort("failed");
    });
    await page.setViewport({width: WIDTH, height: HEIGHT});
    const response = await page.goto("file://" + html, {waitUntil: "load", timeout: 20000});
    if (!response || !response.ok()) {
      console.error(`browser_test: cannot load ${html}`);
      return 2;
    }

    // The first screen, as loaded.
    if (a.shots) {
      fs.mkdirSync(a.shots, {recursive: true});
      await page.screenshot({path: path.join(a.shots, `${a.name}-first-screen.png`)});
    }
    const boxes = await page.evaluate(() => {
      const box = (sel) => {
        const e = document.querySelector(sel);
        if (!e) return null;
        const r = e.getBoundingClientRect();
        return {top: r.top + window.scrollY, bottom: r.bottom + window.scrollY, left: r.left,
                right: r.right, height: r.height};
      };
      return {picker: box("#idbench-picker-form"), ranking: box("#idbench-ranking"),
              rankingRows: document.querySelectorAll("#idbench-ranking tr[data-subject]").length,
              matrix: box("#idbench-matrix"), scrollWidth: document.documentElement.scrollWidth};
    });
    for (const [name, b] of [["the picker", boxes.picker], ["the ranked answer", boxes.ranking],
                             ["the matrix", boxes.matrix]]) {
      check(b !== null && b.height > 0 && b.top >= 0 && b.bottom <= HEIGHT && b.left >= 0
            && b.right <= WIDTH, `${name} lies inside the first screen (1366×768)`,
            JSON.stringify(b));
    }
    check(boxes.rankingRows > 0, "the ranked answer has rows", `${boxes.rankingRows} rows`);
    check(boxes.scrollWidth <= WIDTH, "no horizontal scroll at 1366 px",
          `scrollWidth ${boxes.scrollWidth}`);

    // The preset profile's answer, then the row-size switch.
    sameAsAdvise("the preset profile", await shown(page), expected.profile);
    const base = {engine: "mariadb", writers: 8, rate: 0, musts: []};
    await pick(page, {...base, row_bytes: 0});
    const at0 = await shown(page);
    sameAsAdvise("MariaDB, 8 writers, key-only rows", at0, expected.row0);
    await pick(page, {...base, row_bytes: 1000});
    const at1000 = await shown(page);
    sameAsAdvise("MariaDB, 8 writers, 1000 B rows", at1000, expected.row1000);
    const r = (l, s) => (l ? rankOf(l, s) : Infinity);
    check(at0 && r(at0, "Snowflake") < r(at0, "UUIDv4"),
          "key-only rows: the 8-writer Snowflake ranks above UUIDv4",
          at0 && `Snowflake #${r(at0, "Snowflake")}, UUIDv4 #${r(at0, "UUIDv4")}`);
    check(at1000 && r(at1000, "Snowflake") > r(at1000, "UUIDv4") && r(at1000, "UUIDv4") < Infinity,
          "1000 B rows: the 8-writer Snowflake falls below UUIDv4",
          at1000 && `Snowflake #${r(at1000, "Snowflake")}, UUIDv4 #${r(at1000, "UUIDv4")}`);

    // The whole page as it opens (sections folded), after the picks above.
    if (a.shots) {
      await page.screenshot({path: path.join(a.shots, `${a.name}-full-page.png`), fullPage: true});
    }

    // Every image decodes; every inline chart has a box once its section is unfolded.
    const media = await page.evaluate(async () => {
      document.querySelectorAll("details").forEach((d) => { d.open = true; });
      await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
      const imgs = [...document.images];
      await Promise.all(imgs.map((i) => (i.decode ? i.decode().catch(() => {}) : null)));
      const badImg = imgs.filter((i) => !(i.complete && i.naturalWidth > 0))
        .map((i) => i.src.slice(0, 80));
      const svgs = [...document.querySelectorAll("svg")].filter((s) => !s.parentElement.closest("svg"));
      const badSvg = svgs.filter((s) => {
        const r = s.getBoundingClientRect();
        return !(r.width > 0 && r.height > 0);
      }).map((s) => s.closest("[id]")?.id || "?");
      return {imgs: imgs.length, badImg, svgs: svgs.length, badSvg};
    });
    check(media.badImg.length === 0, `every <img> decodes (${media.imgs})`, media.badImg.join(", "));
    check(media.badSvg.length === 0, `every inline <svg> has a box (${media.svgs})`,
          media.badSvg.join(", "));
    check(errors.length === 0, "no console error and no page error", errors.join(" | "));
    check(requests.length === 0, "no request leaves the page (offline)", requests.join(", "));
  } catch (e) {
    console.error(`browser_test: could not drive the page: ${e.stack || e}`);
    return 2;
  } finally {
    await browser.close().catch(() => {});
    fs.rmSync(profile, {recursive: true, force: true});
  }
  const failed = results.filter((x) => !x).length;
  console.log(`${results.length - failed} passed, ${failed} failed`);
  return failed ? 1 : 0;
}

main().then((code) => process.exit(code), (e) => {
  console.error(`browser_test: ${e.stack || e}`);
  process.exit(2);
});
