import type { Logger } from './log.js';

export const SKILL_EVENT_TYPES = [
  'skill.created',
  'skill.updated',
  'skill.reinforced',
  'skill.superseded',
  'skill.verification_failed',
  'skill.status_changed',
  'skill.eta_changed',
  'skill.retired',
  'skill.enabled',
  'skill.disabled',
  'skill.exported',
  'skill.imported',
  'skill.promoted',
  'skill.renamed',
  'skill.edited',
  'skill.reverted',
  'skill.revised',
  'skill.forgotten',
  'skill.parent_forgotten',
] as const;

export type SkillEventType = (typeof SKILL_EVENT_TYPES)[number];

export interface BusEvent {
  id: number;
  type: SkillEventType;
  namespace: string;
  at: string;
  skillId: string | null;
  payload: Record<string, unknown>;
}

export type Listener = (event: BusEvent) => void | Promise<void>;

/**
 * A typed event bus. A listener that throws (or rejects) is logged and ignored: no listener can break the
 * pass or the command that emitted the event.
 */
export class EventBus {
  private readonly listeners = new Map<SkillEventType | '*', Set<Listener>>();

  constructor(private readonly log: Logger) {}

  on(type: SkillEventType | '*', listener: Listener): () => void {
    let set = this.listeners.get(type);
    if (!set) this.listeners.set(type, (set = new Set()));
    set.add(listener);
    return () => set!.delete(listener);
  }

  emit(event: BusEvent): void {
    for (const l of [...(this.listeners.get(event.type) ?? []), ...(this.listeners.get('*') ?? [])]) {
      try {
        const r = l(event);
        if (r && typeof (r as Promise<void>).catch === 'function') {
          (r as Promise<void>).catch((e) =>
            this.log.warn('event listener failed', { type: event.type, error: String(e) }),
          );
        }
      } catch (e) {
        this.log.warn('event listener failed', { type: event.type, error: String(e) });
      }
    }
  }

  get size(): number {
    let n = 0;
    for (const s of this.listeners.values()) n += s.size;
    return n;
  }
}
