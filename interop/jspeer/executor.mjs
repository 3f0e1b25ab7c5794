// The agent logic of the JS peer: one AgentExecutor whose behaviour is
// picked from the first word of the message that creates a task. The words
// and what they do are documented at the top of server.mjs.

import crypto from 'node:crypto';
import { Role, TaskState } from '@a2a-js/sdk';
import { AgentEvent } from '@a2a-js/sdk/server';


const textPart = (text) => ({ content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: {} });
const dataPart = (value) => ({ content: { $case: 'data', value }, mediaType: 'application/json', filename: '', metadata: {} });

function agentMessage(taskId, contextId, text) {
  return {
    messageId: crypto.randomUUID(), contextId, taskId: taskId ?? '', role: Role.ROLE_AGENT,
    parts: [textPart(text)], metadata: {}, extensions: [], referenceTaskIds: [],
  };
}

// words returns the lower-cased text of the message (text parts, then the
// JSON of data parts), and its first word.
function readMessage(message) {
  const texts = [];
  const data = [];
  for (const p of message?.parts ?? []) {
    if (p.content?.$case === 'text') texts.push(p.content.value);
    if (p.content?.$case === 'data') data.push(p.content.value);
  }
  const text = texts.join(' ').trim();
  return { text, first: (text.split(/\s+/)[0] ?? '').toLowerCase(), data };
}

// decisionOf reads an approve/deny decision from a reply: a data part
// {"decision": "approve"|"deny"} or {"approved": true|false} wins; otherwise
// the first word of the text: approve/approved/yes/grant/granted, or
// deny/denied/reject/rejected/no. Anything else is no decision ('').
export function decisionOf({ text, data }) {
  for (const d of data) {
    if (d && typeof d === 'object') {
      if (d.approved === true) return 'approve';
      if (d.approved === false) return 'deny';
      const v = String(d.decision ?? '').toLowerCase();
      if (v.startsWith('approve')) return 'approve';
      if (v.startsWith('den') || v.startsWith('reject')) return 'deny';
    }
  }
  const first = (text.toLowerCase().match(/^[^a-z]*([a-z]+)/) ?? [])[1] ?? '';
  if (['approve', 'approved', 'yes', 'grant', 'granted'].includes(first)) return 'approve';
  if (['deny', 'denied', 'reject', 'rejected', 'no'].includes(first)) return 'deny';
  return '';
}

function params(text) {
  const out = {};
  for (const m of text.matchAll(/([a-z]+)=(\d+)/gi)) out[m[1].toLowerCase()] = Number(m[2]);
  return out;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function createPeerExecutor({ stepMs, log }) {
  const contexts = new Map(); // taskId -> contextId, so cancel can address any task
  const canceled = new Set(); // taskIds whose execution must stop

  function status(bus, taskId, contextId, state, text) {
    bus.publish(AgentEvent.statusUpdate({
      taskId, contextId,
      status: { state, message: text ? agentMessage(taskId, contextId, text) : undefined, timestamp: new Date().toISOString() },
      metadata: {},
    }));
  }

  function artifact(bus, taskId, contextId, a, append = false, lastChunk = true) {
    bus.publish(AgentEvent.artifactUpdate({
      taskId, contextId,
      artifact: { name: '', description: '', metadata: {}, extensions: [], ...a },
      append, lastChunk, metadata: {},
    }));
  }

  async function execute(ctx, bus) {
    const { taskId, contextId } = ctx;
    const msg = readMessage(ctx.userMessage);
    const existing = ctx.task;

    if (!existing && !['ask', 'approve-me', 'run', 'fail', 'reject', 'long'].includes(msg.first)) {
      bus.publish(AgentEvent.message({
        ...agentMessage('', contextId, `echo: ${msg.text}`),
      }));
      return;
    }
    contexts.set(taskId, contextId);

    if (existing) {
      return resume(ctx, bus, msg);
    }
    bus.publish(AgentEvent.task({
      id: taskId, contextId,
      status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
      artifacts: [], history: [ctx.userMessage], metadata: { behaviour: msg.first },
    }));
    await sleep(stepMs);
    switch (msg.first) {
      case 'ask':
        status(bus, taskId, contextId, TaskState.TASK_STATE_INPUT_REQUIRED, 'Which environment should I deploy to?');
        return;
      case 'approve-me':
        status(bus, taskId, contextId, TaskState.TASK_STATE_AUTH_REQUIRED, 'Approve deploy to prod? Reply approve or deny.');
        return;
      case 'reject':
        status(bus, taskId, contextId, TaskState.TASK_STATE_REJECTED, 'This agent does not deploy on Fridays.');
        return;
      case 'fail':
        status(bus, taskId, contextId, TaskState.TASK_STATE_WORKING, 'Building...');
        await sleep(stepMs);
        status(bus, taskId, contextId, TaskState.TASK_STATE_FAILED, 'build failed: exit status 2');
        return;
      case 'run':
        return run(bus, taskId, contextId, params(msg.text));
      case 'long':
        return long(bus, taskId, contextId, params(msg.text));
    }
  }

  async function run(bus, taskId, contextId, p) {
    const passed = p.passed ?? 12;
    const failed = p.failed ?? 0;
    status(bus, taskId, contextId, TaskState.TASK_STATE_WORKING, 'Running tests...');
    await sleep(stepMs);
    artifact(bus, taskId, contextId, { artifactId: 'summary', name: 'summary.json', parts: [dataPart({ passed, failed })] });
    artifact(bus, taskId, contextId, { artifactId: 'report', name: 'report.txt', parts: [textPart(`${failed} failed / ${passed} passed\n`)] });
    status(bus, taskId, contextId, TaskState.TASK_STATE_COMPLETED, `${failed} failed / ${passed} passed`);
  }

  async function long(bus, taskId, contextId, p) {
    const chunks = p.chunks ?? 1500;
    status(bus, taskId, contextId, TaskState.TASK_STATE_WORKING, `Streaming ${chunks} log chunks...`);
    for (let i = 0; i < chunks; i++) {
      await sleep(stepMs);
      if (canceled.has(taskId)) return; // cancelTask published CANCELED
      const last = i === chunks - 1;
      artifact(bus, taskId, contextId, { artifactId: 'log', name: 'log.txt', parts: [textPart(`line ${i + 1}\n`)] }, i > 0, last);
    }
    if (canceled.has(taskId)) return;
    status(bus, taskId, contextId, TaskState.TASK_STATE_COMPLETED, `streamed ${chunks} chunks`);
  }

  // resume handles a message on an existing task (INPUT_REQUIRED reply or
  // AUTH_REQUIRED decision). The SDK requires a task event first.
  async function resume(ctx, bus, msg) {
    const { taskId, contextId } = ctx;
    const task = ctx.task;
    const state = task.status?.state;
    bus.publish(AgentEvent.task({ ...task, history: [], artifacts: [] }));
    if (state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      if (msg.first === 'ask') {
        status(bus, taskId, contextId, TaskState.TASK_STATE_INPUT_REQUIRED, 'And which region?');
        return;
      }
      status(bus, taskId, contextId, TaskState.TASK_STATE_WORKING, `Deploying to ${msg.text}...`);
      await sleep(stepMs);
      artifact(bus, taskId, contextId, { artifactId: 'answer', name: 'answer.txt', parts: [textPart(msg.text)] });
      status(bus, taskId, contextId, TaskState.TASK_STATE_COMPLETED, `Deployed to ${msg.text}.`);
      return;
    }
    if (state === TaskState.TASK_STATE_AUTH_REQUIRED) {
      const d = decisionOf(msg);
      if (d === 'approve') {
        status(bus, taskId, contextId, TaskState.TASK_STATE_WORKING, 'Approved; deploying...');
        await sleep(stepMs);
        status(bus, taskId, contextId, TaskState.TASK_STATE_COMPLETED, 'Deployed to prod after approval.');
      } else if (d === 'deny') {
        status(bus, taskId, contextId, TaskState.TASK_STATE_FAILED, `Denied: ${msg.text || 'no reason given'}`);
      } else {
        status(bus, taskId, contextId, TaskState.TASK_STATE_AUTH_REQUIRED, 'Still waiting: reply approve or deny.');
      }
      return;
    }
    // A message on a task that is working (e.g. "long"): note it, keep going.
    log('message on task', taskId, 'in state', state, 'ignored');
    status(bus, taskId, contextId, state ?? TaskState.TASK_STATE_WORKING, `noted: ${msg.text}`);
  }

  async function cancelTask(taskId, bus) {
    canceled.add(taskId);
    const contextId = contexts.get(taskId) ?? '';
    status(bus, taskId, contextId, TaskState.TASK_STATE_CANCELED, 'Canceled on request.');
  }

  return { execute, cancelTask };
}
