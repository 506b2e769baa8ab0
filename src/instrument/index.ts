// Tool instrumentation: wrap tools once, record every call into the session the caller opened.
export { createRecorder, type RecordingTarget, type TargetSession } from './recorder.js';
