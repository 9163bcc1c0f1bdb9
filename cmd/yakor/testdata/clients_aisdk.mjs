// clients_aisdk.mjs drives `yakor serve` with the Vercel AI SDK (ai,
// @ai-sdk/openai, @ai-sdk/openai-compatible) over a canned model: the
// default openai("…") model (the Responses API) with generateText and
// streamText; the chat model with a tool loop; generateObject with a zod
// schema; the openai-compatible provider over two turns and streamed; and
// the errors of a wrong key and an unknown model. It prints what the Go
// test checks as JSON.
//
// Environment: YAKOR_BASE_URL, YAKOR_KEY, YAKOR_NODE_DIR.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(process.env.YAKOR_NODE_DIR + '/');
const { generateText, streamText, generateObject, tool, stepCountIs, APICallError } = await import(require.resolve('ai'));
const { createOpenAI } = await import(require.resolve('@ai-sdk/openai'));
const { createOpenAICompatible } = await import(require.resolve('@ai-sdk/openai-compatible'));
const { z } = await import(require.resolve('zod'));

const base = { baseURL: process.env.YAKOR_BASE_URL, apiKey: process.env.YAKOR_KEY };
const user = (name) => ({ 'X-Yakor-User': name });
const out = {};

// The default model: the Responses API, stateless (the SDK sends the
// whole conversation), not streamed and streamed.
const openai = createOpenAI({ ...base, headers: user('ai-resp') });
const messages = [{ role: 'user', content: 'The walnut shelf costs 7600.' }];
let r = await generateText({ model: openai('yakor'), messages, maxRetries: 0 });
messages.push({ role: 'assistant', content: r.text });
messages.push({ role: 'user', content: 'What does the walnut shelf cost?' });
const s = streamText({ model: openai('yakor'), messages, maxRetries: 0 });
let streamed = '';
for await (const part of s.textStream) streamed += part;
assert.match(streamed, /7600/, `streamed: ${streamed}`);
out.respMessages = messages.length + 1;

// Tools through the chat model: the SDK runs the tool and goes on.
const chat = createOpenAI({ ...base, headers: user('ai-tools') });
const withTools = await generateText({
  model: chat.chat('yakor'), maxRetries: 0, stopWhen: stepCountIs(3),
  prompt: 'What is the weather in Paris?',
  tools: { get_weather: tool({ description: 'The weather in a city', inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => `19 C in ${city}` }) },
});
assert.equal(withTools.text, 'The weather in Paris: 19 C in Paris.');
out.toolSteps = withTools.steps.length;

// Tools through the Responses API.
const respTools = await generateText({
  model: createOpenAI({ ...base, headers: user('ai-resp-tools') })('yakor'), maxRetries: 0, stopWhen: stepCountIs(3),
  prompt: 'What is the weather in Paris?',
  tools: { get_weather: tool({ description: 'The weather in a city', inputSchema: z.object({ city: z.string() }), execute: async () => '17 C' }) },
});
assert.equal(respTools.text, 'The weather in Paris: 17 C.');

// Structured output, through each model.
for (const [name, model] of [['resp', openai('yakor')], ['chat', chat.chat('yakor')]]) {
  const { object } = await generateObject({ model, maxRetries: 0, schema: z.object({ name: z.string(), age: z.number() }), prompt: `Who is it? (${name})` });
  assert.deepEqual(object, { name: 'Ann', age: 31 });
}

// The openai-compatible provider: two turns sending only the new message.
const compat = createOpenAICompatible({ name: 'yakor', ...base, headers: user('ai-compat') });
await generateText({ model: compat('yakor'), prompt: 'The birch stool costs 990.', maxRetries: 0 });
const c2 = streamText({ model: compat('yakor'), prompt: 'What does the birch stool cost?', maxRetries: 0 });
let compatText = '';
for await (const part of c2.textStream) compatText += part;
assert.match(compatText, /990/);

// Errors.
const wrong = createOpenAI({ ...base, apiKey: 'yk_wrong' });
await assert.rejects(generateText({ model: wrong('yakor'), prompt: 'hi', maxRetries: 0 }), (e) => APICallError.isInstance(e) && e.statusCode === 401);
await assert.rejects(generateText({ model: wrong.chat('yakor'), prompt: 'hi', maxRetries: 0 }), (e) => APICallError.isInstance(e) && e.statusCode === 401);
await assert.rejects(generateText({ model: openai('gpt-17'), prompt: 'hi', maxRetries: 0 }), (e) => APICallError.isInstance(e) && e.statusCode === 404);

console.log(JSON.stringify(out));
