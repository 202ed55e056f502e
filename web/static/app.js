/*
 * The storefront page. It talks to the public API only (GET /catalog...,
 * POST /quote, GET /quote/{id}, POST /recommend), so the same files work
 * served by gpuquote itself or from another origin through CORS (the API's
 * address is the <meta name="gpuquote-api"> of index.html).
 *
 * The page never computes money: every amount shown is one the API
 * returned, only written with thousands separators. The chart's points are
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

  const state = {
    language: chooseLanguage(),
    skus: new Map(), // id -> SKU, every SKU, in the page's language
    modes: new Map(), // id -> billing mode
    quote: null, // the last unsaved comparison, for saving and redrawing
    request: null, // its POST /quote body
    saved: null, // the last saved quote, shown as a quotation
    recommendation: null,
    chart: null,
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
      const error = json && json.error;
      throw new ApiError(error ? error.message : `HTTP ${response.status}`, error && error.code, error && error.field);
    }
    return json;
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

  function modeName(id) {
    if (id === 'mixed') return t('mixed');
    return state.modes.get(id)?.name ?? id;
  }

  function perUnit(per) {
    return t(`per_${per}`);
  }

  function localTime(iso) {
    const date = new Date(iso);
    if (Number.isNaN(date.getTime())) return iso;
    return date.toLocaleString(state.language, { dateStyle: 'long', timeStyle: 'short' });
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
      [t('host'), `${t('vcpus', facts.vcpus)}, ${t('gib', facts.memory_gib)}`],
      [t('disk'), `${facts.system_disk_gb} GB`],
      [t('bandwidth'), `${facts.bandwidth_gbps} Gbit/s`],
      [t('region'), facts.region.name],
      [t('instance_type'), element('code', {}, facts.instance_type)],
      [t('provisioning'), t('provisioning_value', facts.provisioning_minutes.min, facts.provisioning_minutes.max, facts.provisioning_minutes.average)],
      [t('software'), facts.software.join(', ')],
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
      const note = price.eligible_segments ? t('students_only') : price.hourly_equivalent ? `≈ ${yuan(price.hourly_equivalent)}${t('per_hour')}` : '';
      return element(
        'tr',
        { class: 'price', dataset: { mode } },
        element('th', { scope: 'row' }, modeName(mode)),
        element('td', { class: 'num' }, element('span', { class: 'amount' }, yuan(price.amount)), element('span', { class: 'per' }, perUnit(price.per))),
        element('td', { class: 'note' }, note),
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
        element('h3', { id: titleId }, sku.name, element('span', { class: available ? 'badge ok' : 'badge out' }, available ? t('available') : t('sold_out'))),
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
      const shown = query.toString() ? await api(`/catalog?${query}`) : all;
      const list = document.getElementById('catalog-list');
      list.replaceChildren(...shown.skus.map(renderSku));
      document.getElementById('catalog-count').textContent = shown.skus.length ? t('count', shown.skus.length) : t('none_match');
      fillSkuChoices();
      setStatus('');
    } catch (error) {
      setStatus(error.message);
    }
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

  function priceThis(id) {
    document.getElementById('c-sku').value = id;
    document.getElementById('calculator').scrollIntoView({ behavior: 'smooth', block: 'start' });
    document.getElementById('c-quantity').focus({ preventScroll: true });
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
    writeFragment({ sku: usage.sku, quantity: usage.quantity, hours: usage.hours_per_day, days: usage.days, segment: usage.segment });
    const body = comparisonBody(usage);
    try {
      const quote = await api('/quote', body);
      state.quote = quote;
      state.request = body;
      renderComparison(quote);
    } catch (error) {
      document.getElementById('calc-result').hidden = true;
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
        element('td', {}, option.plan.summary),
        element('td', { class: 'num total' }, yuan(option.total)),
      ),
    );
    document.querySelector('#calc-options tbody').replaceChildren(...rows);
    const saving = item.cheapest.saving;
    document.getElementById('calc-cheapest').replaceChildren(
      element('p', {}, element('strong', {}, `${t('cheapest')}: `), element('span', { class: 'plan', dataset: { mode: item.cheapest.billing } }, item.cheapest.plan.summary), ' — ', element('span', { class: 'total' }, yuan(item.cheapest.total))),
      element('p', { class: 'saving' }, /^0\.00$/.test(saving) ? t('no_saving') : t('saving', yuan(saving))),
    );
    document.getElementById('calc-result').hidden = false;
    renderBreakEven(item);
    renderChart(quote);
  }

  function renderBreakEven(item) {
    const marks = Object.entries(item.break_even_hours_per_day || {});
    document.getElementById('break-even').replaceChildren(
      ...marks.map(([mode, hours]) =>
        element('li', { dataset: { mode, hours: hours.toFixed(1) } }, hours > 24 ? t('break_even_never', modeName(mode)) : t('break_even', modeName(mode), hours.toFixed(1))),
      ),
    );
  }

  function chartSeries(quote) {
    const points = quote.items.slice(1);
    const modes = MODE_ORDER.filter((mode) => points[0].options.some((o) => o.billing === mode));
    const breakEven = quote.items[0].break_even_hours_per_day || {};
    return modes.map((mode) => {
      const series = {
        name: modeName(mode),
        type: 'line',
        showSymbol: false,
        color: CHART_COLOURS[mode],
        data: points.map((item) => [item.hours_per_day, Number(item.options.find((o) => o.billing === mode).total)]),
      };
      if (breakEven[mode] !== undefined && breakEven[mode] <= 24)
        series.markLine = {
          symbol: 'none',
          silent: true,
          label: { formatter: `${breakEven[mode].toFixed(1)} h`, color: CHART_COLOURS[mode] },
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
      window.addEventListener('resize', () => state.chart && state.chart.resize());
    }
    state.chart.setOption(
      {
        aria: { enabled: true },
        animation: false,
        grid: { left: 8, right: 16, top: 40, bottom: 36, containLabel: true },
        legend: { top: 0 },
        tooltip: { trigger: 'axis', valueFormatter: (value) => yuan(Number(value).toFixed(2)) },
        xAxis: { type: 'value', min: 0, max: 24, interval: 4, name: t('chart_x'), nameLocation: 'middle', nameGap: 24 },
        yAxis: { type: 'value', name: t('chart_y') },
        series: chartSeries(quote),
      },
      true,
    );
  }

  /* ---- saving, and the quotation ---------------------------------------- */

  async function save() {
    showError('save-error', null);
    if (!state.request) return;
    const body = { ...state.request, items: [state.request.items[0]], save: true };
    try {
      const quote = await api('/quote', body);
      writeFragment({ quote: quote.id });
      renderQuotation(quote);
      setStatus(t('saved', quote.id));
      document.getElementById('quote-title').focus();
    } catch (error) {
      showError('save-error', error);
    }
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
        element('td', {}, skuName(item.sku)),
        element('td', { class: 'num' }, String(item.quantity)),
        element('td', {}, t('q_usage_value', item.hours_per_day, item.days)),
        element('td', {}, `${modeName(item.plan.parts.length > 1 ? 'mixed' : item.plan.parts[0].billing)}: ${item.plan.summary}`),
        element('td', { class: 'num' }, yuan(item.total)),
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
        element('a', { class: 'quote-pdf', href: `${API}/quote/${encodeURIComponent(quote.id)}/pdf?lang=${state.language}`, download: `${quote.id}.pdf` }, t('q_pdf')),
        ' ',
        element('a', { href: link }, t('q_link')),
      ),
    );
    document.getElementById('quote').hidden = false;
  }

  /* ---- the wizard -------------------------------------------------------- */

  function wizardBody() {
    const value = (id) => document.getElementById(id).value.trim();
    const workload = { task: value('w-task'), model_params_b: Number(value('w-params')), precision: value('w-precision') };
    if (value('w-tokens') !== '') workload.tokens_b = Number(value('w-tokens'));
    const body = { workload, customer: { segment: value('w-segment') } };
    if (value('w-deadline') !== '') body.deadline_days = Number(value('w-deadline'));
    if (value('w-budget') !== '') body.budget = Number(value('w-budget')).toFixed(2);
    return body;
  }

  async function recommend(event) {
    if (event) event.preventDefault();
    showError('wizard-error', null);
    try {
      const result = await api('/recommend', wizardBody());
      state.recommendation = result;
      renderRecommendation(result);
    } catch (error) {
      document.getElementById('wizard-result').hidden = true;
      showError('wizard-error', error);
    }
  }

  function renderRecommendation(result) {
    const skuName = (id) => state.skus.get(id)?.name ?? id;
    const items = result.recommendations.map((r) =>
      element(
        'li',
        { class: 'recommendation', dataset: { sku: r.sku } },
        element('h4', {}, `${t('rank', r.rank)} ${skuName(r.sku)} ${t('instances', r.quantity)}`),
        element('p', {}, `${modeName(r.billing)}: ${r.plan.summary} — `, element('strong', {}, yuan(r.total)), r.estimated_days ? ` (${t('estimated_days', r.estimated_days)})` : ''),
        element('ul', { class: 'reasons' }, r.reasons.map((reason) => element('li', {}, reason))),
      ),
    );
    document.getElementById('recommendations').replaceChildren(...(items.length ? items : [element('li', {}, t('none_recommended'))]));
    document.getElementById('rejected').replaceChildren(...result.rejected.map((r) => element('li', { dataset: { sku: r.sku } }, element('strong', {}, `${skuName(r.sku)} ${t('instances', r.quantity)}: `), r.detail)));
    document.getElementById('wizard-hint').textContent = result.hint || '';
    document.getElementById('wizard-result').hidden = false;
  }

  /* ---- start ------------------------------------------------------------ */

  function restoreFromFragment() {
    const params = readFragment();
    const filters = document.getElementById('filters');
    for (const name of FILTERS) if (params.has(name)) filters.elements[name].value = params.get(name);
    for (const [key, id] of Object.entries(CALCULATOR)) if (params.has(key) && key !== 'sku') document.getElementById(id).value = params.get(key);
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
    if (API) for (const link of document.querySelectorAll('a[href="/openapi.yaml"]')) link.href = `${API}/openapi.yaml`;
    wireSections();
    for (const button of document.querySelectorAll('.languages button')) button.addEventListener('click', () => setLanguage(button.dataset.lang));
    document.getElementById('filters').addEventListener('submit', applyFilters);
    document.getElementById('f-reset').addEventListener('click', resetFilters);
    document.getElementById('calc').addEventListener('submit', compare);
    document.getElementById('save').addEventListener('click', save);
    document.getElementById('print').addEventListener('click', () => window.print());
    document.getElementById('wiz').addEventListener('submit', recommend);
    document.getElementById('quote-title').setAttribute('tabindex', '-1');
    const params = restoreFromFragment();
    await loadCatalog();
    if (params.has('sku') && state.skus.has(params.get('sku'))) await compare();
    if (params.has('quote')) await showSavedQuote(params.get('quote'));
    document.body.dataset.ready = 'true';
  }

  start();
})();
