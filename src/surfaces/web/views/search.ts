import { api } from '../api.js';
import { errorBox, skillHref, statusBadge } from '../components.js';
import { h, mount } from '../dom.js';
import { num } from '../format.js';
import type { RecallAnswer } from '../types.js';

/** Type a goal, see what recall hands the planner: the skills, best first, and the context pack itself. */
export async function searchView(main: HTMLElement, params: URLSearchParams): Promise<void> {
  const goal = h('textarea', {
    id: 'goal',
    name: 'goal',
    rows: 3,
    required: true,
    placeholder: 'e.g. I need to return a couple of items from my order',
  });
  goal.value = params.get('goal') ?? '';
  const topK = h(
    'select',
    { id: 'top-k' },
    [1, 2, 3, 5].map((k) => h('option', { value: k, selected: k === 2 }, String(k))),
  );
  const results = h('section', { id: 'recall-results', 'aria-live': 'polite', 'aria-label': 'Recall results' });

  const run = async () => {
    const text = goal.value.trim();
    if (!text) return;
    history.replaceState(null, '', `#/search?${new URLSearchParams({ goal: text })}`);
    mount(results, h('p', { class: 'muted' }, 'Recalling…'));
    try {
      const r = await api.post<RecallAnswer>('/api/recall', { goal: text, topK: Number(topK.value) });
      mount(
        results,
        h(
          'h2',
          {},
          r.skills.length
            ? `${r.skills.length} skill${r.skills.length === 1 ? '' : 's'} recalled`
            : 'No skill recalled',
        ),
        r.skills.length
          ? h(
              'ol',
              { class: 'recalled' },
              r.skills.map((s) =>
                h(
                  'li',
                  { 'data-skill': s.name },
                  h('a', { href: skillHref(s.name), class: 'skill-name' }, s.name),
                  ` — similarity ${num(s.similarity)}, eta ${num(s.eta)} `,
                  statusBadge(s.status),
                  h('p', { class: 'desc' }, s.description),
                  h('p', { class: 'muted' }, 'Tools: ', path(s.toolSequence)),
                  s.branches.length
                    ? h(
                        'ul',
                        { class: 'branches muted', 'aria-label': 'Branches' },
                        s.branches.map((b) =>
                          h(
                            'li',
                            {},
                            ...(b.when.available
                              ? ['If you can call ', h('code', {}, b.when.tool), ': ']
                              : [
                                  'If ',
                                  h('code', {}, b.when.tool),
                                  ' shows ',
                                  h('code', {}, b.when.path),
                                  ` in ${JSON.stringify(b.when.in)}: `,
                                ]),
                            path(b.toolSequence),
                          ),
                        ),
                      )
                    : null,
                ),
              ),
            )
          : h('p', {}, 'Nothing learned is close enough to this goal (or the close skills are disabled or retired).'),
        r.context
          ? h(
              'details',
              { open: true },
              h('summary', {}, 'What the planner receives'),
              h('pre', { class: 'context' }, r.context),
            )
          : null,
      );
    } catch (e) {
      mount(results, errorBox(e));
    }
  };

  mount(
    main,
    h('h1', { tabindex: -1 }, 'Search by goal'),
    h(
      'p',
      { class: 'lede' },
      'What recall returns for a goal, as an agent would get it. A search counts as a use of the skills it returns (their “last used” time changes).',
    ),
    h(
      'form',
      {
        class: 'search-form',
        role: 'search',
        onsubmit: (e: Event) => {
          e.preventDefault();
          void run();
        },
      },
      h('label', { for: 'goal' }, 'Goal'),
      goal,
      h(
        'div',
        { class: 'row' },
        h('label', { for: 'top-k' }, 'At most'),
        topK,
        h('span', {}, 'skills'),
        h('button', { type: 'submit', class: 'primary' }, 'Recall'),
      ),
    ),
    results,
  );
  if (goal.value) await run();
}

/** A tool sequence as code spans joined by arrows. */
function path(tools: readonly string[]) {
  return tools.map((t, i) => [i ? ' → ' : '', h('code', {}, t)]);
}
