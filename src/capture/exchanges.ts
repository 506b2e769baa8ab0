import { isObject, type JsonObject } from './common.js';

/**
 * One logged model call, as an LLM gateway or a logging wrapper keeps it (LiteLLM's `StandardLoggingPayload`,
 * `{request, response}` pairs): the messages the agent sent and the message the model answered, read as one
 * conversation `{messages: [...sent, answer]}` (with the request's `system`, for Anthropic). Requests hold their
 * messages under `request`, `request.body`, or beside the `response`; the answer is a chat completion's
 * `choices[0].message` or an Anthropic message (`role: "assistant"`, `content`), bare or under `body`. An agent
 * makes one call per step, each sending every message so far, so a log of its calls holds the same conversation
 * many times, each growing: the parser reads the fullest one (see snapshots.ts). Anything else is null.
 */
export function exchangeConversation(v: unknown): JsonObject | null {
  if (!isObject(v) || !('response' in v)) return null;
  const wrapped = isObject(v.request);
  const request = isObject(v.request) ? (isObject(v.request.body) ? v.request.body : v.request) : v;
  if (!Array.isArray(request.messages)) return null;
  const answer = answerOf(v.response);
  // Beside the response, `messages` is an exchange only when the response is a model's answer.
  if (!answer && !wrapped) return null;
  return {
    messages: answer ? [...request.messages, answer] : request.messages,
    ...(request.system !== undefined ? { system: request.system } : {}),
  };
}

/** The model's message in a response: a chat completion's first choice, or an Anthropic message. */
function answerOf(response: unknown): JsonObject | null {
  const r = isObject(response) && isObject(response.body) ? response.body : response;
  if (!isObject(r)) return null;
  const choice = Array.isArray(r.choices) ? r.choices[0] : null;
  if (isObject(choice) && isObject(choice.message)) return choice.message;
  if (r.role === 'assistant' && 'content' in r) return { role: 'assistant', content: r.content };
  return null;
}
