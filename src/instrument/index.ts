// Tool instrumentation: wrap tools once, record every call into the session the caller opened.
export {
  createRecorder,
  ToolRecorder,
  RecordedSession,
  readMcpResult,
  summarise,
  argsRecord,
  type RecordingTarget,
  type TargetSession,
  type RecorderOptions,
  type RecordingErrorContext,
  type ResultReading,
  type StartOptions,
  type EndOptions,
  type EndResult,
  type RecordedCall,
} from './recorder.js';
