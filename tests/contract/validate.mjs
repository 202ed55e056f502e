#!/usr/bin/env node
/*
 * Contract check: validates logged gpuquote responses against openapi.yaml.
 *
 *   node tests/contract/validate.mjs [--spec FILE] [--require-headers] [--coverage] LOG.jsonl
 *   node tests/contract/validate.mjs [--spec FILE] --self-test
 *
 * Each line of LOG.jsonl is one exchange:
 *   {"method":"GET","path":"/catalog/v100-16g-x1","status":200,
 *    "headers":{"content-type":"application/json"},"body":<parsed JSON | null | string>}
 * `path` may carry a query string; `headers` is optional (names compared case-insensitively);
 * `body` is null (or "") for an empty body, parsed JSON for a JSON body, a string otherwise.
 *
 * For each line: find the path template (concrete paths before templated ones, as the server's
 * router does) and the operation for the method, then the response for the status, and validate
 * the body against that response's schema (OpenAPI 3.1 = JSON Schema 2020-12). Requests that
 * match no operation are judged by the spec's `x-unmatched-requests` (unknown path → 404,
 * unlisted method → 405). Documented response headers that are present are validated too, and
 * so are the spec's `x-every-response` headers, on every response; --require-headers also
 * insists on the ones marked required.
 *
 * Prints one line per failure and a summary ("contract: N passed, M failed"); exits 1 when any
 * line fails (an undocumented method/path/status included), 2 on a usage or spec error.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import YAML from 'yaml';

const HERE = dirname(fileURLToPath(import.meta.url));
const DEFAULT_SPEC = resolve(HERE, '..', '..', 'openapi.yaml');
const SPEC_ID = 'https://gpuquote.invalid/openapi.yaml';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/* ---- the spec --------------------------------------------------------------------------- */

function escapePointerSegment(segment) {
  return String(segment).replace(/~/g, '~0').replace(/\//g, '~1');
}

function pointerOf(segments) {
  return '#' + segments.map((s) => '/' + escapePointerSegment(s)).join('');
}

/* A JSON pointer as a URI fragment (ajv percent-decodes fragments). */
function fragmentOf(pointer) {
  return '#' + pointer.slice(1).split('/').map(encodeURIComponent).join('/');
}

function getPointer(document, pointer) {
  if (!pointer.startsWith('#')) throw new Error(`only local references are supported: ${pointer}`);
  let node = document;
  for (const raw of pointer.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !(key in node))
      throw new Error(`unresolvable reference ${pointer}`);
    node = node[key];
  }
  return node;
}

/* Follows $ref chains of non-schema objects (responses, headers). Returns {node, pointer}. */
function deref(document, node, pointer) {
  const seen = new Set();
  while (node && typeof node === 'object' && typeof node.$ref === 'string') {
    if (seen.has(node.$ref)) throw new Error(`reference cycle at ${node.$ref}`);
    seen.add(node.$ref);
    pointer = node.$ref;
    node = getPointer(document, pointer);
  }
  return { node, pointer };
}

function templateToRegExp(template) {
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => (/^\{[^}]+\}$/.test(part) ? '([^/]+)' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`);
}

/* Templates ordered as the server tries them: fewer parameters, then longer literals, first. */
function orderTemplates(paths) {
  return Object.keys(paths)
    .map((template) => ({
      template,
      regexp: templateToRegExp(template),
      params: (template.match(/\{[^}]+\}/g) || []).length,
      literal: template.replace(/\{[^}]+\}/g, '').length,
    }))
    .sort((a, b) => a.params - b.params || b.literal - a.literal);
}

function mediaTypeName(value) {
  return String(value || '').split(';')[0].trim().toLowerCase();
}

/* The Prometheus text exposition format 0.0.4, line by line: "# HELP name text", "# TYPE name
 * counter|gauge|histogram|summary|untyped", other comments, and samples
 * `name{label="value",...} value [timestamp]`; one TYPE per name, before its samples. Returns
 * the problems (at most a few). */
const METRIC_NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL_PAIR = '[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\[\\\\"n])*"';
const SAMPLE_LINE = new RegExp(
  `^(${METRIC_NAME})(?:\\{(?:${LABEL_PAIR}(?:,${LABEL_PAIR})*,?)?\\})? ` +
    '(?:[-+]?[0-9]*\\.?[0-9]+(?:[eE][-+]?[0-9]+)?|[-+]?Inf|NaN)(?: -?[0-9]+)?$',
);
const TYPE_LINE = new RegExp(`^# TYPE (${METRIC_NAME}) (counter|gauge|histogram|summary|untyped)$`);

function expositionProblems(text) {
  const problems = [];
  const typed = new Set();
  if (!text.endsWith('\n')) problems.push('the exposition does not end with a line break');
  for (const line of text.split('\n').slice(0, -1)) {
    if (problems.length >= 3) break;
    const type = TYPE_LINE.exec(line);
    if (type) {
      if (typed.has(type[1])) problems.push(`a second TYPE line for ${type[1]}`);
      typed.add(type[1]);
      continue;
    }
    if (line.startsWith('# TYPE')) problems.push(`a malformed TYPE line: ${line}`);
    else if (line.startsWith('#')) continue;
    else if (!SAMPLE_LINE.test(line)) problems.push(`not a sample line of the text format 0.0.4: ${line}`);
  }
  return problems;
}

function isJsonMediaType(name) {
  return name === 'application/json' || name.endsWith('+json');
}

function isEmptyBody(body) {
  return body === null || body === undefined || body === '';
}

function headerLookup(headers) {
  const map = new Map();
  if (headers && typeof headers === 'object')
    for (const [name, value] of Object.entries(headers)) map.set(name.toLowerCase(), value);
  return map;
}

function formatAjvErrors(errors) {
  return (errors || [])
    .map((e) => {
      const where = e.instancePath || '(root)';
      const extra =
        e.keyword === 'additionalProperties'
          ? ` '${e.params.additionalProperty}'`
          : e.keyword === 'enum' || e.keyword === 'const'
            ? ` ${JSON.stringify(e.params.allowedValues ?? e.params.allowedValue)}`
            : '';
      return `${where} ${e.message}${extra} [${e.schemaPath.replace(SPEC_ID, '')}]`;
    })
    .join('; ');
}

export function createValidator(spec, options = {}) {
  if (!spec || typeof spec !== 'object' || !String(spec.openapi || '').startsWith('3.1'))
    throw new Error('the spec is not an OpenAPI 3.1 document');
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema({ ...spec, $id: SPEC_ID }, undefined, undefined, false);
  const compiled = new Map();
  const validatorAt = (pointer) => {
    if (!compiled.has(pointer)) compiled.set(pointer, ajv.compile({ $ref: SPEC_ID + fragmentOf(pointer) }));
    return compiled.get(pointer);
  };
  const templates = orderTemplates(spec.paths || {});
  const unmatched = spec['x-unmatched-requests'] || {};
  const everyResponse = spec['x-every-response'] || {};
  const requireHeaders = Boolean(options.requireHeaders);

  /* Where a request lands: {kind, template, method, responses, responsesPointer}. */
  function route(method, path) {
    const lower = method.toLowerCase();
    const matching = templates.filter((t) => t.regexp.test(path));
    if (matching.length === 0)
      return {
        kind: 'unknown-path',
        responses: unmatched['unknown-path'] || {},
        responsesPointer: pointerOf(['x-unmatched-requests', 'unknown-path']),
      };
    for (const t of matching) {
      const operation = spec.paths[t.template][lower];
      if (METHODS.includes(lower) && operation)
        return {
          kind: 'operation',
          template: t.template,
          responses: operation.responses || {},
          responsesPointer: pointerOf(['paths', t.template, lower, 'responses']),
        };
    }
    return {
      kind: 'unlisted-method',
      template: matching[0].template,
      responses: unmatched['unlisted-method'] || {},
      responsesPointer: pointerOf(['x-unmatched-requests', 'unlisted-method']),
    };
  }

  function responseFor(responses, status) {
    const exact = String(status);
    if (exact in responses) return exact;
    const range = `${exact[0]}XX`;
    if (range in responses) return range;
    if ('default' in responses) return 'default';
    return null;
  }

  function checkHeaders(response, responsePointer, headers, problems) {
    for (const [name, declared] of Object.entries(response.headers || {})) {
      const { node: header, pointer } = deref(spec, declared, `${responsePointer}/headers/${escapePointerSegment(name)}`);
      const value = headers.get(name.toLowerCase());
      if (value === undefined) {
        if (requireHeaders && header.required) problems.push(`missing header ${name}`);
        continue;
      }
      if (header.schema) {
        const validate = validatorAt(`${pointer}/schema`);
        if (!validate(String(value)))
          problems.push(`header ${name}: ${JSON.stringify(value)}: ${formatAjvErrors(validate.errors)}`);
      }
    }
  }

  function checkBody(response, responsePointer, method, status, headers, body, problems) {
    if (method.toUpperCase() === 'HEAD') {
      if (!isEmptyBody(body)) problems.push('a HEAD response must have no body');
      return;
    }
    const content = response.content || {};
    const mediaTypes = Object.keys(content);
    if (mediaTypes.length === 0) {
      if (!isEmptyBody(body)) problems.push(`status ${status} documents no body, got one`);
      return;
    }
    if (isEmptyBody(body)) {
      if (!response['x-empty-body-allowed']) problems.push(`status ${status} documents a body, got none`);
      return;
    }
    const declared = mediaTypeName(headers.get('content-type'));
    let mediaType;
    if (declared) {
      mediaType = mediaTypes.find((m) => m.toLowerCase() === declared);
      if (!mediaType) {
        problems.push(`content-type ${declared} is not documented (documented: ${mediaTypes.join(', ')})`);
        return;
      }
    } else {
      mediaType = mediaTypes[0];
    }
    let value = body;
    if (isJsonMediaType(mediaType.toLowerCase()) && typeof body === 'string') {
      try {
        value = JSON.parse(body);
      } catch (error) {
        problems.push(`the body is not JSON: ${error.message}`);
        return;
      }
    }
    if (/yaml/.test(mediaType.toLowerCase()) && typeof value === 'string') {
      try {
        YAML.parse(value);
      } catch (error) {
        problems.push(`the body is not YAML: ${error.message}`);
        return;
      }
    }
    if (/version=0\.0\.4/.test(String(headers.get('content-type') || '')) && typeof value === 'string')
      problems.push(...expositionProblems(value));
    if (!content[mediaType] || !content[mediaType].schema) return;
    const validate = validatorAt(`${responsePointer}/content/${escapePointerSegment(mediaType)}/schema`);
    if (!validate(value)) problems.push(formatAjvErrors(validate.errors));
  }

  /* Returns the problems of one logged exchange; [] when it conforms. */
  function check(entry) {
    const problems = [];
    if (!entry || typeof entry !== 'object') return ['the line is not a JSON object'];
    const { method, path, status } = entry;
    if (typeof method !== 'string' || !method) problems.push('"method" must be a non-empty string');
    if (typeof path !== 'string' || !path.startsWith('/')) problems.push('"path" must be a string starting with /');
    const code = Number(status);
    if (!Number.isInteger(code) || code < 100 || code > 599) problems.push('"status" must be an HTTP status code');
    if (problems.length) return problems;
    const pathOnly = path.split('?')[0].split('#')[0];
    const landing = route(method, pathOnly);
    const key = responseFor(landing.responses, code);
    if (key === null) {
      const where =
        landing.kind === 'operation'
          ? `${method.toUpperCase()} ${landing.template}`
          : landing.kind === 'unknown-path'
            ? 'a path the spec does not list'
            : `${method.toUpperCase()} on ${landing.template} (a method the path does not list)`;
      const documented = Object.keys(landing.responses).join(', ') || 'none';
      return [`status ${code} is not documented for ${where} (documented: ${documented})`];
    }
    const { node: response, pointer } = deref(spec, landing.responses[key], `${landing.responsesPointer}/${escapePointerSegment(key)}`);
    const headers = headerLookup(entry.headers);
    checkHeaders(response, pointer, headers, problems);
    checkHeaders(everyResponse, pointerOf(['x-every-response']), headers, problems);
    checkBody(response, pointer, method, code, headers, entry.body, problems);
    return problems;
  }

  /* Every documented (method, template, status), for --coverage. */
  function documented() {
    const list = [];
    for (const [template, item] of Object.entries(spec.paths || {}))
      for (const method of METHODS)
        if (item[method]) for (const status of Object.keys(item[method].responses || {})) list.push({ method: method.toUpperCase(), template, status });
    return list;
  }

  return { check, route, responseFor, documented, validatorAt };
}

/* ---- the log ------------------------------------------------------------------------------- */

function describe(entry) {
  if (!entry || typeof entry !== 'object') return '?';
  return `${String(entry.method || '?').toUpperCase()} ${entry.path ?? '?'} ${entry.status ?? '?'}`;
}

function validateLog(validator, text, { coverage } = {}) {
  let passed = 0;
  let failed = 0;
  const seen = new Set();
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (!line) return;
    let entry;
    try {
      entry = JSON.parse(line);
    } catch (error) {
      failed++;
      console.log(`line ${index + 1}: not JSON: ${error.message}`);
      return;
    }
    const problems = validator.check(entry);
    if (problems.length) {
      failed++;
      console.log(`line ${index + 1}: ${describe(entry)}: ${problems.join(' | ')}`);
    } else {
      passed++;
      const landing = validator.route(String(entry.method), String(entry.path).split('?')[0]);
      if (landing.kind === 'operation') {
        const key = validator.responseFor(landing.responses, Number(entry.status));
        seen.add(`${String(entry.method).toUpperCase()} ${landing.template} ${key}`);
      }
    }
  });
  if (coverage) {
    const missing = validator.documented().filter((d) => !seen.has(`${d.method} ${d.template} ${d.status}`));
    console.log(`coverage: ${validator.documented().length - missing.length} of ${validator.documented().length} documented responses seen`);
    for (const d of missing) console.log(`  not seen: ${d.method} ${d.template} ${d.status}`);
  }
  return { passed, failed };
}

/* ---- self-test ----------------------------------------------------------------------------- */

const SKU = {
  id: 'v100-16g-x1',
  name: 'V100 16GB × 1',
  description: 'One NVIDIA V100 with 16 GB of HBM2.',
  available: true,
  gpu: { model: 'V100', memory_gb: 16, memory_type: 'HBM2', fp16_tflops: 125.0, fp32_tflops: 15.7, bf16_tflops: null, memory_bandwidth_gbps: 900, tdp_watts: 300, compute_capability: 7.0 },
  gpu_count: 1,
  total_memory_gb: 16,
  total_fp16_tflops: 125.0,
  interconnect: 'none',
  prices: {
    on_demand: { amount: '2.28', per: 'hour' },
    monthly: { amount: '1231.00', per: 'month', hourly_equivalent: '1.71' },
    quarterly: { amount: '3305.00', per: 'quarter', hourly_equivalent: '1.53' },
    student: { amount: '1.50', per: 'hour', eligible_segments: ['student'] },
  },
};
const JSON_HEADERS = { 'content-type': 'application/json' };
const ETAG = '"f587481f7f314fd67a3ae2e8a87cd875"';

function clone(value) {
  return JSON.parse(JSON.stringify(value));
}

function exampleValue(spec, example) {
  return deref(spec, example, '#').node.value;
}

function selfTestSamples(spec) {
  const saved = exampleValue(spec, spec.components.examples.SavedDigestQuote);
  const unsaved = exampleValue(spec, spec.components.examples.UnsavedMonthlyQuote);
  const recommendation = exampleValue(spec, spec.components.examples.FinetuneRecommendation);
  const err = (code, message, field) => ({ error: field ? { code, message, field } : { code, message } });
  const good = [
    ['catalog SKU', { method: 'GET', path: '/catalog/v100-16g-x1', status: 200, headers: { ...JSON_HEADERS, ETag: ETAG, 'Cache-Control': 'public, max-age=60' }, body: SKU }],
    ['filtered listing', { method: 'GET', path: '/catalog?gpu=v100&sort=-price', status: 200, headers: JSON_HEADERS, body: { currency: 'CNY', price_list_version: 1, skus: [SKU] } }],
    ['billing-modes is not a SKU id', { method: 'GET', path: '/catalog/billing-modes', status: 200, headers: JSON_HEADERS, body: { billing_modes: [] } }],
    ['304 without body', { method: 'GET', path: '/catalog', status: 304, headers: { ETag: ETAG }, body: null }],
    ['HEAD without body', { method: 'HEAD', path: '/catalog/v100-16g-x1', status: 200, headers: JSON_HEADERS, body: null }],
    ['bad query parameter', { method: 'GET', path: '/catalog?sort=cost', status: 400, headers: JSON_HEADERS, body: err('invalid_parameter', 'sort must be …', 'sort') }],
    ['saved quote', { method: 'POST', path: '/quote', status: 201, headers: { ...JSON_HEADERS, Location: `/quote/${saved.id}` }, body: saved }],
    ['replayed quote', { method: 'POST', path: '/quote', status: 201, headers: { ...JSON_HEADERS, 'Idempotent-Replayed': 'true' }, body: { ...clone(saved), status: 'accepted', accepted_at: '2026-11-30T18:04:04Z' } }],
    ['unsaved quote', { method: 'POST', path: '/quote', status: 200, headers: JSON_HEADERS, body: unsaved }],
    ['stored quote', { method: 'GET', path: `/quote/${saved.id}`, status: 200, headers: JSON_HEADERS, body: saved }],
    ['accepted quote', { method: 'POST', path: `/quote/${saved.id}/accept`, status: 200, headers: JSON_HEADERS, body: { ...clone(saved), status: 'accepted', accepted_at: '2026-11-30T18:04:04Z' } }],
    ['unknown SKU in a quote', { method: 'POST', path: '/quote', status: 422, headers: JSON_HEADERS, body: err('unknown_sku', "no SKU 'x9'", 'items[0].sku') }],
    ['expired quote', { method: 'POST', path: `/quote/${saved.id}/accept`, status: 409, headers: JSON_HEADERS, body: { error: { code: 'quote_expired', message: 'expired', state: 'expired' } } }],
    ['recommendation', { method: 'POST', path: '/recommend', status: 200, headers: JSON_HEADERS, body: recommendation }],
    ['JSON body given as text', { method: 'GET', path: '/healthz', status: 200, headers: JSON_HEADERS, body: '{"status":"ok","version":"0.1.0"}' }],
    ['busy database', { method: 'GET', path: `/quote/${saved.id}`, status: 503, headers: { ...JSON_HEADERS, 'Retry-After': '1' }, body: err('retry_later', 'database is busy, retry') }],
    ['unknown path', { method: 'GET', path: '/nope', status: 404, headers: JSON_HEADERS, body: err('not_found', 'no resource at /nope') }],
    ['unlisted method', { method: 'DELETE', path: '/catalog', status: 405, headers: { ...JSON_HEADERS, Allow: 'GET, HEAD, OPTIONS' }, body: err('method_not_allowed', 'DELETE is not allowed here') }],
    ['HEAD on a POST-only path', { method: 'HEAD', path: '/recommend', status: 405, headers: { Allow: 'POST, OPTIONS' }, body: null }],
    ['preflight', { method: 'OPTIONS', path: '/quote', status: 204, headers: { Allow: 'POST, OPTIONS', 'X-Request-Id': 'storefront-7f3a:42' }, body: null }],
    ['contract as YAML', { method: 'GET', path: '/openapi.yaml', status: 200, headers: { 'content-type': 'application/yaml' }, body: 'openapi: 3.1.0\n' }],
    ['metrics', { method: 'GET', path: '/metrics', status: 200, headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }, body: '# HELP a_total A.\n# TYPE a_total counter\na_total{route="/quote/{id}",status="200"} 3\nb_bucket{le="+Inf"} 1.5e-05\n' }],
    ['metrics without a key', { method: 'GET', path: '/metrics', status: 401, headers: { ...JSON_HEADERS, 'WWW-Authenticate': 'Bearer realm="gpuquote"' }, body: err('unauthenticated', 'this call needs an API key', 'Authorization') }],
    ['out-of-memory 500', { method: 'POST', path: '/recommend', status: 500, headers: {}, body: { error: { code: 'internal_error', message: 'the server ran out of memory' } } }],
  ];
  const broken = (mutate, base) => {
    const copy = clone(base);
    mutate(copy);
    return copy;
  };
  const bad = [
    ['a 500 without the envelope', { method: 'POST', path: '/recommend', status: 500, headers: {}, body: null }],
    ['money with one decimal', { method: 'GET', path: '/catalog/v100-16g-x1', status: 200, headers: JSON_HEADERS, body: broken((s) => (s.prices.on_demand.amount = '2.3'), SKU) }],
    ['money as a number', { method: 'POST', path: '/quote', status: 201, headers: JSON_HEADERS, body: broken((q) => (q.total = 1641.6), saved) }],
    ['undocumented field', { method: 'GET', path: '/catalog/v100-16g-x1', status: 200, headers: JSON_HEADERS, body: { ...SKU, colour: 'green' } }],
    ['missing field', { method: 'POST', path: '/quote', status: 201, headers: JSON_HEADERS, body: broken((q) => delete q.items[0].cheapest.saving, saved) }],
    ['unsaved quote with an id', { method: 'POST', path: '/quote', status: 200, headers: JSON_HEADERS, body: { ...clone(unsaved), id: saved.id } }],
    ['saved quote without expires_at', { method: 'POST', path: '/quote', status: 201, headers: JSON_HEADERS, body: broken((q) => delete q.expires_at, saved) }],
    ['accepted without accepted_at', { method: 'GET', path: `/quote/${saved.id}`, status: 200, headers: JSON_HEADERS, body: { ...clone(saved), status: 'accepted' } }],
    ['fractional months', { method: 'POST', path: '/quote', status: 200, headers: JSON_HEADERS, body: broken((q) => (q.items[0].plan.parts[0].units = 2.5), unsaved) }],
    ['error code of another status', { method: 'GET', path: '/catalog/x9', status: 404, headers: JSON_HEADERS, body: err('invalid_parameter', 'no SKU', 'id') }],
    ['error code that does not exist', { method: 'POST', path: '/quote', status: 422, headers: JSON_HEADERS, body: err('bad_thing', 'no') }],
    ['error without message', { method: 'POST', path: '/recommend', status: 422, headers: JSON_HEADERS, body: { error: { code: 'missing_field' } } }],
    ['undocumented status', { method: 'GET', path: '/healthz', status: 201, headers: JSON_HEADERS, body: { status: 'ok', version: '0.1.0' } }],
    ['200 on an unknown path', { method: 'GET', path: '/nope', status: 200, headers: JSON_HEADERS, body: {} }],
    ['404 for a wrong method', { method: 'DELETE', path: '/catalog', status: 404, headers: JSON_HEADERS, body: err('not_found', 'x') }],
    ['409 on recommend', { method: 'POST', path: '/recommend', status: 409, headers: JSON_HEADERS, body: err('idempotency_conflict', 'x') }],
    ['304 with a body', { method: 'GET', path: '/catalog', status: 304, headers: JSON_HEADERS, body: { currency: 'CNY' } }],
    ['HEAD with a body', { method: 'HEAD', path: '/healthz', status: 200, headers: JSON_HEADERS, body: { status: 'ok', version: '0.1.0' } }],
    ['undocumented content type', { method: 'GET', path: '/healthz', status: 200, headers: { 'content-type': 'text/html' }, body: '<p>ok</p>' }],
    ['empty body where one is documented', { method: 'GET', path: '/healthz', status: 200, headers: JSON_HEADERS, body: null }],
    ['text that is not JSON', { method: 'GET', path: '/readyz', status: 200, headers: JSON_HEADERS, body: 'ready' }],
    ['bad X-Request-Id header', { method: 'GET', path: '/healthz', status: 200, headers: { ...JSON_HEADERS, 'X-Request-Id': 'two words' }, body: { status: 'ok', version: '0.1.0' } }],
    ['bad ETag header', { method: 'GET', path: '/catalog/v100-16g-x1', status: 200, headers: { ...JSON_HEADERS, ETag: 'abc' }, body: SKU }],
    ['no recommendation and no hint', { method: 'POST', path: '/recommend', status: 200, headers: JSON_HEADERS, body: (() => { const body = clone(recommendation); body.recommendations = []; delete body.hint; return body; })() }],
    ['an assumption v2 replaced', { method: 'POST', path: '/recommend', status: 200, headers: JSON_HEADERS, body: (() => { const body = clone(recommendation); body.estimate.assumptions.kv_cache_allowance = 0.2; return body; })() }],
    ['bad date', { method: 'POST', path: '/quote', status: 200, headers: JSON_HEADERS, body: { ...clone(unsaved), created_at: 'yesterday' } }],
    ['metrics sample without a value', { method: 'GET', path: '/metrics', status: 200, headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }, body: '# TYPE a_total counter\na_total{route="/catalog"}\n' }],
    ['metrics label unquoted', { method: 'GET', path: '/metrics', status: 200, headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }, body: 'a_total{route=/catalog} 1\n' }],
    ['metrics typed twice', { method: 'GET', path: '/metrics', status: 200, headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }, body: '# TYPE a gauge\n# TYPE a gauge\na 1\n' }],
    ['line without status', { method: 'GET', path: '/healthz', body: null }],
  ];
  return { good, bad };
}

/* Every named example of a response in the spec is also a sample that must pass. */
function exampleSamples(spec) {
  const samples = [];
  const statusesOf = (path, method) => Object.entries(spec.paths[path][method].responses || {});
  for (const path of Object.keys(spec.paths || {}))
    for (const method of METHODS) {
      if (!spec.paths[path][method] || method === 'head') continue;
      for (const [status, declared] of statusesOf(path, method)) {
        const { node: response } = deref(spec, declared, '#');
        for (const [mediaType, media] of Object.entries(response.content || {}))
          for (const [name, example] of Object.entries(media.examples || {})) {
            const concrete = path.replace('{id}', path.startsWith('/quote') ? 'q_faf44c274fed10500d1259aa25a0f9e1' : 'v100-16g-x1');
            samples.push([`example ${name} of ${method.toUpperCase()} ${path} ${status}`, { method: method.toUpperCase(), path: concrete, status: Number(status), headers: { 'content-type': mediaType }, body: exampleValue(spec, example) }]);
          }
      }
    }
  return samples;
}

function selfTest(spec) {
  const validator = createValidator(spec);
  const { good, bad } = selfTestSamples(spec);
  let passed = 0;
  let failed = 0;
  for (const [name, entry] of [...good, ...exampleSamples(spec)]) {
    const problems = validator.check(entry);
    if (problems.length === 0) passed++;
    else {
      failed++;
      console.log(`self-test: good sample "${name}" was refused: ${problems.join(' | ')}`);
    }
  }
  for (const [name, entry] of bad) {
    const problems = validator.check(entry);
    if (problems.length > 0) {
      passed++;
      if (process.env.CONTRACT_VERBOSE) console.log(`self-test: bad sample "${name}" refused: ${problems.join(' | ')}`);
    } else {
      failed++;
      console.log(`self-test: bad sample "${name}" was accepted`);
    }
  }
  return { passed, failed };
}

/* ---- main ---------------------------------------------------------------------------------- */

function usage(message) {
  if (message) console.error(`validate.mjs: ${message}`);
  console.error('usage: node validate.mjs [--spec openapi.yaml] [--require-headers] [--coverage] LOG.jsonl');
  console.error('       node validate.mjs [--spec openapi.yaml] --self-test');
  process.exit(2);
}

function main(argv) {
  let specPath = DEFAULT_SPEC;
  let logPath = null;
  let selfTesting = false;
  let requireHeaders = false;
  let coverage = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--self-test') selfTesting = true;
    else if (arg === '--require-headers') requireHeaders = true;
    else if (arg === '--coverage') coverage = true;
    else if (arg === '--spec') specPath = argv[++i] ?? usage('--spec needs a file');
    else if (arg.startsWith('--spec=')) specPath = arg.slice('--spec='.length);
    else if (arg === '-h' || arg === '--help') usage();
    else if (arg.startsWith('-')) usage(`unknown option ${arg}`);
    else if (logPath === null) logPath = arg;
    else usage('one log file at a time');
  }
  if (!selfTesting && logPath === null) usage('no log file given');

  let spec;
  try {
    spec = YAML.parse(readFileSync(specPath, 'utf8'));
    createValidator(spec);
  } catch (error) {
    console.error(`validate.mjs: cannot use ${specPath}: ${error.message}`);
    process.exit(2);
  }

  let result;
  if (selfTesting) {
    result = selfTest(spec);
  } else {
    let text;
    try {
      text = readFileSync(logPath, 'utf8');
    } catch (error) {
      console.error(`validate.mjs: cannot read ${logPath}: ${error.message}`);
      process.exit(2);
    }
    result = validateLog(createValidator(spec, { requireHeaders }), text, { coverage });
  }
  console.log(`contract: ${result.passed} passed, ${result.failed} failed`);
  process.exit(result.failed > 0 ? 1 : 0);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
