// clients_langchain.mjs drives `yakor serve` with LangChain JS
// (@langchain/openai's ChatOpenAI) over a canned model: two turns that
// send only the new message; a bindTools loop (the model calls get_weather,
// the script answers with a ToolMessage, the model answers); the same
// conversation resent, as LangChain sends it; withStructuredOutput; a
// retry after a 502; and the errors of a wrong key and an unknown model.
//
// Environment: YAKOR_BASE_URL, YAKOR_KEY, YAKOR_NODE_DIR.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(process.env.YAKOR_NODE_DIR + '/');
const { ChatOpenAI } = await import(require.resolve('@langchain/openai'));
const { HumanMessage, ToolMessage } = await import(require.resolve('@langchain/core/messages'));
const { tool } = await import(require.resolve('@langchain/core/tools'));
const { z } = await import(require.resolve('zod'));

const model = (user, opts = {}) => new ChatOpenAI({
  model: 'yakor', apiKey: process.env.YAKOR_KEY, maxRetries: 0,
  configuration: { baseURL: process.env.YAKOR_BASE_URL, defaultHeaders: { 'X-Yakor-User': user } }, ...opts,
});
const out = {};

// Two turns, each sending only its message.
await model('lc-two').invoke([new HumanMessage('The maple desk costs 15300.')]);
const second = await model('lc-two').invoke([new HumanMessage('What does the maple desk cost?')]);
assert.match(second.content, /15300/);

// A bindTools loop, resending the conversation as LangChain does.
const getWeather = tool(async ({ city }) => `16 C in ${city}`, {
  name: 'get_weather', description: 'The weather in a city', schema: z.object({ city: z.string() }),
});
const withTools = model('lc-tools').bindTools([getWeather]);
const convo = [new HumanMessage('What is the weather in Paris?')];
const ai = await withTools.invoke(convo);
assert.equal(ai.tool_calls.length, 1);
assert.equal(ai.tool_calls[0].name, 'get_weather');
convo.push(ai);
convo.push(new ToolMessage({ tool_call_id: ai.tool_calls[0].id, content: await getWeather.invoke(ai.tool_calls[0].args) }));
const answer = await withTools.invoke(convo);
assert.equal(answer.content, 'The weather in Paris: 16 C in Paris.');
convo.push(answer);
convo.push(new HumanMessage('Thanks. Is that warm?'));
await withTools.invoke(convo);
out.toolMessages = convo.length + 1;

// Structured output.
const structured = model('lc-json').withStructuredOutput(z.object({ name: z.string(), age: z.number() }), { name: 'person' });
assert.deepEqual(await structured.invoke('Who is it?'), { name: 'Ann', age: 31 });

// LangChain's own retries after a 502 (it sends no Idempotency-Key).
const retried = await model('lc-retry', { maxRetries: 3 }).invoke([new HumanMessage('FAIL-ONCE: the crate 8812 is heavy.')]);
assert.equal(retried.content, 'Noted.');

// Errors.
const wrong = new ChatOpenAI({ model: 'yakor', apiKey: 'yk_wrong', maxRetries: 0, configuration: { baseURL: process.env.YAKOR_BASE_URL } });
await assert.rejects(wrong.invoke('hi'), (e) => e.status === 401 || e.lc_error_code === 'MODEL_AUTHENTICATION');
await assert.rejects(model('lc-two', { model: 'gpt-17' }).invoke('hi'), (e) => e.status === 404 || e.lc_error_code === 'MODEL_NOT_FOUND');

console.log(JSON.stringify(out));
