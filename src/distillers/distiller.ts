import type { EvidenceTrace } from '../domain/evidence.js';
import type { Draft, Session, Span } from '../domain/types.js';

/** What a distiller gets for one admitted cluster. Only `evidence` is redacted text fit for a model. */
export interface DistillInput {
  clusterId: string;
  /** Successful spans of sessions that followed the procedure. */
  spans: Span[];
  /** Successful sessions behind the spans (for failure-then-recovery). */
  successes: Session[];
  /** Sessions of the cluster that failed: counter-examples for edge cases. */
  failures: Session[];
  /** Goal texts of the cluster's successful sessions, normalised (typed placeholders) and redacted. */
  goals: string[];
  /** Cues (first user messages) of those sessions, normalised and redacted, where the source had them. */
  cues?: string[];
  evidence: EvidenceTrace[];
  /** How distinctive each word is across this namespace's goals (higher = rarer). */
  goalWordWeight: (word: string) => number;
  /** How distinctive each tool is across this namespace's sessions (higher = rarer). */
  toolWeight: (tool: string) => number;
  /** The share of this namespace's sessions that call each tool (0..1); a tool most call names no task. */
  toolShare?: (tool: string) => number;
  /** Names already taken by other skills of the namespace: a draft must not clash. */
  takenNames: ReadonlySet<string>;
  /**
   * `successes`: the successful sessions the procedure was learned from (its material); `succeeded`: the
   * sessions that followed it and succeeded, material or not; `followers`: all that followed it.
   */
  stats: { successes: number; succeeded: number; followers: number; sessions: number };
}

/** Turns one cluster into a draft, or null for "no skill here" (the LLM's SKIP). */
export interface Distiller {
  readonly id: string;
  distil(input: DistillInput): Promise<Draft | null>;
  /**
   * Model distillers: a cheap availability check the pass runs before it writes anything. Throws
   * LlmUnavailableError (the pass is then skipped as a whole).
   */
  preflight?(): Promise<void>;
  /** Releases what the distiller holds (a loaded model); the owner calls it once, when done. */
  close?(): Promise<void>;
  /** Set when this pass's drafts came from a configured fallback because the model was unavailable. */
  readonly fellBack?: DistillerFallback | null;
}

/** Which distiller stood in for which during a pass, and why (`llm.fallback`). */
export interface DistillerFallback {
  from: string;
  to: string;
  reason: string;
}
