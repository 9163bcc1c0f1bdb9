// clients_openai.mjs drives `yakor serve` with the official openai npm
// client over a canned model (cmd/yakor cannedmodel_test.go): a two-turn
// conversation that sends only the new message; a stateless conversation
// resent three times; tool round trips through chat.completions (streamed
// and not) and responses.create; structured output with json_schema;
// responses.create plain and streamed, continued with previous_response_id;
// a retry after a 502; and the typed errors of a wrong key and an unknown
// model. It asserts as it goes and prints what the Go test checks as JSON.
//
// Environment: YAKOR_BASE_URL, YAKOR_KEY (a key of the server),
// YAKOR_NODE_DIR (the folder whose node_modules holds the packages).
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(process.env.YAKOR_NODE_DIR + '/');
const { OpenAI } = require('openai');

const base = { baseURL: process.env.YAKOR_BASE_URL, apiKey: process.env.YAKOR_KEY };
const client = new OpenAI({ ...base, maxRetries: 0 });
const out = {};
const weather = { type: 'function', function: { name: 'get_weather', description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } };

// Two turns, the second sending only its question.
let r = await client.chat.completions.create({ model: 'yakor', user: 'oa-two', messages: [{ role: 'user', content: 'The oak table costs 48200 rubles.' }] });
r = await client.chat.completions.create({ model: 'yakor', user: 'oa-two', messages: [{ role: 'user', content: 'What does the oak table cost?' }] });
assert.match(r.choices[0].message.content, /48200/, 'the second turn did not get the first from memory');

// Stateless: the whole conversation every time.
const history = [];
for (const q of ['The sofa is 31500.', 'The lamp is 2900.', 'What do the sofa and the lamp cost?']) {
  history.push({ role: 'user', content: q });
  const c = await client.chat.completions.create({ model: 'yakor', user: 'oa-stateless', messages: history });
  history.push({ role: 'assistant', content: c.choices[0].message.content });
}
assert.match(history.at(-1).content, /31500/);
out.stateless = history.length;

// Tools through chat.completions, not streamed and streamed.
for (const stream of [false, true]) {
  const msgs = [{ role: 'user', content: `What is the weather in Paris? (${stream})` }];
  let call;
  if (!stream) {
    const c = await client.chat.completions.create({ model: 'yakor', user: 'oa-tools', messages: msgs, tools: [weather] });
    assert.equal(c.choices[0].finish_reason, 'tool_calls');
    call = c.choices[0].message;
  } else {
    const runner = client.chat.completions.stream({ model: 'yakor', user: 'oa-tools', messages: msgs, tools: [weather] });
    const done = await runner.finalChatCompletion();
    assert.equal(done.choices[0].finish_reason, 'tool_calls');
    call = done.choices[0].message;
  }
  assert.equal(call.tool_calls.length, 1);
  assert.equal(call.tool_calls[0].function.name, 'get_weather');
  assert.deepEqual(JSON.parse(call.tool_calls[0].function.arguments), { city: 'Paris' });
  msgs.push({ role: 'assistant', content: call.content ?? null, tool_calls: call.tool_calls });
  msgs.push({ role: 'tool', tool_call_id: call.tool_calls[0].id, content: '18 C' });
  const c = await client.chat.completions.create({ model: 'yakor', user: 'oa-tools', messages: msgs, tools: [weather] });
  assert.equal(c.choices[0].message.content, 'The weather in Paris: 18 C.');
}

// Structured output.
const person = await client.chat.completions.create({ model: 'yakor', user: 'oa-json', messages: [{ role: 'user', content: 'Who is it?' }],
  response_format: { type: 'json_schema', json_schema: { name: 'person', schema: { type: 'object', properties: { name: { type: 'string' }, age: { type: 'number' } }, required: ['name', 'age'] } } } });
assert.deepEqual(JSON.parse(person.choices[0].message.content), { name: 'Ann', age: 31 });

// The Responses API: plain, continued, streamed, and a tool round trip.
const r1 = await client.responses.create({ model: 'yakor', user: 'oa-resp', input: 'The pine panel costs 1250.' });
assert.equal(r1.status, 'completed');
const r2 = await client.responses.create({ model: 'yakor', user: 'oa-resp', input: 'What does the pine panel cost?', previous_response_id: r1.id });
assert.match(r2.output_text, /1250/);
const events = [];
let streamedText = '';
const st = await client.responses.create({ model: 'yakor', user: 'oa-resp', input: 'And the oak board is 3400. What is the total?', previous_response_id: r2.id, stream: true });
for await (const ev of st) {
  events.push(ev.type);
  if (ev.type === 'response.output_text.delta') streamedText += ev.delta;
}
assert.equal(events[0], 'response.created');
assert.equal(events.at(-1), 'response.completed');
assert.match(streamedText, /3400/);
const fc = await client.responses.create({ model: 'yakor', user: 'oa-resp-tools', input: 'What is the weather in Paris?',
  tools: [{ type: 'function', name: 'get_weather', parameters: weather.function.parameters }] });
const fcall = fc.output.find((o) => o.type === 'function_call');
assert.ok(fcall, JSON.stringify(fc.output));
const fr = await client.responses.create({ model: 'yakor', user: 'oa-resp-tools', previous_response_id: fc.id,
  input: [{ type: 'function_call_output', call_id: fcall.call_id, output: '21 C' }], tools: [{ type: 'function', name: 'get_weather', parameters: weather.function.parameters }] });
assert.equal(fr.output_text, 'The weather in Paris: 21 C.');

// A retry after a 502: the client's own retries (none of these clients
// sends Idempotency-Key).
const retrying = new OpenAI({ ...base, maxRetries: 2 });
const rr = await retrying.chat.completions.create({ model: 'yakor', user: 'oa-retry', messages: [{ role: 'user', content: 'FAIL-ONCE: note the crate 7741.' }] });
assert.equal(rr.choices[0].message.content, 'Noted.');

// Typed errors.
const wrong = new OpenAI({ ...base, apiKey: 'yk_wrong', maxRetries: 0 });
await assert.rejects(wrong.chat.completions.create({ model: 'yakor', messages: [{ role: 'user', content: 'hi' }] }), (e) => e instanceof OpenAI.AuthenticationError && e.status === 401);
await assert.rejects(wrong.responses.create({ model: 'yakor', input: 'hi' }), (e) => e instanceof OpenAI.AuthenticationError);
await assert.rejects(client.chat.completions.create({ model: 'gpt-17', messages: [{ role: 'user', content: 'hi' }] }), (e) => e instanceof OpenAI.NotFoundError && e.code === 'model_not_found');
await assert.rejects(client.responses.create({ model: 'gpt-17', input: 'hi' }), (e) => e instanceof OpenAI.NotFoundError);

console.log(JSON.stringify(out));
