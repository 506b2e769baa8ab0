/**
 * A reasoning model's answer without its thinking: the `<think>...</think>` blocks (DeepSeek-R1, Qwen3 and others
 * served by Ollama or llama.cpp write them before the answer) are not the answer, and a word in them ("the call
 * FAILED, but then...") must never be read as one.
 */
export function withoutThinking(text: string): string {
  return text.replace(/<think>[\s\S]*?<\/think>/gi, '');
}
