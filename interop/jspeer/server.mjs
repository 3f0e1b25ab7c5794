// An A2A peer built on the JavaScript SDK (@a2a-js/sdk 1.3.0), used by
// a2atop's interop tests (package a2atop/interop) and handy by hand:
//
//   cd interop/jspeer && npm ci && node server.mjs [flags]
//
// It listens on 127.0.0.1 with a port chosen by the OS and, once every
// listener is up, prints exactly one line on stdout:
//
//   LISTENING http://127.0.0.1:PORT
//
// Everything else (logs) goes to stderr, including one line per request:
//   REQ http|grpc <METHOD%20PATH or gRPC path> A2A-Version=<value, or - if none>
// The process exits on SIGINT/SIGTERM and when its stdin reaches EOF, so a
// test that dies never leaves it behind.
//
// Endpoints (all on the printed origin):
//   GET  /.well-known/agent-card.json   the agent card
//   POST /a2a/jsonrpc                   JSON-RPC binding
//   *    /a2a/rest/...                  HTTP+JSON (REST) binding
//   gRPC on a second loopback port (named in the card) when --grpc is given.
//
// Flags (each also settable by environment variable):
//   --protocols=LIST   A2A_PEER_PROTOCOLS   comma list of "1.0" and/or "0.3"
//                      (default "1.0"). With "0.3" in the list the SDK's
//                      0.3 layer (legacyCompat) is switched on and the card
//                      lists 0.3 interfaces, in the order given. Without
//                      it, a request lacking A2A-Version (read as 0.3 by
//                      the SDK) is refused with -32009. Note: the SDK's 0.3
//                      REST layer answers v1/message:send with 201 Created.
//   --legacy           A2A_PEER_LEGACY=1    shorthand for --protocols=1.0,0.3
//   --grpc             A2A_PEER_GRPC=1      also serve the gRPC binding (1.0)
//   --token=T          A2A_PEER_TOKEN       require "Authorization: Bearer T"
//                      on every A2A call (HTTP 401, gRPC UNAUTHENTICATED
//                      otherwise; the card stays public)
//   --step-ms=N        A2A_PEER_STEP_MS     pause between agent steps (default 40)
//   --name=NAME        A2A_PEER_NAME        agent name on the card (default "js-peer")
//   --push             A2A_PEER_PUSH=1      offer push notifications on the card
//                      (the SDK's in-memory config store and its default
//                      HTTP sender)
//
// Behaviour is chosen by the first word of the text of the message that
// creates a task (case-insensitive):
//
//   ask         -> INPUT_REQUIRED ("Which environment?"). A reply on the same
//                  taskId completes it with an artifact "answer.txt" holding
//                  the reply text; a reply starting with "ask" asks again.
//   approve-me  -> AUTH_REQUIRED ("Approve deploy to prod?"). A message on the
//                  same taskId resumes it: "approve"/"approved"/"yes" (or a
//                  data part {"decision":"approve"} / {"approved":true}) ->
//                  COMPLETED; "deny"/"denied"/"reject"/"no" (or
//                  {"decision":"deny"} / {"approved":false}) -> FAILED with
//                  the reason; anything else keeps it in AUTH_REQUIRED.
//   run [passed=N] [failed=M]
//               -> WORKING, then COMPLETED with two artifacts: "summary.json"
//                  (one data part {"passed":N,"failed":M}; default 12 and 0)
//                  and "report.txt" (text).
//   fail        -> WORKING, then FAILED ("build failed: ...").
//   reject      -> REJECTED ("this agent does not deploy on Fridays").
//   long [chunks=N]
//               -> WORKING and streams artifact "log.txt" in chunks (append,
//                  one per step, default 1500 chunks ~ 60 s) then COMPLETED
//                  with lastChunk; cancel it to get CANCELED.
//   echo / anything else
//               -> a direct Message reply (no task).
//
// Users: a call with "Authorization: Bearer X" is an authenticated user whose
// name is derived from X; calls without it share one anonymous scope. The
// SDK's InMemoryTaskStore scopes tasks per (tenant, user), so ListTasks shows
// a caller only the tasks it created with the same credentials.

import crypto from 'node:crypto';
import express from 'express';
import { AGENT_CARD_PATH } from '@a2a-js/sdk';
import {
  DefaultRequestHandler,
  InMemoryTaskStore,
  UnauthenticatedUser,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler } from '@a2a-js/sdk/server/express';
import { createPeerExecutor } from './executor.mjs';

const config = parseConfig(process.argv.slice(2), process.env);
const log = (...a) => console.error(`[jspeer ${config.name}]`, ...a);

function logRequest(kind, what, version) {
  const v = Array.isArray(version) ? version.join(',') : version;
  process.stderr.write(`REQ ${kind} ${what.replace(/\s+/g, '%20')} A2A-Version=${v === undefined || v === '' ? '-' : v}\n`);
}

class BearerUser {
  constructor(token) {
    this._name = 'bearer-' + crypto.createHash('sha256').update(token).digest('hex').slice(0, 12);
  }
  get isAuthenticated() {
    return true;
  }
  get userName() {
    return this._name;
  }
}

function bearerOf(header) {
  const v = Array.isArray(header) ? header[0] : header;
  if (typeof v !== 'string') return undefined;
  const m = /^Bearer\s+(.+)$/i.exec(v.trim());
  return m ? m[1] : undefined;
}

async function userFromHeader(header) {
  const token = bearerOf(header);
  return token ? new BearerUser(token) : new UnauthenticatedUser();
}

function tokenMatches(header) {
  const got = bearerOf(header);
  if (got === undefined) return false;
  const a = Buffer.from(got);
  const b = Buffer.from(config.token);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

function requireToken(req, res, next) {
  if (!config.token || tokenMatches(req.headers.authorization)) return next();
  res.status(401).setHeader('WWW-Authenticate', 'Bearer').json({ error: 'missing or wrong bearer token' });
}

async function main() {
  const app = express();
  const server = await listen(app, 0);
  const base = `http://127.0.0.1:${server.address().port}`;

  let grpcServer;
  let grpcAddr;
  if (config.grpc) {
    ({ grpcServer, grpcAddr } = await startGrpc());
  }

  const card = buildCard(base, grpcAddr);
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), createPeerExecutor({ stepMs: config.stepMs, log }));
  const legacyCompat = { enabled: config.protocols.includes('0.3') };
  const userBuilder = (req) => userFromHeader(req.headers.authorization);

  // One machine-readable line per request on stderr; the Go tests read
  // these to prove which A2A-Version every call carried.
  app.use((req, _res, next) => {
    logRequest('http', `${req.method} ${req.originalUrl}`, req.headers['a2a-version']);
    next();
  });
  app.use(AGENT_CARD_PATH.startsWith('/') ? AGENT_CARD_PATH : '/' + AGENT_CARD_PATH, agentCardHandler({ agentCardProvider: handler, cache: { maxAge: 0 }, legacyCompat }));
  app.use('/a2a/jsonrpc', requireToken, jsonRpcHandler({ requestHandler: handler, userBuilder, legacyCompat }));
  app.use('/a2a/rest', requireToken, restHandler({ requestHandler: handler, userBuilder, legacyCompat }));

  if (grpcServer) {
    const { grpcService, A2AService } = await import('@a2a-js/sdk/server/grpc');
    grpcServer.addService(A2AService, grpcService({
      requestHandler: handler,
      userBuilder: async (call) => {
        logRequest('grpc', call.getPath?.() ?? '?', call.metadata.get('a2a-version')[0]);
        const auth = call.metadata.get('authorization')[0];
        return userFromHeader(typeof auth === 'string' ? auth : undefined);
      },
    }));
  }

  process.stdout.write(`LISTENING ${base}\n`);
  log('card', JSON.stringify(card.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion} ${i.url}`)));

  const stop = (why) => {
    log('stopping:', why);
    server.closeAllConnections?.();
    server.close();
    grpcServer?.forceShutdown();
    process.exit(0);
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.stdin.on('end', () => stop('stdin closed'));
  process.stdin.on('error', () => stop('stdin error'));
  process.stdin.resume();
}

function listen(app, port) {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, '127.0.0.1', (err) => (err ? reject(err) : resolve(server)));
    server.on('error', reject);
  });
}

async function startGrpc() {
  const grpc = await import('@grpc/grpc-js');
  // The SDK's gRPC service turns any error thrown by a userBuilder into
  // UNKNOWN, so the token is checked by a server interceptor, which can
  // answer UNAUTHENTICATED as a real gRPC agent would.
  const requireGrpcToken = (_method, call) => {
    const listener = new grpc.ServerListenerBuilder()
      .withOnReceiveMetadata((metadata, next) => {
        const auth = metadata.get('authorization')[0];
        if (!config.token || (typeof auth === 'string' && tokenMatches(auth))) {
          next(metadata);
          return;
        }
        logRequest('grpc', call.getPath?.() ?? '?', metadata.get('a2a-version')[0]);
        call.sendStatus({ code: grpc.status.UNAUTHENTICATED, details: 'missing or wrong bearer token', metadata: new grpc.Metadata() });
      })
      .build();
    const responder = new grpc.ResponderBuilder().withStart((next) => next(listener)).build();
    return new grpc.ServerInterceptingCall(call, responder);
  };
  const grpcServer = new grpc.Server({ interceptors: [requireGrpcToken] });
  const port = await new Promise((resolve, reject) => {
    grpcServer.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p)));
  });
  return { grpcServer, grpcAddr: `127.0.0.1:${port}` };
}

function buildCard(base, grpcAddr) {
  const interfaces = [];
  for (const version of config.protocols) {
    interfaces.push({ url: `${base}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: version, tenant: '' });
    interfaces.push({ url: `${base}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: version, tenant: '' });
    if (grpcAddr && version === '1.0') {
      interfaces.push({ url: grpcAddr, protocolBinding: 'GRPC', protocolVersion: version, tenant: '' });
    }
  }
  const skill = (id, description) => ({
    id, name: id, description, tags: ['interop'], examples: [id], inputModes: [], outputModes: [], securityRequirements: [],
  });
  const card = {
    name: config.name,
    description: 'A2A peer on @a2a-js/sdk 1.3.0 for a2atop interop tests; behaviour chosen by the first word of the message.',
    supportedInterfaces: interfaces,
    provider: { url: 'https://github.com/a2aproject/a2a-js', organization: 'a2atop interop' },
    version: '1.3.0',
    capabilities: { streaming: true, pushNotifications: config.push, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [
      skill('ask', 'goes INPUT_REQUIRED; a reply on the same task completes it'),
      skill('approve-me', 'goes AUTH_REQUIRED; "approve" completes it, "deny" fails it'),
      skill('run', 'completes with artifacts summary.json {passed, failed} and report.txt'),
      skill('fail', 'fails'),
      skill('reject', 'is rejected'),
      skill('long', 'streams log.txt chunks for about a minute; cancel it'),
    ],
    signatures: [],
  };
  // With --token the card still declares no securitySchemes: the SDK's card
  // handler serializes the card object as is (JSON.stringify), while the
  // 0.3 translation reads the SDK's internal oneof shape, so no single
  // object is right for both. The token is enforced by requireToken.
  return card;
}

function parseConfig(argv, rawEnv) {
  // An empty variable counts as unset.
  const env = Object.fromEntries(Object.entries(rawEnv).filter(([, v]) => v !== ''));
  const flags = new Map();
  for (const a of argv) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(a);
    if (!m) throw new Error(`unknown argument ${a}; see the comment at the top of server.mjs`);
    flags.set(m[1], m[2] ?? 'true');
  }
  const known = new Set(['protocols', 'legacy', 'grpc', 'token', 'step-ms', 'name', 'push']);
  for (const k of flags.keys()) {
    if (!known.has(k)) throw new Error(`unknown flag --${k}; see the comment at the top of server.mjs`);
  }
  const truthy = (v) => v === 'true' || v === '1' || v === 'yes';
  let protocols = (flags.get('protocols') ?? env.A2A_PEER_PROTOCOLS ?? '1.0').split(',').map((s) => s.trim()).filter(Boolean);
  if (truthy(flags.get('legacy') ?? env.A2A_PEER_LEGACY ?? '')) protocols = ['1.0', '0.3'];
  for (const p of protocols) {
    if (p !== '1.0' && p !== '0.3') throw new Error(`unsupported protocol version ${p}; use 1.0 and/or 0.3`);
  }
  if (protocols.length === 0) throw new Error('no protocol version given');
  const stepMs = Number(flags.get('step-ms') ?? env.A2A_PEER_STEP_MS ?? 40);
  if (!Number.isFinite(stepMs) || stepMs < 0) throw new Error('--step-ms must be a number >= 0');
  return {
    protocols,
    grpc: truthy(flags.get('grpc') ?? env.A2A_PEER_GRPC ?? ''),
    push: truthy(flags.get('push') ?? env.A2A_PEER_PUSH ?? ''),
    token: flags.get('token') ?? env.A2A_PEER_TOKEN ?? '',
    stepMs,
    name: flags.get('name') ?? env.A2A_PEER_NAME ?? 'js-peer',
  };
}

main().catch((err) => {
  console.error('jspeer failed to start:', err);
  process.exit(1);
});
