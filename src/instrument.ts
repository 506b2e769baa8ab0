// Instrumentation entry point (`skillsmith/instrument`): wrap an agent's tools once and every call is recorded
// into the session the caller opened, without changing a tool's result or throwing into the agent.

/** Wraps tools (plain functions, Vercel AI SDK tools, an MCP client) to record their calls into a memory. */
export { createRecorder, ToolRecorder, RecordedSession } from './instrument/recorder.js';
/** Where recorded calls go (a Memory or anything with `startSession`), and the recorder's options. */
export type { RecordingTarget, RecorderOptions, StartOptions, EndOptions, EndResult } from './instrument/recorder.js';
