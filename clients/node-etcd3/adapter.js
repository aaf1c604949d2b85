#!/usr/bin/env node
// node-etcd3: a lockstep external client (protocol 1, docs/external-clients.md) wrapping the
// Lock of the npm package etcd3 (pinned at 1.1.2 in package.json and package-lock.json).
//
// What etcd3's Lock is (lib/lock.js): a try-lock on one key. acquire() grants a new lease
// (TTL .ttl(), default 30 s, kept alive by the library) and sends one txn "if
// create_revision(key) == 0 then put key under the lease"; when the key exists it revokes the
// lease and throws EtcdLockFailedError at once. release() revokes the lease (which deletes the
// key). It has no queue and no wait, so the catalogue has no exact counterpart: its keys and
// leases are closest to etcd-mutex, without the waiting.
//
// How the protocol maps onto it:
//   hello     new Etcd3({hosts: endpoints, dialTimeout: 5000, defaultCallOptions}), with
//             credentials (the tls files' contents) and auth (the user) when the hello has them (etcd3
//             connects lazily, so hello answers ok without contacting etcd). TTL: options
//             .lease_ttl_seconds, else options.ttl, else etcd3's default (30 s). Every unary call
//             gets a 5 s deadline through defaultCallOptions (streams, i.e. keep-alives, none),
//             so that a call into a partition ends; everything else is etcd3's default, including
//             its retries (up to 3 attempts on "recoverable" gRPC errors) and circuit breakers.
//   acquire   exclusive only ("shared" answers fail). Because Lock is a try-lock, the adapter
//             retries: client.lock(lock_name).ttl(ttl).acquire() again every 100-150 ms until
//             timeout_ms. ok carries key = lock_name and lease (the lock's lease ID, its exact
//             decimal digits). No token: Lock drops the txn's response, so the key's create
//             revision is not known without a read of its own, which the library does not do.
//             The final answer when no try succeeded: fail if every try failed definitely
//             (EtcdLockFailedError with no retried txn, or a failed lease grant: no key was
//             written); info if any try's outcome is unknown: a txn that errored (its lease is
//             then revoked, best effort, so a key it may have written goes), a txn that etcd3
//             retried (the first copy may have written the key the second then found "held"),
//             or a try still running at timeout_ms (when it ends, a lock it got is released).
//             The adapter counts etcd3's retries of a txn in defaultCallOptions, which etcd3
//             calls once per attempt with the request object.
//   critical_section
//             {"call":"read"}, then when write {"call":"write","value":read+1}, each answer read
//             from stdin first; ok, or fail when lockstep answers a call with fail.
//   release   lock.release() (lease revoke; etcd3 treats "lease not found" as done): ok; an
//             error, or no answer in 10 s, is info. fail when nothing is held.
//   stdin EOF an open acquire stops (answered info), a held lock is released (3 s), the client
//             closed, exit 0.
// The lease's 'lost' event (keep-alives failed past the TTL) is logged to stderr.
'use strict';

const readline = require('readline');
const fs = require('fs');
const { Etcd3, EtcdLockFailedError } = require('etcd3');

const CALL_TIMEOUT_MS = 5000;

function log(msg) {
  process.stderr.write(`node-etcd3: ${msg}\n`);
}

function send(line) {
  process.stdout.write(line + '\n');
}

// answer(id, type, fields, leaseDigits): lease is written as raw digits (an int64 lease ID does
// not fit a JavaScript number).
const answered = new Set();

function answer(id, type, fields = {}, leaseDigits = null) {
  answered.add(id);
  let line = JSON.stringify({ id, type, ...fields });
  if (leaseDigits !== null && /^-?\d+$/.test(leaseDigits)) {
    line = line.slice(0, -1) + `,"lease":${leaseDigits}}`;
  }
  send(line);
}

const sleep = ms => new Promise(resolve => setTimeout(resolve, Math.max(0, ms)));

// ---- stdin lines ----

const queued = [];
let waiter = null;
let eof = false;
let onEof;
const eofPromise = new Promise(resolve => (onEof = resolve));

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on('line', line => {
  if (!line.trim()) return;
  if (waiter) {
    const w = waiter;
    waiter = null;
    w(line);
  } else {
    queued.push(line);
  }
});
rl.on('close', () => {
  eof = true;
  if (waiter) {
    const w = waiter;
    waiter = null;
    w(null);
  }
  onEof();
});

function nextLine() {
  if (queued.length) return Promise.resolve(queued.shift());
  if (eof) return Promise.resolve(null);
  return new Promise(resolve => (waiter = resolve));
}

// ---- the lock ----

let client = null;
let lockName = null;
let ttl = null;
let held = null; // the etcd3 Lock held
let txnRetries = 0; // txn attempts etcd3 sent again (same request object)
const txnsSeen = new WeakSet();

function callOptions(ctx) {
  if (ctx.service === 'KV' && ctx.method === 'txn' && ctx.params && typeof ctx.params === 'object') {
    if (txnsSeen.has(ctx.params)) txnRetries++;
    else txnsSeen.add(ctx.params);
  }
  return ctx.isStream ? {} : { deadline: Date.now() + CALL_TIMEOUT_MS };
}

function hello(req) {
  if (req.protocol !== 1) return answer(req.id, 'fail', { reason: `protocol ${req.protocol} not supported (1 is)` });
  let endpoints = req.endpoints;
  if (!endpoints || !endpoints.length) endpoints = (process.env.LOCKSTEP_ETCD_ENDPOINTS || '').split(',').filter(Boolean);
  lockName = req.lock_name || process.env.LOCKSTEP_LOCK_NAME;
  const options = req.options || {};
  ttl = null;
  for (const name of ['ttl', 'lease_ttl_seconds']) { // the latter wins
    if (Number.isInteger(options[name]) && options[name] > 0) ttl = options[name];
  }
  const config = { hosts: endpoints, dialTimeout: 5000, defaultCallOptions: callOptions };
  if (req.tls) { // PEM files; no CA file: the system's roots (createSsl's default)
    let read;
    try {
      read = name => (req.tls[name] ? fs.readFileSync(req.tls[name]) : undefined);
      config.credentials = { rootCertificate: read('ca_file'), privateKey: read('key_file'), certChain: read('cert_file') };
    } catch (e) {
      return answer(req.id, 'fail', { reason: `tls: ${e.message}` });
    }
  }
  if (req.user && req.user.name) config.auth = { username: req.user.name, password: req.user.password || '' };
  if (client) client.close();
  client = new Etcd3(config);
  log(`hello: endpoints ${endpoints.join(',')} (tls ${Boolean(req.tls)}, user ${Boolean(config.auth)}), lock ${JSON.stringify(lockName)}, ttl ${ttl || "etcd3's default (30 s)"}`);
  answer(req.id, 'ok', { protocol: 1 });
}

function within(promise, ms) {
  return Promise.race([
    promise.then(value => ({ value }), error => ({ error })),
    sleep(ms).then(() => ({ timeout: true })),
  ]);
}

async function acquire(req) {
  if (!client) return answer(req.id, 'fail', { reason: 'no hello' });
  if (req.mode && req.mode !== 'exclusive') return answer(req.id, 'fail', { reason: `etcd3's Lock has no ${req.mode} mode` });
  if (held) return answer(req.id, 'fail', { reason: 'already holding the lock' });
  if (typeof req.timeout_ms !== 'number') return answer(req.id, 'fail', { reason: `malformed request: timeout_ms ${JSON.stringify(req.timeout_ms)}` });
  const deadline = Date.now() + req.timeout_ms;
  const retriesBefore = txnRetries;
  let unknown = null; // why the outcome is unknown, if it is
  let lastReason = 'no try finished';
  let tries = 0;
  while (Date.now() < deadline && !eof) {
    tries++;
    const lock = client.lock(lockName);
    if (ttl) lock.ttl(ttl);
    const attempt = lock.acquire().then(() => ({ ok: true }), error => ({ error }));
    const r = await Promise.race([
      attempt,
      sleep(deadline - Date.now()).then(() => ({ timeout: true })),
      eofPromise.then(() => ({ eof: true })),
    ]);
    if (r.ok) {
      held = lock;
      const id = String(await lock.leaseId());
      lock.lease.on('lost', err => log(`lease ${id} lost: ${err && err.message}`));
      return answer(req.id, 'ok', { key: lockName }, id);
    }
    if (r.timeout || r.eof) {
      unknown = r.timeout ? 'timed out during a try' : 'stdin closed during a try';
      attempt.then(x => {
        if (x.ok) {
          log('a try given up on got the lock later; releasing it');
          lock.release().catch(e => log(`release of a late lock: ${e.message}`));
        }
      });
      break;
    }
    const err = r.error;
    if (err instanceof EtcdLockFailedError) {
      lastReason = `held by another (${tries} tries)`;
    } else if (await lock.leaseId().then(() => true, () => false)) {
      // The lease was granted, so the txn failed: its outcome is unknown. Drop the lease (and the
      // key it may have written), as the library does itself when the key is held.
      unknown = `txn: ${err.message}`;
      const rev = await within(lock.release(), CALL_TIMEOUT_MS);
      if (rev.error || rev.timeout) log(`revoke after a failed txn: ${rev.error ? rev.error.message : 'no answer'}`);
    } else {
      lastReason = `lease grant: ${err.message}`;
    }
    await Promise.race([sleep(Math.min(100 + Math.random() * 50, deadline - Date.now())), eofPromise]);
  }
  if (!unknown && txnRetries !== retriesBefore) unknown = 'etcd3 retried a lock txn';
  if (!unknown && eof) unknown = 'stdin closed';
  if (unknown) return answer(req.id, 'info', { reason: `${unknown}; last: ${lastReason}` });
  answer(req.id, 'fail', { reason: lastReason });
}

async function release(req) {
  if (!held) return answer(req.id, 'fail', { reason: 'not holding the lock' });
  const lock = held;
  held = null;
  const r = await within(lock.release(), 10000);
  if (r.timeout) return answer(req.id, 'info', { reason: 'lease revoke: no answer in 10 s' });
  if (r.error) return answer(req.id, 'info', { reason: `lease revoke: ${r.error.message}` });
  answer(req.id, 'ok');
}

async function criticalSection(req) {
  const call = async msg => {
    send(JSON.stringify(msg));
    const line = await nextLine();
    if (line === null) return [null, 'stdin closed during the critical section'];
    let ans;
    try {
      ans = JSON.parse(line);
    } catch (e) {
      ans = null;
    }
    if (!ans || typeof ans !== 'object' || !ans.call) return [null, `expected the answer to a ${msg.call} call, got: ${line}`];
    if (ans.type !== 'ok') return [null, `${ans.call} ${ans.type}: ${ans.reason}`];
    return [ans, null];
  };
  let [ans, why] = await call({ call: 'read' });
  if (!ans) return answer(req.id, 'fail', { reason: why });
  if (req.write) {
    if (!Number.isInteger(ans.value)) return answer(req.id, 'fail', { reason: 'read answered no integer value' });
    [ans, why] = await call({ call: 'write', value: ans.value + 1 });
    if (!ans) return answer(req.id, 'fail', { reason: why });
  }
  answer(req.id, 'ok');
}

async function main() {
  const ops = { hello, acquire, release, critical_section: criticalSection };
  for (;;) {
    const line = await nextLine();
    if (line === null) break;
    let req;
    try {
      req = JSON.parse(line);
    } catch (e) {
      req = null;
    }
    if (!req || typeof req !== 'object' || !Number.isInteger(req.id)) {
      log(`ignoring a line that is not a request: ${line}`);
      continue;
    }
    const op = ops[req.op];
    if (!op) {
      answer(req.id, 'fail', { reason: `unknown op ${JSON.stringify(req.op)}` });
      continue;
    }
    try {
      await op(req);
    } catch (err) { // a bug or a malformed request: never leave it unanswered
      log(`error in ${req.op}: ${err && err.stack}`);
      if (!answered.has(req.id)) answer(req.id, 'info', { reason: `adapter error: ${err && err.message}` });
    }
  }
  if (held) {
    const r = await within(held.release(), 3000);
    if (r.error || r.timeout) log(`release at exit: ${r.error ? r.error.message : 'no answer in 3 s'}`);
    held = null;
  }
  if (client) client.close();
  log('stdin closed, exiting');
  process.exit(0);
}

main().catch(err => {
  log(`fatal: ${err && err.stack}`);
  process.exit(1);
});
