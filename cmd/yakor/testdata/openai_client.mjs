// openai_client.mjs drives `yakor serve`'s OpenAI-compatible endpoint with
// the official openai npm client, as any application would: two multi-turn
// conversations (one non-streamed, one streamed) in which the second
// request sends only its new question and is answered from the memory the
// first request made, and two refusals. It asserts as it goes, exits
// non-zero on the first failure, and prints the threads it used as JSON.
//
// Environment: YAKOR_BASE_URL (http://host:port/v1), YAKOR_NODE_DIR (the
// folder whose node_modules holds the openai package).
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(process.env.YAKOR_NODE_DIR + '/');
const { OpenAI } = require('openai');

// No key exists on the test server: any bearer acts as the local user, and
// the client insists on sending one.
const client = new OpenAI({ baseURL: process.env.YAKOR_BASE_URL, apiKey: 'sk-local-anything', maxRetries: 0 });
const run = Date.now().toString(36);

const models = [];
for await (const m of client.models.list()) models.push(m.id);
assert.ok(models.includes('yakor'), `models: ${models}`);

// A non-streamed conversation.
const ann = `npm-ann-${run}`;
const first = await client.chat.completions.create({
  model: 'yakor', user: ann,
  messages: [
    { role: 'system', content: 'You are a furniture shop assistant.' },
    { role: 'user', content: 'The oak table costs 48200 rubles.' },
  ],
}).withResponse();
const annThread = first.response.headers.get('x-yakor-thread');
assert.ok(annThread, 'no X-Yakor-Thread header');
assert.equal(first.response.headers.get('x-yakor-thread-new'), 'true');
assert.equal(first.data.object, 'chat.completion');
assert.match(first.data.id, /^chatcmpl-/);
assert.equal(first.data.choices[0].message.role, 'assistant');
assert.equal(first.data.choices[0].finish_reason, 'stop');
assert.ok(first.data.usage.total_tokens > 0);

const second = await client.chat.completions.create({
  model: 'yakor', user: ann,
  messages: [{ role: 'user', content: 'What does the oak table cost?' }],
}).withResponse();
assert.equal(second.response.headers.get('x-yakor-thread'), annThread);
assert.equal(second.response.headers.get('x-yakor-thread-new'), 'false');
const annReply = second.data.choices[0].message.content;
assert.ok(annReply.includes('48200'), `the second reply lacks the first turn's price: ${annReply}`);

// A streamed conversation.
async function streamed(user, content) {
  const { data: stream, response } = await client.chat.completions.create({
    model: 'yakor', user, stream: true, stream_options: { include_usage: true },
    messages: [{ role: 'user', content }],
  }).withResponse();
  let text = '', role = '', finish = null, usage = null, ids = new Set();
  for await (const chunk of stream) {
    ids.add(chunk.id);
    assert.equal(chunk.object, 'chat.completion.chunk');
    if (chunk.usage) usage = chunk.usage;
    for (const c of chunk.choices) {
      role = role || c.delta.role || '';
      text += c.delta.content ?? '';
      finish = c.finish_reason ?? finish;
    }
  }
  assert.equal(role, 'assistant');
  assert.equal(finish, 'stop');
  assert.ok(usage && usage.total_tokens > 0, 'no usage chunk');
  assert.equal(ids.size, 1, `chunk ids: ${[...ids]}`);
  return { text, thread: response.headers.get('x-yakor-thread'), isNew: response.headers.get('x-yakor-thread-new') };
}
const bob = `npm-bob-${run}`;
const s1 = await streamed(bob, 'The delivery code is ZX-7741.');
assert.equal(s1.isNew, 'true');
const s2 = await streamed(bob, 'What is the delivery code?');
assert.equal(s2.thread, s1.thread);
assert.equal(s2.isNew, 'false');
assert.ok(s2.text.includes('ZX-7741'), `the second streamed reply lacks the code: ${s2.text}`);

// Refusals, as the client's typed errors.
await assert.rejects(
  client.chat.completions.create({ model: 'gpt-17', messages: [{ role: 'user', content: 'hi' }] }),
  (e) => e instanceof OpenAI.NotFoundError && e.code === 'model_not_found' && e.param === 'model',
);
await assert.rejects(
  client.chat.completions.create({ model: 'yakor', messages: [{ role: 'user', content: 'hi' }], n: 3 }),
  (e) => e instanceof OpenAI.BadRequestError && e.code === 'unsupported_parameter' && e.param === 'n',
);

console.log(JSON.stringify({ ann: annThread, annUser: ann, bob: s1.thread, bobUser: bob, annReply, bobReply: s2.text }));
