/*
 * The storefront page end to end, in headless Chromium (Debian's
 * /usr/bin/chromium, driven by playwright-core; never a browser Playwright
 * downloads): the real gpuquote binary on an ephemeral port with a fresh
 * database, and the same page files served from a second origin by a tiny
 * static server, as a storefront would host them, to show that CORS works.
 *
 *   GPUQUOTE_BIN=build/gpuquote GPUQUOTE_SOURCE_DIR=. node --test tests/e2e/storefront.test.mjs
 *
 * Screenshots go to $GPUQUOTE_SCREENSHOT_DIR (build/ by default), with
 * storefront-metrics.json: the page's transfer size and its first
 * contentful paint. The servers are stopped whatever happens (after(), and
 * on the process's exit).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, extname, join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

const HERE = dirname(fileURLToPath(import.meta.url));
const SOURCE = resolve(process.env.GPUQUOTE_SOURCE_DIR || join(HERE, '..', '..'));
const BIN = resolve(process.env.GPUQUOTE_BIN || join(SOURCE, 'build', 'gpuquote'));
const SHOTS = resolve(process.env.GPUQUOTE_SCREENSHOT_DIR || join(SOURCE, 'build'));
const CHROMIUM = process.env.GPUQUOTE_CHROMIUM || '/usr/bin/chromium';
/* The flags this machine needs (no network but loopback): no background
 * requests, no component updates, no sync, no QUIC. */
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];
const SLOW = process.env.GPUQUOTE_SLOW ? 10 : 1;
const TIMEOUT = 15000 * SLOW;

const cleanups = [];
function cleanupNow() {
  while (cleanups.length) {
    try {
      cleanups.pop()();
    } catch {
      /* the rest still run */
    }
  }
}
process.on('exit', cleanupNow);
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => {
    cleanupNow();
    process.exit(130);
  });

/* ---- the servers ------------------------------------------------------- */

/* gpuquote in a temporary directory, as tests/support/server.c starts it:
 * ephemeral port, its own database, the checkout's migrations, no
 * GPUQUOTE_* variable of ours but those given. */
async function startGpuquote(corsOrigin) {
  const dir = mkdtempSync(join(tmpdir(), 'gpuquote-e2e-'));
  const portFile = join(dir, 'port');
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('GPUQUOTE_')));
  env.GPUQUOTE_CORS_ORIGINS = corsOrigin;
  env.GPUQUOTE_ACCESS_LOG = 'false';
  const args = ['--port', '0', '--port-file', portFile, '--db', join(dir, 'gpuquote.db'), '--migrations', join(SOURCE, 'migrations')];
  const child = spawn(BIN, args, { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = once(child, 'exit');
  cleanups.push(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  const deadline = Date.now() + 10000 * SLOW;
  while (!existsSync(portFile) || readFileSync(portFile, 'utf8').trim() === '') {
    if (child.exitCode !== null) throw new Error(`gpuquote exited ${child.exitCode}: ${stderr}`);
    if (Date.now() > deadline) throw new Error(`gpuquote did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const port = Number(readFileSync(portFile, 'utf8').trim());
  return {
    origin: `http://127.0.0.1:${port}`,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const [code] = await exited;
      return code;
    },
  };
}

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml' };

/* The page's files from web/ on another origin, as a storefront would
 * serve a copy: index.html names the API's origin in its gpuquote-api
 * meta tag (the one thing a deployment changes). */
async function startStaticServer(apiOrigin) {
  const web = join(SOURCE, 'web');
  const server = createServer((request, response) => {
    const path = new URL(request.url, 'http://x').pathname;
    const file = path === '/' ? 'index.html' : path.replace(/^\/+/, '');
    if (!/^(index\.html|static\/[A-Za-z0-9._-]+)$/.test(file) || !existsSync(join(web, file))) {
      response.writeHead(404).end();
      return;
    }
    let body = readFileSync(join(web, file));
    if (file === 'index.html')
      body = Buffer.from(String(body).replace('<meta name="gpuquote-api" content="">', `<meta name="gpuquote-api" content="${apiOrigin()}">`));
    response.writeHead(200, { 'Content-Type': TYPES[extname(file)] || 'application/octet-stream' }).end(body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => server.close());
  return { origin: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

/* ---- the browser ------------------------------------------------------- */

async function launch(locale) {
  const profile = mkdtempSync(join(tmpdir(), 'gpuquote-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    locale,
    viewport: { width: 1280, height: 900 },
  });
  cleanups.push(() => rmSync(profile, { recursive: true, force: true }));
  context.setDefaultTimeout(TIMEOUT);
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

const consoleProblems = [];

/* `refused`: a status the test provokes, whose failed load Chromium logs. */
async function openPage(context, url, refused) {
  const page = await context.newPage();
  page.on('console', (message) => {
    if (refused && message.text().includes(`status of ${refused} `)) return;
    if (message.type() === 'error') consoleProblems.push(`${url}: ${message.text()}`);
  });
  page.on('pageerror', (error) => consoleProblems.push(`${url}: ${error.message}`));
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]');
  return page;
}

async function fillCalculator(page, { sku, quantity = 1, hours, days, segment = 'individual' }) {
  await page.selectOption('#c-sku', sku);
  await page.fill('#c-quantity', String(quantity));
  await page.fill('#c-hours', String(hours));
  await page.fill('#c-days', String(days));
  await page.selectOption('#c-segment', segment);
  await Promise.all([page.waitForResponse((r) => r.url().endsWith('/quote') && r.request().method() === 'POST'), page.click('#calc button[type=submit]')]);
  await page.waitForSelector('#calc-result:not([hidden])');
}

const text = (page, selector) => page.locator(selector).first().innerText();

/* "1080.00" -> "¥1,080.00": an amount of the API's as the page writes it. */
const yuanOf = (amount) => `¥${amount.replace(/\d+(?=\.)/, (whole) => whole.replace(/\B(?=(\d{3})+$)/g, ','))}`;

async function onDemandPrices(page) {
  return page.$$eval('#catalog-list li.sku', (items) =>
    items.map((li) => [li.dataset.sku, li.querySelector('tr.price[data-mode="on_demand"] .amount').textContent]),
  );
}

/* axe-core's own build, run in the page (evaluated, so the page's CSP,
 * which allows no inline script, does not stop it). */
async function axeViolations(page) {
  if (!(await page.evaluate(() => Boolean(window.axe)))) await page.evaluate(readFileSync(join(HERE, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8'));
  const results = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}


/* ---- layout, measured ---------------------------------------------------- */

/* Everything on the page that does not hold, measured with the layout
 * APIs: an element reaching past the viewport, a word (a run of Latin
 * letters and figures; Chinese may wrap between any two characters) laid
 * out on two lines or past its block's edge, and chart labels whose
 * rectangles intersect. Runs in the page. */
function layoutProblems(phrases) {
  const problems = [];
  const width = document.documentElement.clientWidth;
  const hidden = (node) => {
    for (let e = node; e && e !== document.body; e = e.parentElement) {
      if (e.hidden || e.classList.contains('visually-hidden') || e.classList.contains('skip')) return true;
      const style = getComputedStyle(e);
      if (style.display === 'none' || style.visibility === 'hidden') return true;
      if (/^(SELECT|OPTION|SCRIPT|STYLE|CANVAS)$/.test(e.tagName)) return true;
    }
    return false;
  };
  const describe = (e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.className && typeof e.className === 'string' ? `.${e.className.split(' ').join('.')}` : ''}`;
  if (document.documentElement.scrollWidth > width) problems.push(`horizontal scroll: ${document.documentElement.scrollWidth} > ${width}`);
  for (const e of document.body.querySelectorAll('*')) {
    if (hidden(e)) continue;
    const r = e.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.left < -1 || r.right > width + 1) problems.push(`${describe(e)} spans ${Math.round(r.left)}–${Math.round(r.right)} of ${width}`);
  }
  const block = (node) => {
    let e = node.parentElement;
    while (e && getComputedStyle(e).display.startsWith('inline') && e !== document.body) e = e.parentElement;
    return e;
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.textContent.trim() || hidden(node.parentElement)) continue;
    const box = block(node).getBoundingClientRect();
    for (const match of node.textContent.matchAll(/[A-Za-z0-9¥$.,%:+×/()'’]+/g)) {
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const rects = [...range.getClientRects()].filter((r) => r.width > 0);
      const lines = new Set(rects.map((r) => Math.round(r.top / 4)));
      if (lines.size > 1) problems.push(`“${match[0]}” wraps inside the word in ${describe(node.parentElement)}`);
      for (const r of rects)
        if (r.right > box.right + 1.5 || r.left < box.left - 1.5 || r.right > width + 1)
          problems.push(`“${match[0]}” overflows ${describe(block(node))} (${Math.round(r.left)}–${Math.round(r.right)} in ${Math.round(box.left)}–${Math.round(box.right)})`);
    }
  }
  /* Chinese may wrap between characters, but not inside a unit, an
   * amount with its unit or a configuration's name. */
  const phrase = new RegExp(phrases.join('|'), 'g');
  const walker2 = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const texts = [];
  for (let node = walker2.nextNode(); node; node = walker2.nextNode()) if (node.textContent.trim() && !hidden(node.parentElement)) texts.push(node);
  /* a phrase may span text nodes (a name inside a sentence): measure it in
   * the block's whole text */
  const blocks = new Set(texts.map((node) => block(node)));
  for (const b of blocks) {
    const nodes = texts.filter((node) => block(node) === b);
    const whole = nodes.map((node) => node.textContent).join('');
    for (const match of whole.matchAll(phrase)) {
      const range = document.createRange();
      let offset = 0;
      for (const node of nodes) {
        const end = offset + node.textContent.length;
        if (match.index >= offset && match.index < end) range.setStart(node, match.index - offset);
        if (match.index + match[0].length > offset && match.index + match[0].length <= end) range.setEnd(node, match.index + match[0].length - offset);
        offset = end;
      }
      /* one line: every piece overlaps the first vertically (pieces in a
       * smaller font sit lower on the same line) */
      const pieces = [...range.getClientRects()].filter((r) => r.width > 0);
      if (pieces.some((r) => r.top >= pieces[0].bottom - 2 || r.bottom <= pieces[0].top + 2)) problems.push(`“${match[0]}” wraps inside in ${describe(b)}`);
    }
  }
  const chart = window.echarts && window.echarts.getInstanceByDom(document.getElementById('chart'));
  if (chart) {
    const labels = chart
      .getZr()
      .storage.getDisplayList(true)
      .filter((el) => !el.invisible && el.style && el.style.text && el.style.opacity !== 0)
      .map((el) => {
        const rect = el.getBoundingRect().clone();
        if (el.transform) rect.applyTransform(el.transform);
        return { text: String(el.style.text), rect };
      });
    for (let i = 0; i < labels.length; i++)
      for (let j = i + 1; j < labels.length; j++) {
        const a = labels[i].rect;
        const b = labels[j].rect;
        const x = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
        const y = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
        if (x > 1 && y > 1) problems.push(`chart labels “${labels[i].text}” and “${labels[j].text}” overlap`);
      }
    if (labels.length < 8) problems.push(`only ${labels.length} chart labels found`);
  }
  return problems;
}

/* Words of the API a customer must never read, and amounts written
 * without separators. */
const API_WORDS = /openapi|\bAPI\b|activation_checkpointing|deadline_days|quotes:write|\bsegment\b|\d(\.\d+)?e[+-]\d+|FLOPs|#\d|¥\d{4}|激活检查点/;

/* What must never wrap inside, in either language: the units, and (as
 * patterns) an amount with its unit and a figure with its unit. */
const PHRASES = ['小时', '个月', '季度', 'V100 16GB', 'V100 32GB', 'T4 16GB'];
const PHRASE_PATTERNS = ['¥[0-9,]+\\.[0-9]{2}/(小时|月|季度)', '[0-9][0-9,.]* ?(小时|个月|个季度|天|台|张卡)'];

/* The phrases layoutProblems keeps on one line: every configuration's
 * name on the page, the units and the patterns. */
async function layoutPhrases(page) {
  const names = await page.$$eval('#price-table tbody th', (cells) => cells.map((cell) => cell.textContent));
  return [...[...names, ...PHRASES].map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), ...PHRASE_PATTERNS];
}

/* ---- the tests ---------------------------------------------------------- */

describe('the storefront page', () => {
  let api;
  let copy;
  let browser;
  const metrics = {};

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    let apiOrigin = '';
    copy = await startStaticServer(() => apiOrigin);
    api = await startGpuquote(copy.origin);
    apiOrigin = api.origin;
    browser = await launch('en-US');
  });

  after(async () => {
    if (browser) await browser.close();
    const code = api ? await api.stop() : 0;
    if (copy) await copy.close();
    writeFileSync(join(SHOTS, 'storefront-metrics.json'), `${JSON.stringify(metrics, null, 2)}\n`);
    cleanupNow();
    assert.equal(code, 0, `gpuquote exited ${code}: ${api && api.stderr()}`);
  });

  test('the vendored ECharts is the pinned npm build, byte for byte', () => {
    const vendored = readFileSync(join(SOURCE, 'web', 'static', 'echarts.common.min.js'));
    const pinned = readFileSync(join(HERE, 'node_modules', 'echarts', 'dist', 'echarts.common.min.js'));
    assert.ok(vendored.equals(pinned), 'web/static/echarts.common.min.js differs from echarts@6.1.0');
  });

  test('the catalog shows the five SKUs with their on-demand prices', async () => {
    const page = await openPage(browser.context, `${api.origin}/`);
    assert.deepEqual(await onDemandPrices(page), [
      ['t4-16g-x1', '¥9.90'],
      ['v100-16g-x1', '¥2.28'],
      ['v100-16g-x2', '¥4.28'],
      ['v100-32g-x4', '¥9.68'],
      ['v100-32g-x8', '¥19.28'],
    ]);
    /* every mode's price, and the host behind it */
    const v100 = page.locator('li.sku[data-sku="v100-16g-x1"]');
    assert.equal(await v100.locator('tr.price[data-mode="monthly"] .amount').innerText(), '¥1,231.00');
    assert.equal(await v100.locator('tr.price[data-mode="quarterly"] .amount').innerText(), '¥3,305.00');
    assert.equal(await v100.locator('tr.price[data-mode="student"] .amount').innerText(), '¥1.50');
    assert.match(await v100.innerText(), /ecs\.gn6v-c8g1\.2xlarge/);
    assert.match(await v100.innerText(), /8 vCPU, 32 GiB/);
    assert.match(await v100.innerText(), /CUDA, PyTorch/);
    await page.screenshot({ path: join(SHOTS, 'storefront-catalog.png'), fullPage: false });
    const timing = await page.evaluate(() => {
      const paint = performance.getEntriesByType('paint').find((e) => e.name === 'first-contentful-paint');
      const navigation = performance.getEntriesByType('navigation')[0];
      const files = performance.getEntriesByType('resource').filter((e) => !/\/(catalog|quote|recommend)/.test(e.name));
      return {
        first_contentful_paint_ms: paint ? Math.round(paint.startTime) : null,
        dom_content_loaded_ms: Math.round(navigation.domContentLoadedEventEnd),
        page_transfer_bytes: navigation.transferSize + files.reduce((sum, e) => sum + e.transferSize, 0),
        page_decoded_bytes: navigation.decodedBodySize + files.reduce((sum, e) => sum + e.decodedBodySize, 0),
        files: [navigation, ...files].map((e) => ({ url: e.name.replace(location.origin, ''), transfer: e.transferSize, decoded: e.decodedBodySize })),
      };
    });
    Object.assign(metrics, timing);
    assert.ok(timing.first_contentful_paint_ms !== null, 'no first-contentful-paint entry');
    assert.ok(timing.first_contentful_paint_ms < 500, `first paint after ${timing.first_contentful_paint_ms} ms`);
    assert.ok(timing.page_transfer_bytes < 300 * 1024, `the page transfers ${timing.page_transfer_bytes} bytes`);
    await page.close();
  });

  test('filters and sort are in the URL, so a link shows the same list', async () => {
    const page = await openPage(browser.context, `${api.origin}/`);
    await page.selectOption('#f-gpu', 'V100');
    await page.selectOption('#f-sort', '-price');
    await Promise.all([page.waitForResponse((r) => r.url().includes('/catalog?')), page.click('#filters button[type=submit]')]);
    await page.waitForFunction(() => document.querySelectorAll('#catalog-list li.sku').length === 4);
    const url = page.url();
    assert.match(url, /#gpu=V100&sort=-price$/);
    const expected = [
      ['v100-32g-x8', '¥19.28'],
      ['v100-32g-x4', '¥9.68'],
      ['v100-16g-x2', '¥4.28'],
      ['v100-16g-x1', '¥2.28'],
    ];
    assert.deepEqual(await onDemandPrices(page), expected);
    await page.close();
    const shared = await openPage(browser.context, url);
    assert.deepEqual(await onDemandPrices(shared), expected);
    assert.equal(await shared.inputValue('#f-gpu'), 'V100');
    await shared.close();
  });

  test('the calculator: V100 16GB × 1, 8 h/day for 90 days', async () => {
    const page = await openPage(browser.context, `${api.origin}/`);
    await fillCalculator(page, { sku: 'v100-16g-x1', hours: 8, days: 90 });
    assert.equal(await text(page, '#calc-options tr[data-mode="on_demand"] .total'), '¥1,641.60');
    assert.equal(await text(page, '#calc-options tr[data-mode="monthly"] .total'), '¥3,693.00');
    assert.equal(await text(page, '#calc-options tr[data-mode="quarterly"] .total'), '¥3,305.00');
    assert.equal(await page.getAttribute('#calc-cheapest .plan', 'data-mode'), 'on_demand');
    assert.equal(await text(page, '#calc-cheapest .total'), '¥1,641.60');
    assert.equal(await text(page, '#calc-cheapest .plan'), '90 days on demand');
    await page.close();
  });

  test('the calculator: 24 h/day for 100 days is one quarter and 10 days on demand', async () => {
    const page = await openPage(browser.context, `${api.origin}/`);
    await fillCalculator(page, { sku: 'v100-16g-x1', hours: 24, days: 100 });
    assert.equal(await text(page, '#calc-cheapest .plan'), '1 quarter + 10 days on demand');
    assert.equal(await text(page, '#calc-cheapest .total'), '¥3,852.20');
    assert.equal(await text(page, '#calc-cheapest .saving'), 'saves ¥1,619.80 against paying by the hour');
    await page.close();
  });

  test('the chart marks the break-even points at 18.0 and 16.1 h/day', async () => {
    const page = await openPage(browser.context, `${api.origin}/`);
    await fillCalculator(page, { sku: 'v100-16g-x1', hours: 8, days: 90 });
    const marks = await page.$$eval('#break-even li', (items) => Object.fromEntries(items.map((li) => [li.dataset.mode, li.dataset.hours])));
    assert.deepEqual(marks, { monthly: '18.0', quarterly: '16.1' });
    const chart = await page.evaluate(() => {
      const option = window.echarts.getInstanceByDom(document.getElementById('chart')).getOption();
      return option.series.map((s) => ({
        id: s.name,
        points: s.data.length,
        first: s.data[0],
        last: s.data[s.data.length - 1],
        marks: s.markLine ? s.markLine.data.map((d) => d.xAxis) : [],
      }));
    });
    assert.deepEqual(chart.map((s) => s.marks), [[], [18], [16.1]]);
    /* On demand rises with the hours (24 points, priced by the API); a
     * quarter costs the same whatever the hours. */
    assert.deepEqual(chart[0].first, [1, 205.2]);
    assert.deepEqual(chart[0].last, [24, 4924.8]);
    assert.deepEqual(chart[2].first, [1, 3305]);
    assert.deepEqual(chart[2].last, [24, 3305]);
    await page.locator('#calculator').screenshot({ path: join(SHOTS, 'storefront-calculator.png') });
    await page.close();
  });

  test('a saved quote shows its id, expiry and a printable quotation', async () => {
    const page = await openPage(browser.context, `${api.origin}/`);
    await fillCalculator(page, { sku: 'v100-16g-x1', hours: 24, days: 100 });
    await Promise.all([page.waitForResponse((r) => r.url().endsWith('/quote') && r.status() === 201), page.click('#save')]);
    await page.waitForSelector('#quote:not([hidden])');
    const id = await text(page, '#quote .quote-id');
    assert.match(id, /^q_[0-9a-f]{32}$/);
    assert.match(page.url(), new RegExp(`quote=${id}`));
    assert.equal(await text(page, '#quote .quote-total'), '¥3,852.20');
    const quotation = await page.locator('#quote').innerText();
    assert.match(quotation, /1 quarter \+ 10 days on demand/);
    assert.match(quotation, /Price list version\s+1/);
    assert.match(quotation, /VAT invoices/);
    /* the validity with its time zone (the browser's; UTC here) */
    assert.match(await text(page, '#quote .expires'), /^[A-Z][a-z]+ \d{1,2}, \d{4} at \d{1,2}:\d{2} [AP]M (UTC|GMT[+-]\d+)$/);
    /* The quotation as a PDF, in the page's language. */
    assert.equal(await text(page, '#quote a.quote-pdf'), 'Download the quotation (PDF)');
    const pdfHref = await page.getAttribute('#quote a.quote-pdf', 'href');
    assert.equal(pdfHref, `/quote/${id}/pdf?lang=en`);
    const pdf = await page.request.get(`${api.origin}${pdfHref}`);
    assert.equal(pdf.status(), 200);
    assert.equal(pdf.headers()['content-type'], 'application/pdf');
    assert.equal((await pdf.body()).subarray(0, 5).toString('latin1'), '%PDF-');
    /* The link reads the quote back with GET /quote/{id}. */
    const again = await openPage(browser.context, page.url());
    await again.waitForSelector('#quote:not([hidden])');
    assert.equal(await text(again, '#quote .quote-id'), id);
    assert.equal(await text(again, '#quote .quote-total'), '¥3,852.20');
    await again.close();
    await page.close();
  });

  test('“Print the quotation” prints the quotation document, the saved quote\'s PDF, and offers to save an unsaved one', async () => {
    /* Chinese first: the page remembers the last language, and the next test expects English */
    for (const language of ['zh-CN', 'en']) {
      const page = await openPage(browser.context, `${api.origin}/`);
      await page.click(language === 'en' ? '#lang-en' : '#lang-zh');
      await page.waitForFunction((l) => document.documentElement.lang === l, language);
      await fillCalculator(page, { sku: 'v100-16g-x1', hours: 8, days: 90 });
      assert.equal(await text(page, '#print'), language === 'en' ? 'Print the quotation' : '打印报价单');
      let opened = null;
      browser.context.once('page', (p) => (opened = p));
      await page.click('#print');
      await page.waitForSelector('#print-note:not([hidden])');
      assert.equal(opened, null, 'an unsaved quotation opened a document');
      assert.equal(await text(page, '#print-note p'), language === 'en' ? 'The quotation you print is the PDF of a saved quote: save this one to print it.' : '打印的报价单是已保存报价的 PDF，请先保存此报价。');
      await page.locator('#calc-result').screenshot({ path: join(SHOTS, `storefront-print-unsaved-${language}.png`) });
      const [pdf] = await Promise.all([browser.context.waitForEvent('page'), page.click('#save-print')]);
      await page.waitForSelector('#quote:not([hidden])');
      const id = await text(page, '#quote .quote-id');
      await pdf.waitForURL(/\/pdf\?lang=/, { waitUntil: 'commit' });
      assert.equal(pdf.url(), `${api.origin}/quote/${id}/pdf?lang=${language}`);
      const document = await page.request.get(pdf.url());
      assert.equal(document.headers()['content-type'], 'application/pdf');
      assert.equal(await page.isHidden('#print-note'), true);
      await pdf.close();
      /* saved and unchanged: the button opens the same document again */
      const [again] = await Promise.all([browser.context.waitForEvent('page'), page.click('#print')]);
      await again.waitForURL(/\/pdf\?lang=/, { waitUntil: 'commit' });
      assert.equal(again.url(), `${api.origin}/quote/${id}/pdf?lang=${language}`);
      await again.close();
      /* a changed usage is a quotation not saved yet */
      await fillCalculator(page, { sku: 'v100-16g-x1', hours: 10, days: 90 });
      await page.click('#print');
      await page.waitForSelector('#print-note:not([hidden])');
      await page.close();
    }
  });

  test('the wizard recommends configurations for fine-tuning a 7B model in fp16', async () => {
    const page = await openPage(browser.context, `${api.origin}/`);
    await page.selectOption('#w-task', 'finetune');
    await page.fill('#w-params', '7');
    await page.selectOption('#w-precision', 'fp16');
    await Promise.all([page.waitForResponse((r) => r.url().endsWith('/recommend')), page.click('#wiz button[type=submit]')]);
    await page.waitForSelector('#wizard-result:not([hidden])');
    const ranked = await page.$$eval('#recommendations li.recommendation', (items) => items.map((li) => li.dataset.sku));
    assert.ok(ranked.length >= 1, 'no recommendation');
    /* 112 GB of AdamW state and 1.6 GB of activations with full checkpointing, a tenth of the
     * instance free: 126.2 GB, which four 32 GB cards hold (docs/sizing.md) */
    assert.equal(ranked[0], 'v100-32g-x4');
    const rejected = await page.$$eval('#rejected li', (items) => items.map((li) => li.dataset.sku));
    assert.ok(rejected.includes('v100-16g-x1'), `rejected: ${rejected}`);
    assert.match(await page.locator('#recommendations').innerText(), /Memory: needs 126\.2 GB, has 128 GB on 4 cards/);
    await page.locator('#wizard').screenshot({ path: join(SHOTS, 'storefront-wizard.png') });
    /* In 中文 the page asks again, and the service's reasons, details and hint are Chinese, with
     * the same SKUs and figures; back in English they are English again. */
    await Promise.all([page.waitForResponse((r) => r.url().endsWith('/recommend')), page.click('#lang-zh')]);
    await page.waitForFunction(() => document.querySelector('#recommendations').innerText.includes('显存够用'));
    const chinese = await page.locator('#recommendations').innerText();
    assert.match(chinese, /显存够用：需要 126\.2 GB，此配置共 128 GB（4 张卡）/);
    assert.match(chinese, /租用 1 个月：¥5,227\.00/);
    assert.doesNotMatch(chinese, /Memory: needs|cheapest plan/);
    assert.match(await page.locator('#rejected').innerText(), /显存不够：需要 126\.2 GB，只有 16 GB/);
    assert.equal((await page.$$eval('#recommendations li.recommendation', (items) => items.map((li) => li.dataset.sku)))[0], 'v100-32g-x4');
    await page.locator('#wizard').screenshot({ path: join(SHOTS, 'storefront-wizard-zh.png') });
    await Promise.all([page.waitForResponse((r) => r.url().endsWith('/recommend')), page.click('#lang-en')]);
    await page.waitForFunction(() => document.querySelector('#recommendations').innerText.includes('Memory: needs'));
    await page.close();
  });

  test('switching to 中文 shows the article\'s words, and is remembered', async () => {
    const page = await openPage(browser.context, `${api.origin}/`);
    await Promise.all([page.waitForResponse((r) => r.url().endsWith('/catalog/billing-modes')), page.click('#lang-zh')]);
    await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
    await page.waitForFunction(() => document.querySelector('#catalog-list').innerText.includes('按需计费'));
    const catalog = await page.locator('#catalog-list').innerText();
    assert.match(catalog, /按需计费/);
    assert.match(catalog, /包月套餐/);
    /* full-width punctuation in Chinese, inside the figures too */
    assert.match(catalog, /8 核 vCPU，32 GiB/);
    assert.match(catalog, /CUDA、PyTorch/);
    assert.equal(await page.getAttribute('#lang-zh', 'aria-pressed'), 'true');
    await fillCalculator(page, { sku: 'v100-16g-x1', hours: 24, days: 100 });
    assert.equal(await text(page, '#calc-cheapest .plan'), '1 个季度 + 10 天按需计费');
    assert.equal(await text(page, '#calc-cheapest .total'), '¥3,852.20'); /* one format for money */
    await page.screenshot({ path: join(SHOTS, 'storefront-zh.png'), fullPage: true });
    await page.close();
    const later = await openPage(browser.context, `${api.origin}/`);
    assert.equal(await later.evaluate(() => document.documentElement.lang), 'zh-CN');
    await later.click('#lang-en');
    await later.waitForFunction(() => document.documentElement.lang === 'en');
    await later.close();
  });

  test('Chinese is the default when the browser prefers it', async () => {
    const chinese = await launch('zh-CN');
    try {
      const page = await openPage(chinese.context, `${api.origin}/`);
      assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-CN');
      assert.equal(await page.getAttribute('#lang-zh', 'aria-pressed'), 'true');
      await page.waitForFunction(() => document.querySelector('#catalog-list').innerText.includes('按需计费'));
      await page.close();
    } finally {
      await chinese.close();
    }
  });

  test('the same files served from another origin work through CORS', async () => {
    const page = await openPage(browser.context, `${copy.origin}/`);
    assert.equal(new URL(page.url()).origin, copy.origin);
    assert.equal((await onDemandPrices(page)).length, 5);
    await fillCalculator(page, { sku: 'v100-16g-x1', hours: 8, days: 90 });
    assert.equal(await text(page, '#calc-options tr[data-mode="on_demand"] .total'), '¥1,641.60');
    await page.screenshot({ path: join(SHOTS, 'storefront-cors.png') });
    await page.close();
  });

  test('the page can be used by keyboard alone', async () => {
    const page = await openPage(browser.context, `${api.origin}/`);
    const focused = () => page.evaluate(() => document.activeElement && document.activeElement.id);
    let steps = 0;
    while ((await focused()) !== 'c-hours' && steps++ < 80) await page.keyboard.press('Tab');
    assert.equal(await focused(), 'c-hours', 'Tab never reached the calculator');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('24');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('100');
    await Promise.all([page.waitForResponse((r) => r.url().endsWith('/quote')), page.keyboard.press('Enter')]);
    await page.waitForSelector('#calc-result:not([hidden])');
    assert.equal(await text(page, '#calc-cheapest .total'), '¥3,852.20');
    await page.close();
  });

  test('the price table sorts by a column, and marks the student price as needing verification', async () => {
    const page = await openPage(browser.context, `${api.origin}/`);
    const order = () => page.$$eval('#price-table tbody tr', (rows) => rows.map((r) => r.dataset.sku));
    await page.click('#price-table th[data-sort="on_demand"] button');
    assert.deepEqual(await order(), ['v100-16g-x1', 'v100-16g-x2', 'v100-32g-x4', 't4-16g-x1', 'v100-32g-x8']);
    assert.equal(await page.getAttribute('#price-table th[data-sort="on_demand"]', 'aria-sort'), 'ascending');
    await page.click('#price-table th[data-sort="on_demand"] button');
    assert.deepEqual(await order(), ['v100-32g-x8', 't4-16g-x1', 'v100-32g-x4', 'v100-16g-x2', 'v100-16g-x1']);
    await page.click('#price-table th[data-sort="memory"] button');
    assert.equal((await order())[4], 'v100-32g-x8');
    const row = page.locator('#price-table tr[data-sku="v100-16g-x1"]');
    assert.match(await row.innerText(), /¥1,231\.00\s*\/month\s*≈ ¥1\.71\/h at 24 h a day/);
    assert.match(await row.innerText(), /¥1\.50\s*\/h\s*verification required/);
    assert.match(await text(page, '#table-notes'), /Student prices need verification\./);
    await page.close();
  });

  test('the bundles show their contents and what they save or cost against buying the same', async () => {
    const page = await openPage(browser.context, `${api.origin}/`);
    const enterprise = page.locator('li.bundle[data-bundle="enterprise-inference-quarterly"]');
    assert.match(await enterprise.innerText(), /4 instances of T4 16GB × 1, 2,160 h each/);
    assert.match(await enterprise.innerText(), /¥57,293\.00\s+list price ¥84,845\.00/);
    assert.match(await enterprise.innerText(), /¥9\.00 more than buying the same \(4 × T4 16GB × 1: 1 quarter\)/);
    assert.match(await enterprise.innerText(), /for verified enterprise customers/);
    const starter = page.locator('li.bundle[data-bundle="training-starter-monthly"]');
    assert.match(await starter.innerText(), /the same price as buying it as a plan/);
    await Promise.all([page.waitForResponse((r) => r.url().endsWith('/catalog/bundles')), page.click('#lang-zh')]);
    await page.waitForFunction(() => document.getElementById('bundles-title').textContent === '套餐礼包');
    assert.match(await enterprise.innerText(), /比单独购买（T4 16GB 单卡 × 4 台：1 个季度）贵 ¥9\.00/);
    assert.match(await enterprise.innerText(), /原价 ¥84,845\.00/);
    await page.click('#lang-en');
    await page.waitForFunction(() => document.documentElement.lang === 'en');
    await page.close();
  });

  test('“Price this configuration” fills the calculator with it and prices it', async () => {
    const page = await openPage(browser.context, `${api.origin}/`);
    await Promise.all([page.waitForResponse((r) => r.url().endsWith('/quote')), page.click('li.sku[data-sku="v100-32g-x4"] button')]);
    await page.waitForSelector('#calc-result:not([hidden])');
    assert.equal(await page.inputValue('#c-sku'), 'v100-32g-x4');
    /* 8 h a day for 90 days at ¥9.68 an hour */
    assert.equal(await text(page, '#calc-options tr[data-mode="on_demand"] .total'), '¥6,969.60');
    await page.close();
  });

  test('every customer type shows a price, the API\'s own for the same request, and a verified type\'s as an estimate', async () => {
    const notes = {
      en: {
        student: 'Estimate — verified students pay this. Saving it as a quotation needs student verification.',
        startup: 'Estimate — verified start-ups pay this. Saving it as a quotation needs start-up verification.',
        enterprise: 'Estimate — verified enterprise customers pay this. Saving it as a quotation needs enterprise verification.',
      },
      'zh-CN': {
        student: '估算价格：完成学生认证的学生按此价格付费。需学生认证后才能保存为报价单。',
        startup: '估算价格：完成初创企业认证的客户按此价格付费。需初创企业认证后才能保存为报价单。',
        enterprise: '估算价格：完成企业认证的客户按此价格付费。需企业认证后才能保存为报价单。',
      },
    };
    const found = [];
    for (const language of ['en', 'zh-CN']) {
      const page = await openPage(browser.context, `${api.origin}/`);
      await page.click(language === 'en' ? '#lang-en' : '#lang-zh');
      await page.waitForFunction((l) => document.documentElement.lang === l, language);
      const options = await page.$$eval('#c-segment option', (all) => all.map((o) => ({ value: o.value, disabled: o.disabled })));
      assert.deepEqual(options, ['individual', 'student', 'startup', 'enterprise'].map((value) => ({ value, disabled: false })));
      const phrases = await layoutPhrases(page);
      for (const { value: segment } of options) {
        const [request] = await Promise.all([
          page.waitForRequest((r) => r.url().endsWith('/quote') && r.method() === 'POST'),
          fillCalculator(page, { sku: 'v100-16g-x1', hours: 8, days: 90, segment }),
        ]);
        const body = request.postDataJSON();
        assert.equal(body.customer.segment, segment);
        assert.equal(body.save, false);
        /* the same body asked of the API by the test: the page shows its figures */
        const answer = await (await page.request.post(`${api.origin}/quote`, { data: body })).json();
        const item = answer.items[0];
        assert.equal(answer.estimate === true, segment !== 'individual', segment);
        assert.equal(await text(page, '#calc-cheapest .total'), yuanOf(item.cheapest.total), segment);
        for (const option of item.options) assert.equal(await text(page, `#calc-options tr[data-mode="${option.billing}"] .total`), yuanOf(option.total), `${segment} ${option.billing}`);
        /* the student rate, not the individual one */
        assert.equal(await text(page, '#calc-cheapest .total'), segment === 'student' ? '¥1,080.00' : '¥1,641.60', segment);
        assert.equal(await page.locator('#calc-error').innerText(), '');
        assert.equal(await text(page, '#c-segment-note'), language === 'en' ? 'Student prices need verification.' : '学生价需完成学生认证。');
        if (segment === 'individual') {
          assert.equal(await page.isHidden('#calc-estimate'), true);
          assert.equal(await page.isVisible('#save'), true);
        } else {
          assert.equal(await text(page, '#calc-estimate'), notes[language][segment]);
          /* the API saves an estimate only for a verified customer: not offered */
          assert.equal(await page.isHidden('#save'), true);
          assert.equal(await page.isHidden('#print'), true);
        }
        for (const problem of await page.evaluate(layoutProblems, phrases)) found.push(`${language} ${segment}: ${problem}`);
        for (const violation of await axeViolations(page)) found.push(`${language} ${segment}: axe: ${violation}`);
      }
      await page.setViewportSize({ width: 360, height: 900 });
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      for (const problem of await page.evaluate(layoutProblems, phrases)) found.push(`${language} enterprise 360 px: ${problem}`);
      await page.locator('#calculator').screenshot({ path: join(SHOTS, `storefront-estimate-${language}.png`) });
      await page.setViewportSize({ width: 1280, height: 900 });
      /* a link naming the type prices it; one naming no type the page has, the individual price */
      for (const [segment, total] of [['student', '¥1,080.00'], ['vip', '¥1,641.60']]) {
        await page.goto(`${api.origin}/#sku=v100-16g-x1&hours=8&days=90&segment=${segment}`);
        await page.reload();
        await page.waitForSelector('body[data-ready="true"]');
        await page.waitForSelector('#calc-result:not([hidden])');
        assert.equal(await text(page, '#calc-cheapest .total'), total, segment);
        assert.equal(await page.isVisible('#calc-estimate'), segment === 'student', segment);
      }
      await page.close();
    }
    assert.deepEqual(found, []);
  });

  test('an error never stays beside an earlier quotation, and speaks the customer\'s words', async () => {
    const page = await openPage(browser.context, `${api.origin}/`, 422);
    await page.click('#lang-en');
    await page.waitForFunction(() => document.documentElement.lang === 'en');
    await fillCalculator(page, { sku: 'v100-16g-x1', hours: 8, days: 90 });
    await Promise.all([page.waitForResponse((r) => r.url().endsWith('/quote') && r.status() === 201), page.click('#save')]);
    await page.waitForSelector('#quote:not([hidden])');
    await page.fill('#c-quantity', '0');
    /* past the browser's own check, as a script or an old browser would */
    await Promise.all([page.waitForResponse((r) => r.url().endsWith('/quote') && r.status() === 422), page.$eval('#calc', (form) => form.dispatchEvent(new Event('submit', { cancelable: true })))]);
    /* the answer has arrived; the page writes its sentence on the task after */
    await page.waitForSelector('#calc-error:not(:empty)', { state: 'attached' });
    assert.equal(await text(page, '#calc-error'), 'Check “Instances” and try again.');
    assert.equal(await page.isHidden('#calc-result'), true);
    assert.equal(await page.isHidden('#quote'), true);
    await page.screenshot({ path: join(SHOTS, 'storefront-error.png') });
    await page.close();
  });

  test('the wizard offers a cheaper setting as a choice it has, with one duration and units', async () => {
    for (const language of ['en', 'zh-CN']) {
      const page = await openPage(browser.context, `${api.origin}/`);
      await page.click(language === 'en' ? '#lang-en' : '#lang-zh');
      await page.waitForFunction((l) => document.documentElement.lang === l, language);
      await page.fill('#w-tokens', '1');
      await page.fill('#w-deadline', '10');
      await page.click('#wiz button[type=submit]');
      await page.waitForSelector('#wizard-hint:not([hidden])');
      const first = page.locator('#recommendations li.recommendation').first();
      const x8 = language === 'en' ? 'V100 32GB × 8' : 'V100 32GB 八卡';
      assert.equal(await first.locator('h4').innerText(), x8);
      const reasons = await first.innerText();
      assert.match(reasons, language === 'en' ? /On-demand: ¥926\.83/ : /按需计费：¥926\.83/);
      assert.match(reasons, language === 'en' ? /Finishes in about 2\.1 days, running around the clock, within your deadline of 10 days/ : /每天 24 小时运行，约 2\.1 天完成，在 10 天期限内/);
      /* one duration (and the deadline), each with its unit */
      assert.deepEqual(reasons.match(/[\d.]+ ?(days|天|h\b|小时)/g), language === 'en' ? ['2.1 days', '10 days'] : ['24 小时', '2.1 天', '10 天'], reasons);
      assert.equal(
        await text(page, '#wizard-hint p'),
        language === 'en' ? 'Without activation checkpointing this finishes in 1.6 days for ¥695.12 on V100 32GB × 8.' : '不使用激活重计算，在 V100 32GB 八卡 上约 1.6 天完成，费用 ¥695.12。',
      );
      await page.locator('#wizard').screenshot({ path: join(SHOTS, `storefront-wizard-offer-${language}.png`) });
      await Promise.all([page.waitForResponse((r) => r.url().endsWith('/recommend')), page.click('#wizard-hint button')]);
      await page.waitForFunction(() => document.querySelector('#recommendations .total')?.textContent === '¥695.12');
      assert.equal(await page.inputValue('#w-checkpointing'), 'none');
      await page.close();
    }
  });

  test('when nothing fits, the wizard offers the budget or the deadline it would take, as a button that sets it', async () => {
    /* Chinese first: the page remembers the last language, and the next test expects English */
    for (const language of ['zh-CN', 'en']) {
      const page = await openPage(browser.context, `${api.origin}/`);
      await page.click(language === 'en' ? '#lang-en' : '#lang-zh');
      await page.waitForFunction((l) => document.documentElement.lang === l, language);
      await page.fill('#w-tokens', '1');
      await page.fill('#w-deadline', '10');
      await page.fill('#w-budget', '100');
      await page.click('#wiz button[type=submit]');
      await page.waitForSelector('#wizard-hint:not([hidden]) button');
      const x8 = language === 'en' ? 'V100 32GB × 8' : 'V100 32GB 八卡';
      assert.equal(
        await text(page, '#wizard-hint p'),
        language === 'en' ? `With a budget of ¥926.83 this finishes in 2.1 days on ${x8}.` : `预算提高到 ¥926.83，在 ${x8} 上约 2.1 天完成。`,
      );
      assert.equal(await text(page, '#wizard-hint button'), language === 'en' ? 'Set the budget to ¥926.83' : '预算改为 ¥926.83');
      await page.locator('#wizard').screenshot({ path: join(SHOTS, `storefront-wizard-budget-${language}.png`) });
      await Promise.all([page.waitForResponse((r) => r.url().endsWith('/recommend')), page.click('#wizard-hint button')]);
      await page.waitForFunction(() => document.querySelector('#recommendations .total')?.textContent === '¥926.83');
      assert.equal(await page.inputValue('#w-budget'), '926.83');
      /* a deadline nothing meets, even with as many instances as allowed and no checkpointing */
      await page.fill('#w-budget', '');
      await page.fill('#w-tokens', '40');
      await page.fill('#w-deadline', '1');
      await page.fill('#w-instances', '64');
      await page.selectOption('#w-checkpointing', 'none');
      await page.click('#wiz button[type=submit]');
      await page.waitForFunction(() => /(deadline|期限)/.test(document.querySelector('#wizard-hint:not([hidden]) button')?.textContent || ''));
      const offer = await text(page, '#wizard-hint p');
      const deadline = Number(/(\d+) (days|天)/.exec(await text(page, '#wizard-hint button'))[1]);
      assert.ok(deadline > 1, offer);
      assert.match(offer, language === 'en' ? new RegExp(`^With a deadline of ${deadline} days this finishes in [\\d.]+ days for ¥[\\d,.]+ on `) : new RegExp(`^期限放宽到 ${deadline} 天，在 .+ 上约 [\\d.]+ 天完成，费用 ¥[\\d,.]+。$`));
      await Promise.all([page.waitForResponse((r) => r.url().endsWith('/recommend')), page.click('#wizard-hint button')]);
      await page.waitForSelector('#recommendations li.recommendation');
      assert.equal(await page.inputValue('#w-deadline'), String(deadline));
      await page.close();
    }
  });

  test('when more instances would meet the deadline, the wizard offers that many as a button that sets it', async () => {
    for (const language of ['zh-CN', 'en']) {
      const page = await openPage(browser.context, `${api.origin}/`);
      await page.click(language === 'en' ? '#lang-en' : '#lang-zh');
      await page.waitForFunction((l) => document.documentElement.lang === l, language);
      await page.fill('#w-tokens', '1');
      await page.fill('#w-deadline', '1');
      await page.fill('#w-instances', '1');
      await page.selectOption('#w-checkpointing', 'none');
      await page.click('#wiz button[type=submit]');
      await page.waitForSelector('#wizard-hint:not([hidden]) button');
      assert.equal(await page.locator('#recommendations li.recommendation').count(), 0);
      const x8 = language === 'en' ? 'V100 32GB × 8' : 'V100 32GB 八卡';
      assert.equal(
        await text(page, '#wizard-hint p'),
        language === 'en' ? `With up to 3 instances this finishes in 0.8 days for ¥1,094.79 on ${x8}.` : `最多实例数放宽到 3 台，在 ${x8} 上约 0.8 天完成，费用 ¥1,094.79。`,
      );
      assert.equal(await text(page, '#wizard-hint button'), language === 'en' ? 'Allow up to 3 instances' : '最多实例数改为 3 台');
      await page.locator('#wizard').screenshot({ path: join(SHOTS, `storefront-wizard-instances-${language}.png`) });
      await Promise.all([page.waitForResponse((r) => r.url().endsWith('/recommend')), page.click('#wizard-hint button')]);
      await page.waitForFunction(() => document.querySelector('#recommendations .total')?.textContent === '¥1,094.79');
      assert.equal(await page.inputValue('#w-instances'), '3');
      assert.equal(await page.inputValue('#w-deadline'), '1');
      await page.close();
    }
  });

  test('at 360 to 1920 px, in both languages, the page holds: no overflow, no broken word, no label over another, no API word, no serious axe violation', async () => {
    const widths = [360, 390, 768, 1280, 1920];
    const found = [];
    for (const language of ['en', 'zh-CN']) {
      const page = await openPage(browser.context, `${api.origin}/`);
      await page.click(language === 'en' ? '#lang-en' : '#lang-zh');
      await page.waitForFunction((l) => document.documentElement.lang === l, language);
      await page.waitForFunction(() => document.getElementById('bundles').children.length === 2);
      await fillCalculator(page, { sku: 'v100-16g-x1', hours: 8, days: 90 });
      await Promise.all([page.waitForResponse((r) => r.url().endsWith('/quote') && r.status() === 201), page.click('#save')]);
      await page.waitForSelector('#quote:not([hidden])');
      await page.fill('#w-tokens', '1');
      await page.fill('#w-deadline', '10');
      await page.click('#wiz button[type=submit]');
      await page.waitForSelector('#wizard-hint:not([hidden])');
      const phrases = await layoutPhrases(page);
      const words = await page.evaluate(() => document.body.innerText);
      const api_word = words.match(API_WORDS);
      if (api_word) found.push(`${language}: “${api_word[0]}” in the page's text`);
      for (const width of widths) {
        await page.setViewportSize({ width, height: 900 });
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        for (const problem of await page.evaluate(layoutProblems, phrases)) found.push(`${language} ${width} px: ${problem}`);
        for (const violation of await axeViolations(page)) found.push(`${language} ${width} px: axe: ${violation}`);
        await page.screenshot({ path: join(SHOTS, `storefront-${width}-${language}.png`), fullPage: true });
      }
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.close();
    }
    assert.deepEqual(found, []);
  });

  test('no page printed an error to the console', () => {
    assert.deepEqual(consoleProblems, []);
  });
});
