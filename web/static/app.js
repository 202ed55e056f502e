/*
 * The storefront page. It talks to the public API only (GET /catalog...,
 * POST /quote, GET /quote/{id}, POST /recommend), so the same files work
 * served by gpuquote itself or from another origin through CORS (the API's
 * address is the <meta name="gpuquote-api"> of index.html).
 *
 * The page never computes money: every amount shown is one the API
 * returned, only written with thousands separators. Every customer type
 * is priced: a student, start-up or enterprise price is the API's estimate
 * (a page without a key has no verified customer), shown as one and never
 * offered for saving, which the API refuses. Every sentence a customer reads is
 * the page's own (i18n.js) around the API's figures and names; the API's
 * free text (reasons, hints, error messages) is never shown as it is. The chart's points are
 * one POST /quote holding an item per hour of the day (the API prices up to
 * 100 items a quote), together with the usage asked for.
 *
 * State that a link can share (filters, sort, the calculator's usage, a
 * saved quote) lives in the URL's fragment, #gpu=V100&sort=-price: the
 * service refuses unknown query parameters, and the page needs none.
 */
'use strict';

(function () {
  const TEXTS = window.GQ_TEXTS;
  const LANGUAGES = ['zh-CN', 'en'];
  const LANGUAGE_KEY = 'gpuquote.language';
  const API = (document.querySelector('meta[name="gpuquote-api"]')?.content || '').replace(/\/+$/, '');
  const FILTERS = ['gpu', 'min_memory_gb', 'gpu_count', 'max_hourly', 'sort'];
  const CALCULATOR = { sku: 'c-sku', quantity: 'c-quantity', hours: 'c-hours', days: 'c-days', segment: 'c-segment' };
  const MODE_ORDER = ['on_demand', 'monthly', 'quarterly', 'student'];
  const CHART_COLOURS = { on_demand: '#0b5cad', monthly: '#b8420f', quarterly: '#197a3e', student: '#7a3ea8' };

  const TRAINING_TASKS = ['finetune', 'lora', 'pretrain', 'learning'];
  const DEFAULT_MAX_INSTANCES = 8; // the API's, when the wizard sends none
  const NARROW_CHART = 560; /* px: below this the break-even labels would collide */

  const state = {
    language: chooseLanguage(),
    skus: new Map(), // id -> SKU, every SKU, in the page's language
    modes: new Map(), // id -> billing mode
    quote: null, // the last unsaved comparison, for saving and redrawing
    request: null, // its POST /quote body
    saved: null, // the last saved quote, shown as a quotation
    recommendation: null,
    chart: null,
    bundles: [],
    sort: { key: null, descending: false },
  };

  /* ---- language ------------------------------------------------------- */

  function chooseLanguage() {
    try {
      const kept = window.localStorage.getItem(LANGUAGE_KEY);
      if (LANGUAGES.includes(kept)) return kept;
    } catch (e) {
      /* storage refused (private mode): choose from the browser */
    }
    for (const tag of navigator.languages || [navigator.language || '']) {
      const t = String(tag).toLowerCase();
      if (/^zh(-(cn|sg|hans)(-|$)|$)/.test(t)) return 'zh-CN';
      if (/^zh-/.test(t)) continue; // Traditional Chinese: not ours, look further
      if (/^en(-|$)/.test(t)) return 'en';
    }
    return 'en';
  }

  function t(key, ...args) {
    const text = TEXTS[state.language][key] ?? TEXTS.en[key] ?? key;
    return typeof text === 'function' ? text(...args) : text;
  }

  function applyTexts() {
    document.documentElement.lang = state.language;
    document.title = t('page_title');
    for (const element of document.querySelectorAll('[data-i18n]')) element.textContent = t(element.dataset.i18n);
    for (const element of document.querySelectorAll('[data-i18n-label]'))
      element.setAttribute('aria-label', t(element.dataset.i18nLabel));
    for (const button of document.querySelectorAll('.languages button'))
      button.setAttribute('aria-pressed', String(button.dataset.lang === state.language));
  }

  async function setLanguage(language) {
    if (!LANGUAGES.includes(language) || language === state.language) return;
    state.language = language;
    try {
      window.localStorage.setItem(LANGUAGE_KEY, language);
    } catch (e) {
      /* not remembered: the choice holds for this visit */
    }
    applyTexts();
    await loadCatalog();
    if (state.request) await compare();
    if (state.saved) await showSavedQuote(state.saved.id);
    if (state.recommendation) await recommend();
  }

  /* ---- the API -------------------------------------------------------- */

  class ApiError extends Error {
    constructor(message, code, field) {
      super(message);
      this.code = code;
      this.field = field;
    }
  }

  async function api(path, body) {
    const options = { headers: { 'Accept-Language': state.language } };
    if (body !== undefined) {
      options.method = 'POST';
      options.headers['Content-Type'] = 'application/json';
      options.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(API + path, options);
    } catch (e) {
      throw new ApiError(t('error_network'), 'network');
    }
    const json = await response.json().catch(() => null);
    if (!response.ok) {
      const error = (json && json.error) || {};
      throw new ApiError(customerMessage(response.status, error), error.code, error.field);
    }
    return json;
  }

  /* The API's error in the page's words: the field's label when the API
   * names a field the page has, never the API's own sentence. */
  const FIELD_LABELS = { quantity: 'c_quantity', hours_per_day: 'c_hours', days: 'c_days', sku: 'c_sku', model_params_b: 'w_params', tokens_b: 'w_tokens', deadline_days: 'w_deadline', budget: 'w_budget', precision: 'w_precision' };

  function customerMessage(status, error) {
    if (status === 404) return t('err_not_found');
    if (status === 429 || status === 503) return t('error_busy');
    const last = String(error.field || '').split('.').pop();
    if (FIELD_LABELS[last]) return t('err_field', t(FIELD_LABELS[last]));
    return t('err_generic');
  }

  /* ---- writing things ------------------------------------------------- */

  /* "1641.60" -> "¥1,641.60": the API's decimal string with separators;
   * no arithmetic. */
  function yuan(amount) {
    const match = /^(-?)(\d+)\.(\d{2})$/.exec(String(amount));
    if (!match) return String(amount);
    return `${match[1]}¥${match[2].replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${match[3]}`;
  }

  function element(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (name === 'class') node.className = value;
      else if (name === 'dataset') Object.assign(node.dataset, value);
      else if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value === true ? '' : value);
    }
    for (const child of children.flat(Infinity)) {
      if (child === undefined || child === null || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  /* "-9.00" -> "9.00": the size of a signed amount, by its text. */
  function unsigned(amount) {
    return String(amount).replace(/^-/, '');
  }

  /* A decimal amount as integer fen, for ordering rows (never shown). */
  function fen(amount) {
    const match = /^(-?)(\d+)\.(\d{2})$/.exec(String(amount));
    return match ? Number(`${match[1]}${match[2]}${match[3]}`) : Number.POSITIVE_INFINITY;
  }

  /* One decimal, as the API's own figures are written: 2.36 -> "2.4". */
  function oneDecimal(value) {
    return (Math.ceil(value * 10 - 1e-9) / 10).toFixed(1);
  }

  /* The API's text with every SKU name in it kept on one line. */
  function withNames(text) {
    const names = [...state.skus.values()].map((sku) => sku.name).filter((name) => text.includes(name));
    if (!names.length) return text;
    const pattern = new RegExp(`(${names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})`);
    return text.split(pattern).map((part, i) => (i % 2 ? element('span', { class: 'nowrap' }, part) : part));
  }

  /* Units and amounts with their unit, which a line must not split:
   * "24 小时", "¥7.43/小时", "1 个季度". */
  const UNIT_PHRASES = ['¥[0-9,]+\\.[0-9]{2}/(?:小时|月|季度|h|month|quarter)', '[0-9][0-9,.]* ?(?:小时|个月|个季度|天|台|张卡)', '小时', '个月', '季度'];
  let keptPhrases = new RegExp(`(${UNIT_PHRASES.join('|')})`);

  function learnNames() {
    const names = [...state.skus.values()].map((sku) => sku.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    keptPhrases = new RegExp(`(${[...names, ...UNIT_PHRASES].join('|')})`);
  }

  /* Wraps every such phrase (and each configuration's name) in the text
   * under `root` in a span that does not wrap, whichever sentence it is in. */
  function keepTogether(root) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
      acceptNode: (node) => (node.parentElement && node.parentElement.closest('.nowrap, select, option, script, style, code, title') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
    });
    const nodes = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) if (keptPhrases.test(node.textContent)) nodes.push(node);
    for (const node of nodes) {
      const parts = node.textContent.split(keptPhrases);
      node.replaceWith(...parts.map((part, i) => (i % 2 ? element('span', { class: 'nowrap' }, part) : part)).filter((part) => part !== ''));
    }
  }

  function watchTexts() {
    keepTogether(document.body);
    new MutationObserver((records) => {
      for (const record of records)
        for (const node of record.addedNodes) if (node.nodeType === Node.ELEMENT_NODE || node.nodeType === Node.TEXT_NODE) keepTogether(node.nodeType === Node.TEXT_NODE ? node.parentElement : node);
    }).observe(document.body, { childList: true, subtree: true });
  }

  function modeName(id) {
    if (id === 'mixed') return t('mixed');
    return state.modes.get(id)?.name ?? id;
  }

  function perUnit(per) {
    return t(`per_${per}`);
  }

  /* "¥1,231.00/月", on one line. */
  function amountPer(price) {
    return element('span', { class: 'nowrap price-per' }, element('span', { class: 'amount' }, yuan(price.amount)), element('span', { class: 'per' }, perUnit(price.per)));
  }

  function localTime(iso) {
    const date = new Date(iso);
    if (Number.isNaN(date.getTime())) return iso;
    /* with its time zone: a quotation's validity is a moment, not a wall-clock time */
    return date.toLocaleString(state.language, { year: 'numeric', month: 'long', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZoneName: 'short' });
  }

  function setStatus(text) {
    document.getElementById('status').textContent = text || '';
  }

  function showError(id, error) {
    document.getElementById(id).textContent = error ? error.message : '';
  }

  /* ---- the fragment: #gpu=V100&sort=-price ----------------------------- */

  function readFragment() {
    const text = window.location.hash.slice(1);
    return new URLSearchParams(text.includes('=') ? text : '');
  }

  function writeFragment(update) {
    const params = readFragment();
    for (const [key, value] of Object.entries(update)) {
      if (value === undefined || value === null || value === '') params.delete(key);
      else params.set(key, value);
    }
    const text = params.toString();
    window.history.replaceState(null, '', text ? `#${text}` : window.location.pathname);
  }

  /* ---- the catalog ------------------------------------------------------ */

  function filterQuery() {
    const form = document.getElementById('filters');
    const query = new URLSearchParams();
    for (const name of FILTERS) {
      const value = form.elements[name].value.trim();
      if (value !== '') query.set(name, value);
    }
    return query;
  }

  function host(sku) {
    const facts = sku.host;
    if (!facts) return null;
    const rows = [
      [t('host'), `${t('vcpus', facts.vcpus)}${t('comma')}${t('gib', facts.memory_gib)}`],
      [t('disk'), `${facts.system_disk_gb} GB`],
      [t('bandwidth'), `${facts.bandwidth_gbps} Gbit/s`],
      [t('region'), facts.region.name],
      [t('instance_type'), element('code', {}, facts.instance_type)],
      [t('provisioning'), t('provisioning_value', facts.provisioning_minutes.min, facts.provisioning_minutes.max, facts.provisioning_minutes.average)],
      [t('software'), facts.software.join(t('list_separator'))],
    ];
    if (facts.ssh) rows.push([t('ssh'), t('yes')]);
    return rows;
  }

  function specRows(sku) {
    const gpu = sku.gpu;
    const rows = [
      [t('gpu'), `${gpu.model} ${gpu.memory_gb} GB ${gpu.memory_type}`],
      [t('cards'), String(sku.gpu_count)],
      [t('gpu_memory'), `${sku.total_memory_gb} GB`],
      [t('fp16'), `${sku.total_fp16_tflops} TFLOPS`],
      [t('interconnect'), t(`interconnect_${sku.interconnect}`)],
    ];
    return rows.concat(host(sku) || []);
  }

  function priceRows(sku) {
    const modes = MODE_ORDER.filter((m) => sku.prices[m]);
    return modes.map((mode) => {
      const price = sku.prices[mode];
      const note = price.eligible_segments ? t('students_only') : price.hourly_equivalent ? t('per_hour_at_24', yuan(price.hourly_equivalent)) : '';
      return element(
        'tr',
        { class: 'price', dataset: { mode } },
        element('th', { scope: 'row' }, modeName(mode)),
        element('td', { class: 'num' }, amountPer(price), note ? element('span', { class: 'note' }, note) : null),
      );
    });
  }

  function renderSku(sku) {
    const titleId = `sku-${sku.id}`;
    const available = sku.available !== false;
    return element(
      'li',
      { class: 'sku', dataset: { sku: sku.id } },
      element(
        'article',
        { 'aria-labelledby': titleId },
        element('h3', { id: titleId }, element('span', { class: 'nowrap' }, sku.name), element('span', { class: available ? 'badge ok' : 'badge out' }, available ? t('available') : t('sold_out'))),
        sku.description ? element('p', { class: 'description' }, sku.description) : null,
        element('dl', { class: 'specs' }, specRows(sku).map(([term, value]) => [element('dt', {}, term), element('dd', {}, value)])),
        element(
          'table',
          { class: 'prices' },
          element('caption', { class: 'visually-hidden' }, `${t('prices')}: ${sku.name}`),
          element('tbody', {}, priceRows(sku)),
        ),
        element('button', { type: 'button', class: 'secondary', disabled: !available, onclick: () => priceThis(sku.id) }, t('price_this')),
      ),
    );
  }

  async function loadCatalog() {
    setStatus(t('loading'));
    const query = filterQuery();
    try {
      const [modes, all] = await Promise.all([api('/catalog/billing-modes'), api('/catalog')]);
      state.modes = new Map(modes.billing_modes.map((m) => [m.id, m]));
      state.skus = new Map(all.skus.map((s) => [s.id, s]));
      learnNames();
      const shown = query.toString() ? await api(`/catalog?${query}`) : all;
      state.shown = shown.skus;
      renderPriceTable();
      const list = document.getElementById('catalog-list');
      list.replaceChildren(...shown.skus.map(renderSku));
      await loadBundles();
      document.getElementById('catalog-count').textContent = shown.skus.length ? t('count', shown.skus.length) : t('none_match');
      fillSkuChoices();
      setStatus('');
    } catch (error) {
      setStatus(error.message);
    }
  }

  /* ---- the price table: one row a SKU, sorted by a column -------------- */

  const SORT_KEYS = {
    name: (sku) => sku.name,
    memory: (sku) => sku.total_memory_gb,
    cards: (sku) => sku.gpu_count,
    on_demand: (sku) => fen(sku.prices.on_demand?.amount),
    monthly: (sku) => fen(sku.prices.monthly?.amount),
    quarterly: (sku) => fen(sku.prices.quarterly?.amount),
    student: (sku) => fen(sku.prices.student?.amount),
    available: (sku) => (sku.available === false ? 1 : 0),
  };

  function sortedSkus() {
    const skus = [...(state.shown || [])];
    const { key, descending } = state.sort;
    if (!key) return skus;
    const value = SORT_KEYS[key];
    skus.sort((a, b) => {
      const x = value(a);
      const y = value(b);
      const order = typeof x === 'string' ? x.localeCompare(y, state.language, { numeric: true }) : x - y;
      return descending ? -order : order;
    });
    return skus;
  }

  function priceCell(price, extra) {
    if (!price) return element('td', { class: 'num' }, '—');
    return element('td', { class: 'num', dataset: { amount: price.amount } }, amountPer(price), extra);
  }

  function priceTableRow(sku) {
    const p = sku.prices;
    const equivalent = (price) => (price && price.hourly_equivalent ? element('span', { class: 'equivalent' }, t('per_hour_at_24', yuan(price.hourly_equivalent))) : null);
    const available = sku.available !== false;
    const cells = [
      element('th', { scope: 'row', class: 'nowrap' }, sku.name),
      element('td', { class: 'num' }, t('memory_value', sku.total_memory_gb, sku.gpu.memory_gb)),
      element('td', { class: 'num' }, String(sku.gpu_count)),
      priceCell(p.on_demand),
      priceCell(p.monthly, equivalent(p.monthly)),
      priceCell(p.quarterly, equivalent(p.quarterly)),
      priceCell(p.student, p.student ? element('span', { class: 'verify' }, t('verification_required')) : null),
      element('td', {}, element('span', { class: available ? 'badge ok' : 'badge out' }, available ? t('available') : t('sold_out'))),
    ];
    const labels = ['col_gpu', 'col_memory', 'col_cards', 'col_hourly', 'col_monthly', 'col_quarterly', 'col_student', 'col_available'];
    cells.forEach((cell, i) => (cell.dataset.label = t(labels[i])));
    return element('tr', { dataset: { sku: sku.id } }, cells);
  }

  function renderPriceTable() {
    document.querySelector('#price-table thead tr').dataset.label = t('f_sort');
    document.querySelector('#price-table tbody').replaceChildren(...sortedSkus().map(priceTableRow));
    for (const th of document.querySelectorAll('#price-table th[data-sort]')) {
      const sorted = th.dataset.sort === state.sort.key;
      th.setAttribute('aria-sort', sorted ? (state.sort.descending ? 'descending' : 'ascending') : 'none');
    }
  }

  function sortBy(key) {
    state.sort = { key, descending: state.sort.key === key ? !state.sort.descending : false };
    renderPriceTable();
  }

  /* ---- the bundles (套餐礼包) -------------------------------------------- */

  async function loadBundles() {
    const answer = await api('/catalog/bundles');
    document.getElementById('bundles-title').textContent = answer.name || t('bundles_title');
    document.getElementById('bundles').replaceChildren(...answer.bundles.map(renderBundle));
  }

  /* What the bundle saves or costs against the cheapest way to buy the same
   * thing: the API's own `saving`, signed. */
  function bundleComparison(bundle) {
    const alternative = bundle.cheapest_alternative ? bundle.cheapest_alternative.summary : '';
    const say = (key, ...args) => element('p', { class: `comparison ${key}` }, withNames(t(`bundle_${key}`, ...args)));
    if (/^-/.test(bundle.saving)) return say('costs_more', yuan(unsigned(bundle.saving)), alternative);
    if (/^0\.00$/.test(bundle.saving)) return say('same', alternative);
    return say('saves', yuan(bundle.saving), alternative);
  }

  function renderBundle(bundle) {
    const skuName = (id) => state.skus.get(id)?.name ?? id;
    const open = bundle.eligible_segments.includes('individual');
    return element(
      'li',
      { class: 'bundle', dataset: { bundle: bundle.id, saving: bundle.saving } },
      element('h4', {}, bundle.name),
      element('ul', { class: 'contents' }, bundle.contents.map((c) => element('li', {}, withNames(t('bundle_contents', c.quantity, skuName(c.sku), c.hours.toLocaleString('en')))))),
      element('p', { class: 'bundle-price' }, element('strong', { class: 'amount' }, yuan(bundle.price)), ' ', element('s', { class: 'list-price' }, t('bundle_list_price', yuan(bundle.list_price)))),
      bundleComparison(bundle),
      element('p', { class: open ? 'eligibility' : 'eligibility verify' }, open ? t('bundle_open') : t('bundle_for')),
    );
  }

  function fillSkuChoices() {
    const select = document.getElementById('c-sku');
    const chosen = select.value || readFragment().get('sku') || 'v100-16g-x1';
    select.replaceChildren(...[...state.skus.values()].map((sku) => element('option', { value: sku.id, disabled: sku.available === false }, sku.name)));
    if (state.skus.has(chosen)) select.value = chosen;
  }

  function applyFilters(event) {
    event.preventDefault();
    const update = {};
    for (const name of FILTERS) update[name] = document.getElementById('filters').elements[name].value.trim();
    writeFragment(update);
    loadCatalog();
  }

  function resetFilters() {
    const form = document.getElementById('filters');
    form.reset();
    writeFragment(Object.fromEntries(FILTERS.map((name) => [name, ''])));
    loadCatalog();
  }

  /* Fills the calculator with this configuration and prices it. */
  async function priceThis(id) {
    document.getElementById('c-sku').value = id;
    document.getElementById('calculator').scrollIntoView({ behavior: 'smooth', block: 'start' });
    document.getElementById('c-quantity').focus({ preventScroll: true });
    await compare();
  }

  /* ---- the calculator ---------------------------------------------------- */

  function usageFromForm() {
    const value = (id) => document.getElementById(id).value.trim();
    return {
      sku: value('c-sku'),
      quantity: Number(value('c-quantity')),
      hours_per_day: Number(value('c-hours')),
      days: Number(value('c-days')),
      segment: value('c-segment'),
    };
  }

  /* The usage asked for, then one item per hour of the day for the chart:
   * one request, every figure priced by the API. */
  function comparisonBody(usage) {
    const item = (hours) => ({ sku: usage.sku, quantity: usage.quantity, billing: 'cheapest', hours_per_day: hours, days: usage.days });
    const items = [item(usage.hours_per_day)];
    for (let hours = 1; hours <= 24; hours++) items.push(item(hours));
    return { customer: { segment: usage.segment }, items, save: false };
  }

  async function compare(event) {
    if (event) event.preventDefault();
    showError('calc-error', null);
    const usage = usageFromForm();
    writeFragment({ sku: usage.sku, quantity: usage.quantity, hours: usage.hours_per_day, days: usage.days, segment: usage.segment === 'individual' ? '' : usage.segment });
    const body = comparisonBody(usage);
    try {
      const quote = await api('/quote', body);
      state.quote = quote;
      state.request = body;
      document.getElementById('print-note').hidden = true;
      renderComparison(quote);
    } catch (error) {
      /* no earlier figure stays beside the error */
      document.getElementById('calc-result').hidden = true;
      document.getElementById('quote').hidden = true;
      state.quote = null;
      state.request = null;
      showError('calc-error', error);
    }
  }

  function renderComparison(quote) {
    const item = quote.items[0];
    const rows = item.options.map((option) =>
      element(
        'tr',
        { dataset: { mode: option.billing }, class: option.billing === item.cheapest.billing ? 'best' : undefined },
        element('th', { scope: 'row' }, modeName(option.billing)),
        element('td', {}, withNames(option.plan.summary)),
        element('td', { class: 'num total' }, yuan(option.total)),
      ),
    );
    document.querySelector('#calc-options tbody').replaceChildren(...rows);
    const saving = item.cheapest.saving;
    document.getElementById('calc-cheapest').replaceChildren(
      element('p', {}, element('strong', {}, `${t('cheapest')}${t('colon')}`), element('span', { class: 'plan', dataset: { mode: item.cheapest.billing } }, withNames(item.cheapest.plan.summary)), ' — ', element('span', { class: 'total' }, yuan(item.cheapest.total))),
      element('p', { class: 'saving' }, /^0\.00$/.test(saving) ? t('no_saving') : t('saving', yuan(saving))),
    );
    showEstimate(quote);
    document.getElementById('calc-result').hidden = false;
    renderBreakEven(item);
    renderChart(quote);
  }

  /* An estimate (a customer type the page cannot verify) says so, and is
   * not offered for saving or printing: the API saves it only for a
   * verified customer. */
  function showEstimate(quote) {
    const estimate = quote.estimate === true;
    const note = document.getElementById('calc-estimate');
    note.textContent = estimate ? t(`estimate_${quote.customer.segment}`) : '';
    note.hidden = !estimate;
    document.getElementById('calc-actions').hidden = estimate;
    if (estimate) document.getElementById('print-note').hidden = true;
  }

  function renderBreakEven(item) {
    const marks = Object.entries(item.break_even_hours_per_day || {});
    document.getElementById('break-even').replaceChildren(
      ...marks.map(([mode, hours]) =>
        element('li', { dataset: { mode, hours: hours.toFixed(1) } }, hours > 24 ? t('break_even_never', modeName(mode)) : t('break_even', modeName(mode), hours.toFixed(1))),
      ),
    );
  }

  function chartSeries(quote, narrow) {
    const points = quote.items.slice(1);
    const modes = MODE_ORDER.filter((mode) => points[0].options.some((o) => o.billing === mode));
    const breakEven = quote.items[0].break_even_hours_per_day || {};
    return modes.map((mode) => {
      const series = {
        name: modeName(mode),
        type: 'line',
        showSymbol: false,
        color: CHART_COLOURS[mode],
        labelLayout: { hideOverlap: true },
        data: points.map((item) => [item.hours_per_day, Number(item.options.find((o) => o.billing === mode).total)]),
      };
      if (breakEven[mode] !== undefined && breakEven[mode] <= 24)
        series.markLine = {
          symbol: 'none',
          silent: true,
          label: { show: !narrow, formatter: `${breakEven[mode].toFixed(1)} h`, color: CHART_COLOURS[mode] },
          lineStyle: { type: 'dashed', color: CHART_COLOURS[mode] },
          data: [{ xAxis: breakEven[mode], name: mode }],
        };
      return series;
    });
  }

  function renderChart(quote) {
    const container = document.getElementById('chart');
    if (!window.echarts) return;
    if (!state.chart) {
      state.chart = window.echarts.init(container, null, { renderer: 'canvas' });
      window.addEventListener('resize', () => {
        if (!state.chart) return;
        state.chart.resize();
        if (state.quote) renderChart(state.quote);
      });
    }
    /* On a narrow chart the break-even labels would collide: the list
     * under the chart states them instead. */
    const narrow = container.clientWidth < NARROW_CHART;
    state.chart.setOption(
      {
        aria: { enabled: true },
        animation: false,
        grid: { left: 8, right: 16, top: narrow ? 56 : 40, bottom: 36, containLabel: true },
        legend: { top: 0, type: narrow ? 'scroll' : 'plain' },
        tooltip: { trigger: 'axis', valueFormatter: (value) => yuan(Number(value).toFixed(2)) },
        xAxis: { type: 'value', min: 0, max: 24, interval: 4, name: t('chart_x'), nameLocation: 'middle', nameGap: 24 },
        yAxis: { type: 'value', name: t('chart_y') },
        series: chartSeries(quote, narrow),
      },
      true,
    );
  }

  /* ---- saving, and the quotation ---------------------------------------- */

  /* Saves the comparison on screen; true when it is saved. */
  async function save() {
    showError('save-error', null);
    if (!state.request) return false;
    const body = { ...state.request, items: [state.request.items[0]], save: true };
    try {
      const quote = await api('/quote', body);
      writeFragment({ quote: quote.id });
      renderQuotation(quote);
      setStatus(t('saved'));
      document.getElementById('quote-title').focus();
      return true;
    } catch (error) {
      showError('save-error', error);
      return false;
    }
  }

  function sameUsage(a, b) {
    return ['sku', 'quantity', 'hours_per_day', 'days'].every((key) => a[key] === b[key]);
  }

  function pdfUrl(quote) {
    return `${API}/quote/${encodeURIComponent(quote.id)}/pdf?lang=${state.language}`;
  }

  /* The printed quotation is the quotation document itself, the PDF of a
   * saved quote (the browser's viewer prints it): the page keeps no second
   * printable layout. An unsaved comparison is saved first, on request. */
  function printQuotation() {
    const note = document.getElementById('print-note');
    if (state.saved && (!state.request || sameUsage(state.saved.items[0], state.request.items[0]))) {
      note.hidden = true;
      window.open(pdfUrl(state.saved), '_blank');
      return;
    }
    note.hidden = false;
  }

  async function saveAndPrint() {
    if (await save()) printQuotation();
  }

  async function showSavedQuote(id) {
    try {
      renderQuotation(await api(`/quote/${encodeURIComponent(id)}`));
    } catch (error) {
      setStatus(error.message);
    }
  }

  function renderQuotation(quote) {
    state.saved = quote;
    const skuName = (id) => state.skus.get(id)?.name ?? id;
    const facts = [
      [t('q_id'), element('code', { class: 'quote-id' }, quote.id)],
      [t('q_created'), localTime(quote.created_at)],
      [t('q_valid'), element('span', { class: 'expires' }, localTime(quote.expires_at))],
      [t('q_version'), String(quote.price_list_version)],
      [t('q_customer'), t(`seg_${quote.customer.segment}`)],
      [t('q_status'), t(`status_${quote.status}`)],
    ];
    const items = quote.items.map((item) =>
      element(
        'tr',
        {},
        element('td', { class: 'nowrap', dataset: { label: t('q_item') } }, skuName(item.sku)),
        element('td', { class: 'num', dataset: { label: t('q_quantity') } }, String(item.quantity)),
        element('td', { dataset: { label: t('q_usage') } }, t('q_usage_value', item.hours_per_day, item.days)),
        element('td', { dataset: { label: t('q_plan') } }, withNames(item.plan.summary)),
        element('td', { class: 'num', dataset: { label: t('q_amount') } }, yuan(item.total)),
      ),
    );
    const bundles = quote.bundles.map((bundle) => element('tr', {}, element('td', { colspan: '4' }, bundle.name), element('td', { class: 'num' }, yuan(bundle.price))));
    const link = `${window.location.pathname}#quote=${encodeURIComponent(quote.id)}`;
    document.getElementById('quote-body').replaceChildren(
      element('dl', { class: 'facts' }, facts.map(([term, value]) => [element('dt', {}, term), element('dd', {}, value)])),
      element(
        'div',
        { class: 'table-wrap' },
        element(
          'table',
          { class: 'quote-items' },
          element('caption', { class: 'visually-hidden' }, t('quote_title')),
          element('thead', {}, element('tr', {}, [t('q_item'), t('q_quantity'), t('q_usage'), t('q_plan'), t('q_amount')].map((h, i) => element('th', { scope: 'col', class: i === 1 || i === 4 ? 'num' : undefined }, h)))),
          element('tbody', {}, items, bundles),
          element(
            'tfoot',
            {},
            element('tr', {}, element('th', { scope: 'row', colspan: '4' }, t('q_subtotal')), element('td', { class: 'num' }, yuan(quote.subtotal))),
            element('tr', {}, element('th', { scope: 'row', colspan: '4' }, t('q_discount')), element('td', { class: 'num' }, yuan(quote.discount_total))),
            element('tr', { class: 'grand' }, element('th', { scope: 'row', colspan: '4' }, t('q_total')), element('td', { class: 'num quote-total' }, yuan(quote.total))),
          ),
        ),
      ),
      element('p', { class: 'vat' }, t('q_vat')),
      element(
        'p',
        { class: 'no-print quote-links' },
        element('a', { class: 'quote-pdf', href: pdfUrl(quote), download: `${quote.id}.pdf` }, t('q_pdf')),
        element('a', { href: link }, t('q_link')),
      ),
    );
    document.getElementById('quote').hidden = false;
  }

  /* ---- the wizard -------------------------------------------------------- */

  function isTraining(task) {
    return TRAINING_TASKS.includes(task);
  }

  /* The request for the wizard's form, with `change` applied on top (a
   * setting the page offers as a choice). */
  function wizardBody(change = {}) {
    const value = (id) => document.getElementById(id).value.trim();
    const workload = { task: value('w-task'), model_params_b: Number(value('w-params')), precision: value('w-precision') };
    if (value('w-tokens') !== '') workload.tokens_b = Number(value('w-tokens'));
    if (isTraining(workload.task)) workload.activation_checkpointing = value('w-checkpointing');
    const { drop, max_instances: instances, ...setting } = change;
    Object.assign(workload, setting);
    const body = { workload, customer: { segment: 'individual' } };
    if (value('w-deadline') !== '') body.deadline_days = Number(value('w-deadline'));
    if (value('w-budget') !== '') body.budget = Number(value('w-budget')).toFixed(2);
    if (instances !== undefined) body.assumptions = { max_instances: instances };
    else if (value('w-instances') !== '') body.assumptions = { max_instances: Number(value('w-instances')) };
    if (drop) delete body[drop];
    return body;
  }

  function showCheckpointing() {
    document.getElementById('w-checkpointing-field').hidden = !isTraining(document.getElementById('w-task').value);
  }

  async function recommend(event) {
    if (event) event.preventDefault();
    showError('wizard-error', null);
    const body = wizardBody();
    try {
      const result = await api('/recommend', body);
      state.recommendation = result;
      renderRecommendation(result, body);
      await offerBetterSetting(result, body);
    } catch (error) {
      document.getElementById('wizard-result').hidden = true;
      showError('wizard-error', error);
    }
  }

  /* The settings the wizard has that could do better than the answer:
   * what the API's hint names, asked for again so that every figure the
   * page offers is one the API computed. */
  function candidateChanges(body) {
    const workload = body.workload;
    const changes = [];
    if (isTraining(workload.task)) {
      if (workload.activation_checkpointing === 'full') changes.push({ activation_checkpointing: 'selective' });
      if (workload.activation_checkpointing !== 'none') changes.push({ activation_checkpointing: 'none' });
    }
    if (workload.precision === 'bf16') changes.push({ precision: 'fp16' });
    return changes;
  }

  /* When nothing is fast enough, as many instances as the form allows: the
   * answer says how many it takes (and those are the ones the API hints at
   * when it says to allow more). */
  function instancesChanges(result, body) {
    if (result.recommendations.length) return [];
    const most = Number(document.getElementById('w-instances').max);
    const now = body.assumptions?.max_instances ?? DEFAULT_MAX_INSTANCES;
    const late = result.rejected.some((r) => r.reason === 'misses_deadline' || r.reason === 'exceeds_max_rental');
    return late && now < most ? [{ max_instances: most }] : [];
  }

  /* When nothing fits, the limits the form has that ruled everything out:
   * asked again without the limit, the answer says what it would take. */
  function limitChanges(result, body) {
    if (result.recommendations.length) return [];
    const ruled = (reason) => result.rejected.some((r) => r.reason === reason);
    const changes = [];
    if (body.budget !== undefined && ruled('over_budget')) changes.push({ drop: 'budget' });
    if (body.deadline_days !== undefined && ruled('misses_deadline')) changes.push({ drop: 'deadline_days' });
    return changes;
  }

  function skuDisplayName(id) {
    return state.skus.get(id)?.name ?? id;
  }

  /* The offer's sentence and its button's words. */
  function offerWords(best, body, where) {
    const { change, top } = best;
    const days = oneDecimal(top.estimated_days);
    const training = Boolean(body.workload.tokens_b);
    if (change.drop === 'budget')
      return [training ? t('offer_budget_training', yuan(top.total), days, where) : t('offer_budget_rental', yuan(top.total), where), t('offer_budget_apply', yuan(top.total))];
    if (change.drop === 'deadline_days') return [t('offer_deadline', Math.ceil(top.estimated_days), days, yuan(top.total), where), t('offer_deadline_apply', Math.ceil(top.estimated_days))];
    if (change.max_instances) return [t('offer_instances', top.quantity, days, yuan(top.total), skuDisplayName(top.sku)), t('offer_instances_apply', top.quantity)];
    const sentence = training ? t('offer_training', changeWords(change), days, yuan(top.total), where) : t('offer_rental', changeWords(change), yuan(top.total), where);
    return [sentence, t('offer_apply')];
  }

  function changeWords(change) {
    if (change.precision) return t('offer_fp16');
    return t(`offer_ckpt_${change.activation_checkpointing}`);
  }

  /* The cheapest answer among `changes` that beats `now`, or null. */
  async function cheapestChange(changes, now) {
    let best = null;
    for (const change of changes) {
      const other = await api('/recommend', wizardBody(change)).catch(() => null);
      const top = other && other.recommendations[0];
      if (top && (!now || fen(top.total) < fen(now.total)) && (!best || fen(top.total) < fen(best.top.total))) best = { change, top };
    }
    return best;
  }

  /* A change that keeps every limit the customer gave comes before one
   * that gives a limit up, however much cheaper that would be. */
  async function offerBetterSetting(result, body) {
    const box = document.getElementById('wizard-hint');
    box.hidden = true;
    box.replaceChildren();
    if (!result.hint) return;
    const now = result.recommendations[0];
    const best = (await cheapestChange([...candidateChanges(body), ...instancesChanges(result, body)], now)) ?? (await cheapestChange(limitChanges(result, body), now));
    if (!best) {
      if (!now) {
        box.replaceChildren(element('p', {}, t('hint_none_fit')));
        box.hidden = false;
      }
      return;
    }
    const name = skuDisplayName(best.top.sku);
    const where = best.top.quantity > 1 ? `${name}（${t('w_instances', best.top.quantity)}）` : name;
    const [sentence, action] = offerWords(best, body, where);
    box.replaceChildren(element('p', {}, sentence), element('button', { type: 'button', class: 'secondary', onclick: () => applySetting(best.change, best.top) }, action));
    box.hidden = false;
  }

  async function applySetting(change, top) {
    if (change.drop === 'budget') document.getElementById('w-budget').value = top.total;
    if (change.drop === 'deadline_days') document.getElementById('w-deadline').value = String(Math.ceil(top.estimated_days));
    if (change.activation_checkpointing) document.getElementById('w-checkpointing').value = change.activation_checkpointing;
    if (change.precision) document.getElementById('w-precision').value = change.precision;
    if (change.max_instances) document.getElementById('w-instances').value = String(top.quantity);
    await recommend();
  }

  /* A recommendation in the page's words: the configuration, one
   * duration, the price, and why it fits. */
  function recommendationReasons(r, result, body) {
    const reasons = [t('w_fits', oneDecimal(r.memory_gb_needed), r.memory_gb_available, r.cards)];
    if (body.workload.tokens_b) {
      let line = t('w_finishes', oneDecimal(r.estimated_days));
      if (body.deadline_days) line += `${t('comma')}${t('w_within', body.deadline_days)}`;
      reasons.push(line);
    }
    return reasons;
  }

  function renderRecommendation(result, body) {
    const skuName = (id) => state.skus.get(id)?.name ?? id;
    const training = Boolean(body.workload.tokens_b);
    const items = result.recommendations.map((r) =>
      element(
        'li',
        { class: 'recommendation', dataset: { sku: r.sku } },
        element('h4', {}, element('span', { class: 'nowrap' }, skuName(r.sku)), r.quantity > 1 ? ` ${t('w_instances', r.quantity)}` : ''),
        element(
          'p',
          { class: 'price-line' },
          `${training ? modeName(r.billing) : t('w_rental', r.plan.summary)}${t('colon')}`,
          element('strong', { class: 'total' }, yuan(r.total)),
        ),
        element('ul', { class: 'reasons' }, recommendationReasons(r, result, body).map((reason) => element('li', {}, reason))),
      ),
    );
    document.getElementById('recommendations').replaceChildren(...(items.length ? items : [element('li', {}, t('none_recommended'))]));
    const needed = oneDecimal(result.estimate.memory_gb);
    document.getElementById('rejected').replaceChildren(
      ...result.rejected.map((r) => {
        const sku = state.skus.get(r.sku);
        const why = r.reason === 'insufficient_memory' && sku ? t('rej_insufficient_memory', needed, sku.total_memory_gb * r.quantity) : t(`rej_${r.reason}`);
        return element('li', { dataset: { sku: r.sku, reason: r.reason } }, element('strong', { class: 'nowrap' }, skuName(r.sku)), t('colon'), typeof why === 'string' ? why : t('rej_not_priced'));
      }),
    );
    document.getElementById('wizard-result').hidden = false;
  }

  /* ---- start ------------------------------------------------------------ */

  function restoreFromFragment() {
    const params = readFragment();
    const filters = document.getElementById('filters');
    for (const name of FILTERS) if (params.has(name)) filters.elements[name].value = params.get(name);
    for (const [key, id] of Object.entries(CALCULATOR)) if (params.has(key) && key !== 'sku') document.getElementById(id).value = params.get(key);
    const segment = document.getElementById('c-segment');
    if (!segment.value) segment.value = 'individual'; /* a link naming a type the page has not */
    return params;
  }

  function wireSections() {
    for (const link of document.querySelectorAll('a[data-section], a.skip')) {
      link.addEventListener('click', (event) => {
        event.preventDefault(); // the fragment holds the page's state, not a position
        const target = document.getElementById(link.dataset.section || 'main');
        target.scrollIntoView({ behavior: 'smooth', block: 'start' });
        const heading = target.querySelector('h2') || target;
        if (!heading.hasAttribute('tabindex')) heading.setAttribute('tabindex', '-1');
        heading.focus({ preventScroll: true });
      });
    }
  }

  async function start() {
    applyTexts();
    watchTexts();
    wireSections();
    for (const button of document.querySelectorAll('.languages button')) button.addEventListener('click', () => setLanguage(button.dataset.lang));
    document.getElementById('filters').addEventListener('submit', applyFilters);
    document.getElementById('f-reset').addEventListener('click', resetFilters);
    document.getElementById('calc').addEventListener('submit', compare);
    document.getElementById('save').addEventListener('click', save);
    document.getElementById('print').addEventListener('click', printQuotation);
    document.getElementById('save-print').addEventListener('click', saveAndPrint);
    document.getElementById('wiz').addEventListener('submit', recommend);
    document.getElementById('w-task').addEventListener('change', showCheckpointing);
    showCheckpointing();
    for (const th of document.querySelectorAll('#price-table th[data-sort]')) th.querySelector('button').addEventListener('click', () => sortBy(th.dataset.sort));
    document.getElementById('quote-title').setAttribute('tabindex', '-1');
    const params = restoreFromFragment();
    await loadCatalog();
    if (params.has('sku') && state.skus.has(params.get('sku'))) await compare();
    if (params.has('quote')) await showSavedQuote(params.get('quote'));
    document.body.dataset.ready = 'true';
  }

  start();
})();
