import { createHash } from 'node:crypto';

/**
 * The records of one file that are earlier snapshots of another of its records: a conversation logged again each
 * time it grew (a request log holding every message so far, a chat saved after each reply, a LangGraph `values`
 * stream). A record whose message list is a proper prefix of another record's list is superseded by it: reading
 * both would store the same task twice, the first time cut short. Records are compared by their lists alone, in any
 * order (conversations logged side by side interleave). `lists[i]` is the message list of record i, or null for a
 * record that holds none. Returns, for each superseded record, the index of a record that extends it.
 */
export function supersededSnapshots(lists: readonly (readonly unknown[] | null)[]): Map<number, number> {
  const whole = new Map<string, number[]>();
  const prefixes: string[][] = [];
  lists.forEach((list, i) => {
    const seen: string[] = [];
    if (list?.length) {
      const h = createHash('sha256');
      for (const m of list) {
        h.update(`${JSON.stringify(m) ?? 'null'}\n`);
        seen.push(h.copy().digest('hex'));
      }
      const key = seen[seen.length - 1];
      whole.set(key, [...(whole.get(key) ?? []), i]);
    }
    prefixes.push(seen.slice(0, -1));
  });
  const superseded = new Map<number, number>();
  prefixes.forEach((own, j) => {
    for (const p of own) for (const i of whole.get(p) ?? []) if (!superseded.has(i)) superseded.set(i, j);
  });
  return superseded;
}
