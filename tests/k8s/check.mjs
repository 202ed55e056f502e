#!/usr/bin/env node
/*
 * Kubernetes manifests check: every manifest of deploy/kubernetes/ against the Kubernetes API's
 * schemas, offline, then the rules gpuquote's deployment must keep.
 *
 *   node tests/k8s/check.mjs [DIR]         (default: deploy/kubernetes)
 *   node tests/k8s/check.mjs --self-test   (broken manifests must each be refused)
 *
 * Schemas: kubernetes-models (its validators are generated from the API's OpenAPI documents of
 * Kubernetes 1.33). Those schemas allow unknown fields, which `kubectl apply` refuses (strict
 * field validation, its default since 1.27): each document is validated through a proxy that
 * records which fields the validator reads, and a field it never read is one no schema knows.
 * YAML is read as YAML 1.1, as kubectl reads it (`yes` is a boolean, not a string).
 *
 * Rules (rules(), below): replicas, probes, the securityContext, enableServiceLinks, the stop
 * budget (terminationGracePeriodSeconds against the preStop pause and shutdown_grace_seconds),
 * the database DSN from a Secret, auto_migrate off in the Deployment, the Job running
 * `gpuquote migrate`, configuration keys that exist (config/gpuquote.json), selectors, the
 * kustomization's list. The image's user and entrypoint come from the Dockerfile.
 *
 * Prints one line per problem and a summary ("k8s: N passed, M failed"); exits 1 when anything
 * fails, 2 on a usage error. --self-test prints "k8s self-test: N passed, M failed", where a
 * pass is a broken manifest refused for the expected reason.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import YAML from 'yaml';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..', '..');
const DEFAULT_DIR = join(ROOT, 'deploy', 'kubernetes');
const BROKEN = join(HERE, 'broken.yaml');
const KUSTOMIZE_API = 'kustomize.config.k8s.io/v1beta1';
/* After the grace, the server has up to this long to send the answers of committed quotes
 * (docs/operations.md, Configuration: signals). */
const ANSWER_SECONDS = 2;

/* ---- reading ----------------------------------------------------------------------------- */

/* The documents of one YAML text: [{where, object}] and the parse problems. */
function parseDocuments(text, file) {
  const documents = [];
  const problems = [];
  YAML.parseAllDocuments(text, { version: '1.1', prettyErrors: false }).forEach((doc, index) => {
    const where = `${file}#${index + 1}`;
    for (const error of [...doc.errors, ...doc.warnings])
      problems.push(`${where}: YAML: ${error.message.split('\n')[0]}`);
    if (doc.errors.length > 0 || doc.contents === null) return;
    const comment = `${doc.commentBefore ?? ''}\n${doc.contents.commentBefore ?? ''}`;
    documents.push({ where, object: doc.toJS(), comment });
  });
  return { documents, problems };
}

function readManifests(dir) {
  const files = readdirSync(dir).filter((name) => /\.ya?ml$/.test(name)).sort();
  const documents = [];
  const problems = [];
  for (const name of files) {
    const parsed = parseDocuments(readFileSync(join(dir, name), 'utf8'), name);
    documents.push(...parsed.documents.map((d) => ({ ...d, file: name })));
    problems.push(...parsed.problems);
  }
  return { files, documents, problems };
}

/* What the rules need to know from the repository itself. */
function readRepository() {
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const uid = /useradd\b[^\n]*--uid (\d+)/.exec(dockerfile);
  const entrypoint = /^ENTRYPOINT (\[.*\])\s*$/m.exec(dockerfile);
  const keys = Object.keys(JSON.parse(readFileSync(join(ROOT, 'config', 'gpuquote.json'), 'utf8')));
  return {
    imageUid: uid ? Number(uid[1]) : null,
    entrypoint: entrypoint ? JSON.parse(entrypoint[1]) : null,
    variables: new Set(['GPUQUOTE_CONFIG', ...keys.map((key) => `GPUQUOTE_${key.toUpperCase()}`)]),
  };
}

/* ---- the API's schemas ------------------------------------------------------------------- */

/* A proxy over `value` (and, as they are read, everything below it) that records in `reads`
 * which keys of each object were read. */
function tracked(value, reads, proxies) {
  if (value === null || typeof value !== 'object') return value;
  if (proxies.has(value)) return proxies.get(value);
  if (!reads.has(value)) reads.set(value, new Set());
  const seen = reads.get(value);
  const proxy = new Proxy(value, {
    get(target, key, receiver) {
      if (typeof key === 'string') seen.add(key);
      return tracked(Reflect.get(target, key, receiver), reads, proxies);
    },
    has(target, key) {
      if (typeof key === 'string') seen.add(key);
      return Reflect.has(target, key);
    },
  });
  proxies.set(value, proxy);
  return proxy;
}

function unreadFields(value, reads, path, out) {
  if (value === null || typeof value !== 'object') return out;
  const seen = reads.get(value) ?? new Set();
  for (const key of Object.keys(value)) {
    const at = Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}`;
    if (seen.has(key)) unreadFields(value[key], reads, at, out);
    else out.push(at.replace(/^\./, ''));
  }
  return out;
}

/* The kubernetes-models class of an apiVersion and kind, or null. */
async function modelOf(apiVersion, kind) {
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return null;
  if (!/^([a-z0-9.-]+\/)?v[a-z0-9]+$/.test(apiVersion) || !/^[A-Z][A-Za-z0-9]*$/.test(kind))
    return null;
  try {
    const module = await import(`kubernetes-models/${apiVersion}/${kind}`);
    return module[kind] ?? null;
  } catch {
    return null;
  }
}

/* Problems of one API object against its schema: wrong types, missing fields, unknown ones. */
async function schemaProblems(object) {
  if (object === null || typeof object !== 'object' || Array.isArray(object))
    return ['not a mapping'];
  if (object.apiVersion === KUSTOMIZE_API) return [];
  const model = await modelOf(object.apiVersion, object.kind);
  if (model === null)
    return [`no schema for apiVersion ${object.apiVersion}, kind ${object.kind}`];
  const reads = new Map();
  try {
    model.prototype.validate.call(tracked(object, reads, new Map()));
  } catch (error) {
    return [`schema: ${error.message}`];
  }
  return unreadFields(object, reads, '', []).map((path) => `unknown field ${path}`);
}

/* Kustomization is no API object: its own few fields. */
function kustomizationProblems(object, files) {
  const problems = [];
  const known = new Set(['apiVersion', 'kind', 'resources', 'namespace', 'labels', 'images']);
  for (const key of Object.keys(object))
    if (!known.has(key)) problems.push(`unknown field ${key}`);
  if (object.kind !== 'Kustomization') problems.push(`kind ${object.kind}, not Kustomization`);
  if (!Array.isArray(object.resources)) return [...problems, 'resources is not a list'];
  for (const name of object.resources)
    if (!files.includes(name)) problems.push(`resources: no file ${name}`);
  return problems;
}

/* ---- the rules --------------------------------------------------------------------------- */

const isKind = (kind) => (d) => d.object?.kind === kind;

function one(documents, kind, problems) {
  const found = documents.filter(isKind(kind));
  if (found.length !== 1) problems.push(`${kind}: ${found.length} found, one expected`);
  return found[0]?.object ?? null;
}

/* The environment a container starts with: its ConfigMaps' data, then its own env. */
function environmentOf(container, configMaps, problems) {
  const env = new Map();
  for (const source of container.envFrom ?? []) {
    const name = source.configMapRef?.name;
    const map = configMaps.find((m) => m.metadata?.name === name);
    if (map === undefined) problems.push(`envFrom names ConfigMap ${name}, not in the manifests`);
    for (const [key, value] of Object.entries(map?.data ?? {}))
      env.set(key, { value, from: `ConfigMap ${name}` });
  }
  for (const entry of container.env ?? []) env.set(entry.name, { ...entry, from: 'env' });
  return env;
}

function labelsMatch(selector, labels) {
  const wanted = Object.entries(selector ?? {});
  return wanted.length > 0 && wanted.every(([key, value]) => labels?.[key] === value);
}

/* Pod-level settings with the container's overrides. */
function effectiveSecurity(pod, container) {
  return { ...(pod.securityContext ?? {}), ...(container.securityContext ?? {}) };
}

function preStopSeconds(container) {
  const handler = container.lifecycle?.preStop;
  if (handler?.sleep !== undefined) return Number(handler.sleep.seconds);
  const command = handler?.exec?.command ?? [];
  if (command.length === 2 && basename(command[0]) === 'sleep' && /^\d+$/.test(command[1]))
    return Number(command[1]);
  return null;
}

function probePort(container, probe) {
  const port = probe?.httpGet?.port;
  if (typeof port === 'number') return port;
  return (container.ports ?? []).find((p) => p.name === port)?.containerPort ?? null;
}

/* Every rule of a pod that runs gpuquote (the Deployment's, the Job's). */
function podRules(what, pod, container, env, repo, secrets, problems) {
  const fail = (text) => problems.push(`${what}: ${text}`);
  if (pod.enableServiceLinks !== false)
    fail('enableServiceLinks must be false (a Service named gpuquote sets GPUQUOTE_PORT=tcp://…)');
  const security = effectiveSecurity(pod, container);
  if (security.runAsNonRoot !== true) fail('runAsNonRoot must be true');
  if (security.runAsUser !== repo.imageUid)
    fail(`runAsUser must be the image's user, ${repo.imageUid} (Dockerfile)`);
  if (security.readOnlyRootFilesystem !== true) fail('readOnlyRootFilesystem must be true');
  if (security.allowPrivilegeEscalation !== false) fail('allowPrivilegeEscalation must be false');
  if (!(security.capabilities?.drop ?? []).includes('ALL')) fail('capabilities must drop ALL');
  if (security.seccompProfile?.type !== 'RuntimeDefault')
    fail('seccompProfile must be RuntimeDefault');
  const tmp = (container.volumeMounts ?? []).find((m) => m.mountPath === '/tmp');
  const volume = (pod.volumes ?? []).find((v) => v.name === tmp?.name);
  if (volume?.emptyDir === undefined) fail('/tmp must be an emptyDir');
  const requests = container.resources?.requests ?? {};
  if (requests.cpu === undefined || requests.memory === undefined)
    fail('resources must request cpu and memory');
  if (container.resources?.limits?.memory === undefined) fail('resources must limit memory');
  const database = env.get('GPUQUOTE_DATABASE');
  const ref = database?.valueFrom?.secretKeyRef;
  if (ref === undefined) {
    const from = database ? database.from : 'the image';
    fail(`GPUQUOTE_DATABASE must come from a Secret (secretKeyRef), not ${from}`);
  } else {
    const secret = secrets.find((s) => s.metadata?.name === ref.name);
    const keys = Object.keys({ ...(secret?.data ?? {}), ...(secret?.stringData ?? {}) });
    if (!keys.includes(ref.key))
      fail(`GPUQUOTE_DATABASE: the example Secret has no ${ref.name}, key ${ref.key}`);
  }
  for (const name of env.keys())
    if (name.startsWith('GPUQUOTE_') && !repo.variables.has(name))
      fail(`${name} (${env.get(name).from}) is not a configuration key (config/gpuquote.json)`);
}

function argvOf(container, repo) {
  return [...(container.command ?? repo.entrypoint ?? []), ...(container.args ?? [])];
}

/* Problems with the rules, given the documents of the manifests' directory. */
function rules(documents, files, repo) {
  const problems = [];
  const deployment = one(documents, 'Deployment', problems);
  const job = one(documents, 'Job', problems);
  const service = one(documents, 'Service', problems);
  const pdb = one(documents, 'PodDisruptionBudget', problems);
  const hpa = one(documents, 'HorizontalPodAutoscaler', problems);
  const kustomization = one(documents, 'Kustomization', problems);
  const configMaps = documents.filter(isKind('ConfigMap')).map((d) => d.object);
  const secretDocuments = documents.filter(isKind('Secret'));
  const secrets = secretDocuments.map((d) => d.object);
  if (repo.imageUid === null || repo.entrypoint === null)
    problems.push('Dockerfile: no useradd --uid or no ENTRYPOINT [...] found');
  if (deployment === null || job === null) return problems;

  const pod = deployment.spec.template.spec;
  const container = pod.containers[0];
  const env = environmentOf(container, configMaps, problems);
  const value = (name) => env.get(name)?.value;
  podRules('Deployment', pod, container, env, repo, secrets, problems);

  if (deployment.spec.replicas !== 3) problems.push('Deployment: replicas must be 3');
  const rolling = deployment.spec.strategy?.rollingUpdate;
  if (deployment.spec.strategy?.type !== 'RollingUpdate' || rolling?.maxUnavailable !== 0)
    problems.push('Deployment: a RollingUpdate with maxUnavailable 0');
  if (!['false', '0'].includes(value('GPUQUOTE_AUTO_MIGRATE')))
    problems.push('Deployment: GPUQUOTE_AUTO_MIGRATE must be "false" (the Job migrates)');
  if (!['0.0.0.0', '::'].includes(value('GPUQUOTE_LISTEN')))
    problems.push('Deployment: GPUQUOTE_LISTEN must be 0.0.0.0 or :: (the probes come from the node)');
  const port = Number(value('GPUQUOTE_PORT') ?? 8080);
  const probes = { readinessProbe: '/readyz', livenessProbe: '/healthz', startupProbe: '/healthz' };
  for (const [probe, path] of Object.entries(probes)) {
    if (container[probe]?.httpGet?.path !== path)
      problems.push(`Deployment: ${probe} must GET ${path}`);
    else if (probePort(container, container[probe]) !== port)
      problems.push(`Deployment: ${probe} must ask port ${port} (GPUQUOTE_PORT)`);
  }
  if (argvOf(container, repo).includes('migrate'))
    problems.push('Deployment: must serve, not migrate');

  const pause = preStopSeconds(container);
  const grace = value('GPUQUOTE_SHUTDOWN_GRACE_SECONDS');
  const budget = pod.terminationGracePeriodSeconds;
  if (pause === null) problems.push('Deployment: preStop must be a sleep (exec [sleep, N] or sleep)');
  if (!/^\d+$/.test(grace ?? ''))
    problems.push('Deployment: GPUQUOTE_SHUTDOWN_GRACE_SECONDS must be set (the image has 6)');
  else if (pause !== null && !(budget > pause + Number(grace) + ANSWER_SECONDS))
    problems.push(`Deployment: terminationGracePeriodSeconds ${budget} must exceed preStop ${pause}` +
        ` + shutdown_grace_seconds ${grace} + ${ANSWER_SECONDS} s to answer committed quotes`);

  const jobPod = job.spec.template.spec;
  const jobContainer = jobPod.containers[0];
  podRules('Job', jobPod, jobContainer, environmentOf(jobContainer, configMaps, problems), repo,
      secrets, problems);
  const argv = argvOf(jobContainer, repo);
  if (basename(argv[0] ?? '') !== 'gpuquote' || argv.slice(1).join(' ') !== 'migrate')
    problems.push(`Job: must run gpuquote migrate, not ${JSON.stringify(argv)}`);
  if (jobContainer.image !== container.image)
    problems.push(`Job: image ${jobContainer.image} is not the Deployment's ${container.image}`);

  const labels = deployment.spec.template.metadata?.labels;
  const jobLabels = job.spec.template.metadata?.labels;
  if (!labelsMatch(deployment.spec.selector?.matchLabels, labels))
    problems.push("Deployment: selector must match its pods' labels");
  for (const [what, selector] of [['Service', service?.spec?.selector],
    ['PodDisruptionBudget', pdb?.spec?.selector?.matchLabels]]) {
    if (!labelsMatch(selector, labels))
      problems.push(`${what}: selector must match the Deployment's pods`);
    if (labelsMatch(selector, jobLabels))
      problems.push(`${what}: selector must not match the Job's pods`);
  }
  const target = hpa?.spec?.scaleTargetRef;
  if (target?.kind !== 'Deployment' || target?.name !== deployment.metadata.name)
    problems.push('HorizontalPodAutoscaler: must scale the Deployment');
  if (hpa?.spec?.minReplicas !== deployment.spec.replicas)
    problems.push("HorizontalPodAutoscaler: minReplicas must be the Deployment's replicas");
  if (!(hpa?.spec?.metrics ?? []).some((m) => m.type === 'Resource' && m.resource?.name === 'cpu'))
    problems.push('HorizontalPodAutoscaler: must scale on CPU');

  /* What `kubectl apply -k` applies: everything but the Job (applied before) and Secrets. */
  const applied = new Set(kustomization?.resources ?? []);
  for (const file of files) {
    const kinds = documents.filter((d) => d.file === file).map((d) => d.object?.kind);
    const expected = !kinds.some((kind) => ['Kustomization', 'Job', 'Secret'].includes(kind));
    if (applied.has(file) !== expected)
      problems.push(`kustomization.yaml: ${file} must ${expected ? '' : 'not '}be in resources`);
  }
  for (const { file } of secretDocuments)
    if (!file.endsWith('.example.yaml'))
      problems.push(`${file}: a Secret belongs in an *.example.yaml file, never a real one`);
  return problems;
}

/* ---- running ----------------------------------------------------------------------------- */

/* The checks of a directory's manifests, each {name, problems}: one a document (its YAML and
 * its schema), and the rules. */
async function checkDirectory(dir) {
  const { files, documents, problems: yamlProblems } = readManifests(dir);
  const checks = [];
  if (yamlProblems.length > 0) checks.push({ name: 'yaml', problems: yamlProblems });
  for (const { where, object } of documents) {
    const problems = object?.apiVersion === KUSTOMIZE_API
      ? kustomizationProblems(object, files)
      : await schemaProblems(object);
    checks.push({ name: where, problems: problems.map((p) => `${where}: ${p}`) });
  }
  /* The rules read fields the schemas promise: only once every document conforms. */
  const conforming = checks.every((c) => c.problems.length === 0);
  checks.push({
    name: 'rules',
    problems: conforming ? rules(documents, files, readRepository()) : ['rules: not checked'],
  });
  return { checks, documents, files };
}

const problemsOf = (checks) => checks.flatMap((c) => c.problems);

async function main(dir) {
  const { checks } = await checkDirectory(dir);
  for (const problem of problemsOf(checks)) console.log(`k8s: ${problem}`);
  const failed = checks.filter((c) => c.problems.length > 0).length;
  console.log(`k8s: ${checks.length - failed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

/* ---- self-test --------------------------------------------------------------------------- */

const deploymentOf = (docs) => docs.find(isKind('Deployment')).object;
const jobOf = (docs) => docs.find(isKind('Job')).object;
const containerOf = (docs) => deploymentOf(docs).spec.template.spec.containers[0];
const configMapOf = (docs) => docs.find(isKind('ConfigMap')).object;
const envEntry = (container, name) => container.env.find((e) => e.name === name);

/* Each breaks one rule of the real manifests and must be refused with `expect` in a problem. */
const MUTATIONS = [
  ['two replicas', (d) => { deploymentOf(d).spec.replicas = 2; }, 'replicas must be 3'],
  ['readiness on /healthz', (d) => { containerOf(d).readinessProbe.httpGet.path = '/healthz'; },
    'readinessProbe must GET /readyz'],
  ['liveness on /readyz', (d) => { containerOf(d).livenessProbe.httpGet.path = '/readyz'; },
    'livenessProbe must GET /healthz'],
  ['no startup probe', (d) => { delete containerOf(d).startupProbe; }, 'startupProbe must GET'],
  ['probe on another port', (d) => { containerOf(d).readinessProbe.httpGet.port = 9090; },
    'readinessProbe must ask port 8080'],
  ['root by the container', (d) => { containerOf(d).securityContext.runAsNonRoot = false; },
    'runAsNonRoot must be true'],
  ['another user', (d) => { deploymentOf(d).spec.template.spec.securityContext.runAsUser = 1000; },
    "runAsUser must be the image's user"],
  ['writable root', (d) => { containerOf(d).securityContext.readOnlyRootFilesystem = false; },
    'readOnlyRootFilesystem must be true'],
  ['capabilities kept', (d) => { containerOf(d).securityContext.capabilities.drop = []; },
    'capabilities must drop ALL'],
  ['no /tmp', (d) => { containerOf(d).volumeMounts = []; }, '/tmp must be an emptyDir'],
  ['service links in the Job', (d) => { jobOf(d).spec.template.spec.enableServiceLinks = true; },
    'Job: enableServiceLinks must be false'],
  ['grace too short', (d) => { deploymentOf(d).spec.template.spec.terminationGracePeriodSeconds = 17; },
    'terminationGracePeriodSeconds 17 must exceed'],
  ['shutdown grace too long', (d) => { configMapOf(d).data.GPUQUOTE_SHUTDOWN_GRACE_SECONDS = '13'; },
    'shutdown_grace_seconds 13'],
  ['no preStop', (d) => { delete containerOf(d).lifecycle; }, 'preStop must be a sleep'],
  ['DSN in plain text', (d) => {
    envEntry(containerOf(d), 'GPUQUOTE_DATABASE').value = 'postgresql://gq:pw@postgres/gpuquote';
    delete envEntry(containerOf(d), 'GPUQUOTE_DATABASE').valueFrom;
  }, 'GPUQUOTE_DATABASE must come from a Secret'],
  ['DSN in the ConfigMap', (d) => {
    containerOf(d).env = containerOf(d).env.filter((e) => e.name !== 'GPUQUOTE_DATABASE');
    configMapOf(d).data.GPUQUOTE_DATABASE = 'postgresql://gq:pw@postgres/gpuquote';
  }, 'not ConfigMap gpuquote'],
  ['replicas migrate', (d) => { envEntry(containerOf(d), 'GPUQUOTE_AUTO_MIGRATE').value = 'true'; },
    'GPUQUOTE_AUTO_MIGRATE must be "false"'],
  ['the Job serves', (d) => { jobOf(d).spec.template.spec.containers[0].args = ['serve']; },
    'must run gpuquote migrate'],
  ['the Job runs another image',
    (d) => { jobOf(d).spec.template.spec.containers[0].image = 'gpuquote:0.0.9'; },
    "is not the Deployment's"],
  ['a misspelt key', (d) => { configMapOf(d).data.GPUQUOTE_PROT = '8080'; },
    'GPUQUOTE_PROT (ConfigMap gpuquote) is not a configuration key'],
  ['loopback only', (d) => { configMapOf(d).data.GPUQUOTE_LISTEN = '127.0.0.1'; },
    'GPUQUOTE_LISTEN must be'],
  ['the Service selects the Job', (d) => {
    d.find(isKind('Service')).object.spec.selector = { 'app.kubernetes.io/name': 'gpuquote' };
  }, "Service: selector must not match the Job's pods"],
  ['the example Secret applied',
    (d) => { d.find(isKind('Kustomization')).object.resources.push('secret.example.yaml'); },
    'secret.example.yaml must not be in resources'],
  ['autoscaler below replicas',
    (d) => { d.find(isKind('HorizontalPodAutoscaler')).object.spec.minReplicas = 1; },
    'minReplicas must be'],
];

async function selfTest() {
  let passed = 0;
  let failed = 0;
  const report = (ok, text) => {
    if (ok) passed++;
    else { failed++; console.log(`k8s self-test: ${text}`); }
  };

  /* Broken API objects: each document of broken.yaml says what must be refused ("# expect: …"). */
  const { documents, problems } = parseDocuments(readFileSync(BROKEN, 'utf8'), 'broken.yaml');
  report(problems.length === 0, `broken.yaml does not parse: ${problems.join(' | ')}`);
  for (const { where, object, comment } of documents) {
    const expect = /^ ?expect: (.*)$/m.exec(comment)?.[1]?.trim();
    const found = await schemaProblems(object);
    report(expect !== undefined && found.some((p) => p.includes(expect)),
        `${where} (${object?.kind}) refused with [${found.join(' | ')}], expected "${expect}"`);
  }

  /* The real manifests pass, and each rule fails when broken. */
  const real = await checkDirectory(DEFAULT_DIR);
  const realProblems = problemsOf(real.checks);
  report(realProblems.length === 0, `the real manifests fail: ${realProblems.join(' | ')}`);
  const repo = readRepository();
  for (const [name, mutate, expect] of MUTATIONS) {
    const copy = structuredClone(real.documents);
    mutate(copy);
    const found = rules(copy, real.files, repo);
    report(found.some((p) => p.includes(expect)),
        `"${name}" gave [${found.join(' | ')}], expected "${expect}"`);
  }
  console.log(`k8s self-test: ${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

const args = process.argv.slice(2);
if (args.length > 1 || (args[0] ?? '').startsWith('-') && args[0] !== '--self-test') {
  console.error('usage: node check.mjs [DIR] | node check.mjs --self-test');
  process.exit(2);
}
process.exitCode = args[0] === '--self-test' ? await selfTest() : await main(args[0] ?? DEFAULT_DIR);
