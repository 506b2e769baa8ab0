import { INGEST_FORMATS } from '../../capture/types.js';
import { MAX_FEEDBACK_ID_CHARS } from '../../domain/feedback-key.js';
import { CSRF_HEADER } from './security.js';
import { SESSION_PAGE } from '../shapes.js';

type Schema = Record<string, unknown>;

const json = (schema: Schema, description = 'OK') => ({ description, content: { 'application/json': { schema } } });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
/** `/api/health`'s answer, with the store state it says. */
const health = (store: 'ok' | 'unreachable'): Schema => ({
  type: 'object',
  required: ['ok', 'name', 'version', 'store', ...(store === 'ok' ? [] : ['error'])],
  properties: {
    ok: { type: 'boolean', const: store === 'ok' },
    name: { type: 'string' },
    version: { type: 'string' },
    store: { type: 'string', const: store },
    ...(store === 'ok' ? {} : { error: { type: 'string' } }),
  },
});
const error = (description: string) => json(ref('Error'), description);
const page = (item: Schema) => ({
  type: 'object',
  required: ['total', 'limit', 'offset', 'items'],
  properties: {
    total: { type: 'integer' },
    limit: { type: 'integer' },
    offset: { type: 'integer' },
    items: { type: 'array', items: item },
  },
});
const query = (name: string, schema: Schema, description?: string) => ({
  name,
  in: 'query',
  required: false,
  schema,
  description,
});
const path = (name: string) => ({ name, in: 'path', required: true, schema: { type: 'string' } });
/** A JSON request body; an object takes the fields it names and no others (an unknown field is a 400). */
const body = (schema: Schema) => ({
  required: true,
  content: {
    'application/json': { schema: schema.type === 'object' ? { additionalProperties: false, ...schema } : schema },
  },
});
const csrf = { name: CSRF_HEADER, in: 'header', required: true, schema: { type: 'string', enum: ['1'] } };
/** `limit` and `offset` of a paged list, with the largest page the route serves. */
const paging = (max: number) => [
  query('limit', { type: 'integer', minimum: 1, maximum: max }),
  query('offset', { type: 'integer', minimum: 0 }),
];
const notFound = { 404: error('No such skill or session') };
const rejected = {
  400: error('Invalid request'),
  403: error(`Missing ${CSRF_HEADER} header`),
  413: error('Body too large'),
};

interface Operation {
  security?: unknown[];
  parameters?: { in?: string }[];
  responses: Record<string, unknown>;
}

/**
 * The answers any operation may give besides its own: 401 where a token may be required, 400 where a query string
 * is validated, 503 while the memory's database cannot be reached.
 */
function withCommonAnswers<D extends { paths: object }>(doc: D): D {
  for (const ops of Object.values(doc.paths as Record<string, Record<string, Operation>>))
    for (const op of Object.values(ops)) {
      const answers = op.responses;
      if (!op.security || op.security.length)
        answers[401] ??= error('The server has a token and the request gave none, or another');
      if (op.parameters?.some((p) => p.in === 'query')) answers[400] ??= error('Invalid query string');
      answers[503] ??= error("The memory's database cannot be reached (a PostgreSQL server down or restarting)");
    }
  return doc;
}

/** The OpenAPI 3.1 description of /api (hand-written: the routes are few and their shapes stable). */
export function openApiDocument(version: string) {
  return withCommonAnswers({
    openapi: '3.1.0',
    info: {
      title: 'Skillsmith API',
      version,
      description:
        'Procedural memory for LLM agents: the learned skills, the sessions they came from, compile, recall and feedback. ' +
        `Every state-changing request needs the header ${CSRF_HEADER}: 1. When the server was started with a token, every ` +
        "route but /api/health and /api/openapi.json needs Authorization: Bearer <token>. While the memory's database " +
        'cannot be reached (a PostgreSQL server down), every route answers 503; so does a write that found a SQLite ' +
        "memory's file held by another process's write for longer than it waits (5 s), with Retry-After. A method a path does not take answers " +
        '405, with Allow naming the ones it does.',
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    paths: {
      '/api/health': {
        get: {
          summary: "Liveness, and whether the memory's database answers",
          security: [],
          responses: {
            200: json(health('ok'), 'The server runs and its memory answers'),
            503: json(health('unreachable'), "The memory's database cannot be reached (a PostgreSQL server down)"),
          },
        },
      },
      '/api/stats': {
        get: {
          summary:
            'Counts of skills by status and corpus, sessions, last event id, the embedder and distiller in use, and ' +
            'synthesis.minOccurrences (the similar successful sessions a skill needs)',
          responses: { 200: json({ type: 'object' }) },
        },
      },
      '/api/skills': {
        get: {
          summary: 'Live skills (all=true adds superseded ones), filtered, sorted and paged',
          parameters: [
            query('status', { type: 'string' }, 'comma-separated: probationary,active,retired'),
            query('corpus', { type: 'string', enum: ['internal', 'external'] }),
            query('enabled', { type: 'boolean' }),
            query('all', { type: 'boolean' }),
            query('q', { type: 'string' }, 'substring of the name or description'),
            query('sort', { type: 'string', enum: ['name', 'eta', 'support', 'lastUsedAt', 'updatedAt'] }),
            query(
              'summary',
              { type: 'boolean' },
              'each skill with sourceSessionCount instead of its sourceSessions ids (hundreds on a busy memory)',
            ),
            ...paging(500),
          ],
          responses: { 200: json(page(ref('Skill'))), 400: error('Invalid query') },
        },
      },
      '/api/skills.zip': {
        get: {
          summary: 'Export as a zip of <name>/SKILL.md (live internal skills; external=true adds imported ones)',
          parameters: [
            query('names', { type: 'string' }, 'comma-separated skill names'),
            query('external', { type: 'boolean' }),
          ],
          responses: {
            200: { description: 'zip archive', content: { 'application/zip': {} } },
            404: error('A name in names is no skill'),
          },
        },
      },
      '/api/skills/{name}': {
        get: {
          summary: 'One skill with its SKILL.md',
          parameters: [path('name')],
          responses: {
            200: json(ref('Skill')),
            404: json(
              {
                type: 'object',
                required: ['error', 'code'],
                properties: {
                  error: { type: 'string' },
                  code: { type: 'string', enum: ['NOT_FOUND'] },
                  nowKnownAs: {
                    type: 'object',
                    required: ['name', 'how'],
                    properties: { name: { type: 'string' }, how: { type: 'string', enum: ['renamed', 'superseded'] } },
                    description:
                      'the skill this name now leads to (a person renamed it, or a later skill superseded it)',
                  },
                },
              },
              'No skill has this name; nowKnownAs names the one it became, when it was renamed or superseded',
            ),
          },
        },
        delete: {
          summary:
            'Forget a skill: its row, versions, provenance, track record and vectors are deleted and it is never recalled again; an audit record keeps its id and name',
          parameters: [path('name'), csrf],
          responses: {
            200: json({
              type: 'object',
              required: ['forgotten'],
              properties: {
                forgotten: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' } } },
              },
            }),
            ...notFound,
            403: error(`Missing ${CSRF_HEADER} header`),
          },
        },
        patch: {
          summary: 'Enable or disable a skill for recall, or rename it (a name later passes keep), or both',
          parameters: [path('name'), csrf],
          requestBody: body({
            type: 'object',
            minProperties: 1,
            additionalProperties: false,
            properties: {
              enabled: { type: 'boolean' },
              name: {
                type: 'string',
                description:
                  'new name: 1-64 of a-z, 0-9 and "-" (not first or last, never two together), no other live skill has it; a new version says it in its title and description; the name it has, or a rename already done, changes nothing',
              },
              force: { type: 'boolean', description: 'take a name another skill had before a person renamed it' },
            },
          }),
          responses: {
            200: json(
              {
                allOf: [
                  ref('Skill'),
                  {
                    type: 'object',
                    properties: {
                      changed: {
                        type: 'boolean',
                        description:
                          'only when the body gives name (as skills rename --json says it): true when this request renamed the skill; false when it had the name already, or a rename asked again finds it done',
                      },
                    },
                  },
                ],
              },
              'The skill as it is now',
            ),
            ...notFound,
            ...rejected,
            409: error('The name is taken, the skill is imported, or a synthesis pass is running'),
          },
        },
      },
      '/api/skills/{name}/promote': {
        post: {
          summary:
            'Promote an imported skill (skills import) into the internal corpus: from then on recall can serve it; ' +
            'or bring a retired skill back on probation (status probationary, at least the eta its evidence gave it). No body',
          parameters: [path('name'), csrf],
          responses: {
            200: json(ref('Skill'), 'Promoted: the skill as it is now (corpus internal, not retired)'),
            404: error('No imported or retired skill has this name'),
            403: error(`Missing ${CSRF_HEADER} header`),
            409: error(
              'The skill is internal and not retired already (learned here, or promoted before), or an internal skill has its name',
            ),
          },
        },
      },
      '/api/skills/{name}/SKILL.md': {
        get: {
          summary: 'Export one skill as SKILL.md (redacted, validated)',
          parameters: [path('name')],
          responses: {
            200: { description: 'SKILL.md', content: { 'text/markdown': {} } },
            ...notFound,
            422: error('Not exportable'),
          },
        },
        put: {
          summary:
            "A person's correction of a learned skill (skills edit): the body is the whole SKILL.md. It must be a valid " +
            "SKILL.md with the skill's own name (a new name is PATCH's); secrets and personal data are redacted; the " +
            "frontmatter metadata is the memory's. A new version of the same skill: its description and body as written, " +
            'its toolSequence the tools its "## Steps" call ("Call `tool` ..."), or the one it had (said in warnings). ' +
            'Later passes keep the text, and record when its sessions suggest another procedure (explain: edited). ' +
            'An empty text, or the text it has, changes nothing (changed false, why)',
          parameters: [path('name'), csrf],
          requestBody: {
            required: true,
            content: { 'text/markdown': { schema: { type: 'string', description: 'the whole SKILL.md' } } },
          },
          responses: {
            200: json(ref('SkillEdit'), 'The skill as it is now'),
            ...notFound,
            ...rejected,
            409: error('An imported skill (edit its folder and import it again), or a synthesis pass is running'),
            415: error('The body is not text (send the SKILL.md as text/markdown)'),
          },
        },
      },
      '/api/skills/{name}/revert': {
        post: {
          summary:
            'Hand a skill a person edited back to the learner (skills edit --revert): a new version with the text it ' +
            'last learned, under its name and counts now; the next pass may write it again. A skill nobody edited ' +
            "changes nothing (changed false, why 'not-edited'). No body",
          parameters: [path('name'), csrf],
          responses: {
            200: json(ref('SkillEdit'), 'The skill as it is now'),
            ...notFound,
            403: error(`Missing ${CSRF_HEADER} header`),
            409: error('A synthesis pass is running'),
          },
        },
      },
      '/api/skills/{name}/explain': {
        get: {
          summary:
            'Parents, versions, supersede chain, trials and track record; standing: {recallable, reason}, why recall ' +
            'does not serve it (retired by its trials, disabled, superseded, imported) and what brings it back',
          parameters: [
            path('name'),
            query(
              'sessions',
              { type: 'integer', minimum: 0 },
              'give only the first N parent sessions (parents.sessionCount counts them all)',
            ),
          ],
          responses: { 200: json({ type: 'object' }), ...notFound },
        },
      },
      '/api/skills/{name}/diff': {
        get: {
          summary:
            'What changed in its SKILL.md between two versions (default: the latest against the one before): ' +
            '{id, name, from, to, hunks} with diff -u hunks; from is null for a skill of one version',
          parameters: [
            path('name'),
            query('from', { type: 'string' }, 'a version, e.g. 1.0.0 (default: the one before to)'),
            query('to', { type: 'string' }, 'a version (default: the latest)'),
          ],
          responses: { 200: json({ type: 'object' }), 400: error('Invalid query'), ...notFound },
        },
      },
      '/api/skills/{name}/feedback': {
        post: {
          summary: 'Apply one feedback signal',
          description:
            'A retry is safe with an idempotency key (the Idempotency-Key header, or feedbackId in the body): the same feedback sent again under it is answered with repeated: true and not counted twice; a trial with a sessionId counts once for that session either way.',
          parameters: [
            path('name'),
            csrf,
            {
              name: 'Idempotency-Key',
              in: 'header',
              required: false,
              schema: { type: 'string', minLength: 1, maxLength: MAX_FEEDBACK_ID_CHARS },
              description: 'a key of your choosing for this feedback (as feedbackId; give the same one if both)',
            },
          ],
          requestBody: body({
            type: 'object',
            required: ['signal'],
            properties: {
              signal: { type: 'string', description: 'pass | fail | up | down | reward=<0..1>' },
              sessionId: { type: 'string' },
              feedbackId: {
                type: 'string',
                minLength: 1,
                maxLength: MAX_FEEDBACK_ID_CHARS,
                description: 'an idempotency key (as the Idempotency-Key header)',
              },
            },
          }),
          responses: {
            200: json({
              type: 'object',
              required: ['before', 'after', 'repeated'],
              properties: {
                before: ref('Skill'),
                after: ref('Skill'),
                repeated: {
                  type: 'boolean',
                  description:
                    'true: this feedback was given before under its key (or, a trial, for its session); nothing was counted again, and before and after are the skill as it is',
                },
              },
            }),
            ...notFound,
            409: error(
              'A trial from a session that already gave this skill the other result (one trial a session), or a feedbackId / Idempotency-Key given before with another signal, value or skill',
            ),
            ...rejected,
          },
        },
      },
      '/api/ingest': {
        post: {
          summary:
            'Ingest a log as an application keeps it (a saved AI SDK chat, a Pydantic AI or AutoGen history, a LangGraph thread, Agents SDK items, OpenAI / Anthropic messages, a gateway log of model calls, a transcript, JSONL sessions): the raw body, in any format skillsmith ingest reads. Capture privacy applies; sessions without an outcome are judged',
          parameters: [
            query('format', { type: 'string', enum: INGEST_FORMATS, default: 'auto' }),
            query('judge', { type: 'string', enum: ['rule', 'llm', 'off'] }, 'outcome judge (default: capture.judge)'),
            query(
              'dryRun',
              { type: 'string', enum: ['true', 'false'], default: 'false' },
              'true: store nothing, say what would be stored',
            ),
            query(
              'name',
              { type: 'string', maxLength: 200, default: 'request' },
              'the name problems and notes give the log',
            ),
            csrf,
          ],
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: {} },
              'application/x-ndjson': { schema: { type: 'string' } },
              'text/plain': { schema: { type: 'string' } },
            },
          },
          responses: {
            200: json(
              { type: 'object', description: 'as skillsmith ingest --json (with dryRun, as ingest --dry-run --json)' },
              'Read; every session stored (or, with dryRun, what would be)',
            ),
            422: json(
              { type: 'object', description: 'the same body, with problems naming each rejected record' },
              'Some records were rejected; every valid one was stored',
            ),
            ...rejected,
            503: error('Memory is disabled'),
          },
        },
      },
      '/api/sessions': {
        get: {
          summary: 'Stored sessions, newest first',
          parameters: paging(SESSION_PAGE.max),
          responses: { 200: json(page(ref('SessionSummary'))) },
        },
        post: {
          summary: 'Start a session (or re-open a live one by id); record its calls, then end it',
          parameters: [csrf],
          requestBody: body({
            type: 'object',
            required: ['goal'],
            properties: {
              goal: { type: 'string', description: 'what the agent is trying to do' },
              cue: { type: 'string', description: "the user's own words when the goal is something else" },
              id: { type: 'string', maxLength: 500, description: 'your id for the session (default: a new one)' },
              agentId: { type: 'string' },
              source: { type: 'string', default: 'http' },
            },
          }),
          responses: {
            201: json(ref('SessionSummary'), 'Started'),
            ...rejected,
            409: error('A session with this id already ended'),
          },
        },
      },
      '/api/sessions/{id}': {
        get: {
          summary:
            'One session with each tool call, and `recalled`: the skills recalled for it in the order served ([{skill, similarity, at}]), which its reported outcome credits',
          parameters: [path('id')],
          responses: { 200: json({ type: 'object' }), ...notFound },
        },
        delete: {
          summary:
            'Forget a session: its goal, calls, results, cluster membership and recalls are deleted; skills learned from it keep a forgotten-parent marker; an audit record names it by an opaque reference',
          parameters: [path('id'), csrf],
          responses: {
            200: json({
              type: 'object',
              required: ['forgotten'],
              properties: {
                forgotten: {
                  type: 'object',
                  properties: {
                    ref: { type: 'string' },
                    calls: { type: 'integer' },
                    skills: { type: 'array', items: { type: 'string' } },
                  },
                },
              },
            }),
            ...notFound,
            403: error(`Missing ${CSRF_HEADER} header`),
            409: error('A synthesis pass is running on the namespace'),
          },
        },
      },
      '/api/sessions/forget': {
        post: {
          summary:
            'Retention: forget every session that ended before a cutoff (one still open: whose last call, else start, was before it), ' +
            'as DELETE /api/sessions/{id} forgets one; answered as `skillsmith sessions forget --older-than AGE --json` prints it. ' +
            'Sessions whose stored time reads as no date are kept and listed in `undated`. Give olderThan or before, not both',
          parameters: [csrf],
          requestBody: body({
            type: 'object',
            properties: {
              olderThan: {
                type: 'string',
                description: 'an age: hours, days or weeks (36h, 90d, 12w)',
                examples: ['90d'],
              },
              before: { type: 'string', description: 'a date (midnight UTC) or an ISO time', examples: ['2026-09-01'] },
              dryRun: { type: 'boolean', default: false, description: 'list them, forget nothing' },
            },
          }),
          responses: {
            200: json(ref('Retention')),
            ...rejected,
            409: error('A synthesis pass is running on the namespace'),
          },
        },
      },
      '/api/sessions/{id}/calls': {
        post: {
          summary:
            'Record one tool call. Idempotent by position: a position already recorded is a no-op (200, recorded: false); no position appends',
          parameters: [path('id'), csrf],
          requestBody: body({
            type: 'object',
            required: ['tool'],
            properties: {
              position: {
                type: 'integer',
                minimum: 0,
                description: '0-based position in the session (send it so a retry is stored once)',
              },
              tool: { type: 'string' },
              args: { type: 'object' },
              result: { description: 'text or JSON; stored capped and redacted' },
              ok: { type: 'boolean', description: 'default: true unless error is given' },
              error: { type: ['string', 'null'] },
              durationMs: { type: ['number', 'null'], minimum: 0 },
            },
          }),
          responses: {
            201: json(ref('RecordedCall'), 'Recorded'),
            200: json(ref('RecordedCall'), 'Already recorded at this position (nothing changed)'),
            ...notFound,
            ...rejected,
            409: error('The session has ended, or the position skips ahead'),
          },
        },
      },
      '/api/sessions/{id}/end': {
        post: {
          summary:
            'End a session with its outcome; each skill recalled for it gets a trial. The same outcome again is a no-op; another is refused',
          parameters: [path('id'), csrf],
          requestBody: body(ref('OutcomeReport')),
          responses: {
            200: json(ref('EndedSession')),
            ...notFound,
            ...rejected,
            409: error('Already ended with another outcome'),
          },
        },
      },
      '/api/sessions/{id}/outcome': {
        post: {
          summary:
            'Report the outcome of a session later (same rules as /end: a reported outcome is final; a judged or unknown one may be replaced)',
          parameters: [path('id'), csrf],
          requestBody: body(ref('OutcomeReport')),
          responses: {
            200: json(ref('EndedSession')),
            ...notFound,
            ...rejected,
            409: error('Already ended with another outcome'),
          },
        },
      },
      '/api/synthesize': {
        post: {
          summary:
            'Run a synthesis pass over the sessions recorded since the last one (the body may be empty); what ' +
            '`skillsmith synthesize --json` prints: created, updated, reinforced, superseded and skipped',
          parameters: [csrf],
          requestBody: {
            required: false,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: { dryRun: { type: 'boolean', default: false } },
                  additionalProperties: false,
                },
              },
            },
          },
          responses: {
            200: json({
              type: 'object',
              required: ['created', 'updated', 'reinforced', 'superseded', 'skipped', 'stats'],
              properties: {
                created: { type: 'array', items: { type: 'object' } },
                updated: { type: 'array', items: { type: 'object' } },
                reinforced: { type: 'array', items: { type: 'object' } },
                superseded: { type: 'array', items: { type: 'object' } },
                skipped: { type: 'array', items: { type: 'object' } },
                stats: { type: 'object' },
              },
            }),
            ...rejected,
            409: error('Another synthesis pass is running on the namespace'),
          },
        },
      },
      '/api/compile': {
        post: {
          summary: 'Distil one skill from sessions, a cue or facts (a dry run unless commit)',
          parameters: [csrf],
          requestBody: body({
            type: 'object',
            properties: {
              sessions: { type: 'array', items: { type: 'string' } },
              cue: { type: 'string' },
              facts: { type: 'array', items: { type: 'string' } },
              commit: { type: 'boolean', default: false },
            },
          }),
          responses: {
            200: json({
              type: 'object',
              properties: {
                leftOut: {
                  type: 'array',
                  description:
                    'Sessions not used, each with why: one still open (not ended, no outcome) counts for nothing until it ends. When every session named is open, the answer is a 400',
                  items: {
                    type: 'object',
                    properties: { id: { type: 'string' }, reason: { type: 'string' } },
                  },
                },
              },
            }),
            ...rejected,
          },
        },
      },
      '/api/look-alike': {
        get: {
          summary:
            'Sessions that ran the same steps but were asked for in words too far apart to group, each too few to ' +
            'learn from alone (up to 20 groups, largest first); POST /api/compile with a group of sessions learns it',
          responses: {
            200: json({
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  sessions: { type: 'array', items: { type: 'string' } },
                  goals: { type: 'array', items: { type: 'string' } },
                  steps: {
                    type: 'array',
                    items: { type: 'object', properties: { tool: { type: 'string' }, command: { type: 'string' } } },
                  },
                },
              },
            }),
          },
        },
      },
      '/api/recall': {
        post: {
          summary:
            'What a planner gets for a goal (recorded as a recall: served skills get a trial when the session ends)',
          parameters: [csrf],
          requestBody: body({
            type: 'object',
            required: ['goal'],
            properties: {
              goal: { type: 'string', minLength: 1, maxLength: 8000 },
              topK: { type: 'integer', minimum: 1, maximum: 20 },
              sessionId: { type: 'string', minLength: 1, maxLength: 500 },
              tools: {
                type: 'array',
                items: { type: 'string', minLength: 1, maxLength: 500 },
                minItems: 1,
                maxItems: 2000,
                description:
                  'The tools the agent has (a name ending in * stands for every tool it starts): only skills whose steps call none other are served',
              },
            },
          }),
          responses: {
            200: json({
              type: 'object',
              properties: {
                skills: { type: 'array' },
                context: { type: 'string' },
                tools: { type: 'array', items: { type: 'string' } },
              },
            }),
            404: error('sessionId names no recorded session'),
            409: error('sessionId names a session that has ended'),
            ...rejected,
          },
        },
      },
      '/api/events': {
        get: {
          summary: 'Stored skill events after an id',
          parameters: [
            query('after', { type: 'integer', minimum: 0 }),
            query('limit', { type: 'integer', minimum: 1, maximum: 500 }),
          ],
          responses: { 200: json({ type: 'array', items: ref('Event') }) },
        },
      },
      '/api/events/stream': {
        get: {
          summary: 'Server-sent events: one per skill event (resumes after Last-Event-ID)',
          parameters: [
            query(
              'after',
              { type: 'integer', minimum: 0 },
              'resume after this event id (as the Last-Event-ID header does)',
            ),
          ],
          responses: {
            200: { description: 'text/event-stream', content: { 'text/event-stream': {} } },
            503: error('Too many open event streams (close one or retry later), or the database cannot be reached'),
          },
        },
      },
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        Error: {
          type: 'object',
          required: ['error', 'code'],
          properties: {
            error: { type: 'string', description: 'What went wrong, in words' },
            code: {
              type: 'string',
              description:
                "A stable code to branch on: the error's own (SESSION_STATE, PASS_LOCKED, NOT_FOUND, COMPILE_INVALID, READ_ONLY_MEMORY, CIRCUIT_OPEN, ...; ERROR_OUTCOMES), STORE_UNREACHABLE or STORE_BUSY, else the status's (BAD_REQUEST, UNAUTHORIZED, FORBIDDEN, NOT_FOUND, METHOD_NOT_ALLOWED, CONFLICT, BODY_TOO_LARGE, UNSUPPORTED_MEDIA_TYPE, UNAVAILABLE, INTERNAL)",
            },
          },
        },
        SkillEdit: {
          type: 'object',
          required: ['skill', 'changed', 'warnings', 'redacted'],
          properties: {
            skill: ref('Skill'),
            changed: { type: 'boolean', description: 'false when nothing was written (why)' },
            why: { type: 'string', enum: ['empty', 'unchanged', 'not-edited'] },
            warnings: {
              type: 'array',
              items: { type: 'string' },
              description: 'steps that name no tool (the procedure it had is kept), tools no version of it called',
            },
            redacted: {
              type: 'array',
              items: { type: 'string' },
              description: 'kinds of secret or personal data redacted from the text (api_key, email, ...)',
            },
          },
        },
        SessionSummary: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            goal: { type: 'string' },
            outcome: { type: 'string', enum: ['success', 'failure', 'unknown'] },
            outcomeSource: {
              type: ['string', 'null'],
              enum: ['reported', 'judged', null],
              description:
                'reported (by the log, a person or a pipeline) or judged (by the outcome judge); null while the session is open and no outcome was given',
            },
            reward: { type: ['number', 'null'] },
            agentId: { type: ['string', 'null'] },
            source: { type: ['string', 'null'] },
            startedAt: { type: 'string' },
            endedAt: { type: ['string', 'null'] },
            callCount: { type: 'integer' },
            tools: { type: 'array', items: { type: 'string' } },
          },
        },
        RecordedCall: {
          type: 'object',
          required: ['sessionId', 'position', 'recorded'],
          properties: { sessionId: { type: 'string' }, position: { type: 'integer' }, recorded: { type: 'boolean' } },
        },
        OutcomeReport: {
          type: 'object',
          additionalProperties: false,
          required: ['outcome'],
          properties: {
            outcome: { type: 'string', enum: ['success', 'failure', 'unknown'] },
            reward: { type: ['number', 'null'], minimum: 0, maximum: 1 },
          },
        },
        EndedSession: {
          allOf: [
            ref('SessionSummary'),
            {
              type: 'object',
              properties: {
                credited: { type: 'array', items: { type: 'string' }, description: 'skills that got a trial' },
              },
            },
          ],
        },
        Retention: {
          type: 'object',
          required: ['before', 'dryRun', 'forgotten', 'undated'],
          properties: {
            before: { type: 'string', description: 'the cutoff, an ISO time' },
            dryRun: { type: 'boolean' },
            forgotten: {
              type: 'array',
              description: 'oldest first',
              items: {
                type: 'object',
                required: ['id', 'at', 'ref', 'calls', 'skills'],
                properties: {
                  id: { type: 'string' },
                  at: {
                    type: 'string',
                    description: 'the time it was judged by: when it ended; still open, its last call, else its start',
                  },
                  ref: { type: ['string', 'null'], description: 'its opaque reference (null on a dry run)' },
                  calls: { type: ['integer', 'null'], description: 'null on a dry run' },
                  skills: {
                    type: 'array',
                    items: { type: 'string' },
                    description: 'skills learned from it, each keeping a forgotten-parent marker (empty on a dry run)',
                  },
                },
              },
            },
            undated: {
              type: 'array',
              items: { type: 'string' },
              description: 'sessions kept because their stored time reads as no date',
            },
          },
        },
        Event: {
          type: 'object',
          properties: {
            id: { type: 'integer' },
            namespace: { type: 'string' },
            at: { type: 'string' },
            type: { type: 'string' },
            skillId: { type: ['string', 'null'] },
            payload: { type: 'object' },
          },
        },
        Skill: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            name: { type: 'string' },
            description: { type: 'string' },
            status: { type: 'string', enum: ['probationary', 'active', 'retired'] },
            enabled: { type: 'boolean' },
            version: { type: 'string' },
            kind: { type: 'string', enum: ['playbook', 'heuristic'] },
            corpus: { type: 'string', enum: ['internal', 'external'] },
            toolsRequired: { type: 'array', items: { type: 'string' } },
            toolSequence: { type: 'array', items: { type: 'string' } },
            branches: {
              type: 'array',
              description:
                'where the procedure branches on what a lookup shows or on the tools the agent has (empty for a plain procedure)',
              items: {
                type: 'object',
                properties: {
                  when: {
                    type: 'object',
                    properties: {
                      tool: { type: 'string' },
                      path: {
                        type: 'string',
                        description: "dot path into the tool's JSON result, [] for any list element",
                      },
                      in: { type: 'array', items: { type: 'string' } },
                      available: {
                        type: 'boolean',
                        enum: [true],
                        description:
                          'present when the condition is that the agent can call tool (path and in are empty)',
                      },
                    },
                  },
                  toolSequence: { type: 'array', items: { type: 'string' } },
                },
              },
            },
            successCount: { type: 'integer' },
            attemptCount: { type: 'integer' },
            support: { type: 'integer' },
            eta: { type: 'number' },
            utility: { type: 'number' },
            trialsAttempted: {
              type: 'integer',
              description: 'trials since it was learned that count (its track record)',
            },
            trialsPassed: { type: 'integer' },
            judgedTrials: {
              type: 'integer',
              description:
                'how many of its trials the outcome judge gave (lifecycle.judgedTrials) rather than a reported outcome',
            },
            sourceSessions: { type: 'array', items: { type: 'string' } },
            sourceSessionCount: {
              type: 'integer',
              description:
                'instead of sourceSessions where a list was asked for a summary (GET /api/skills?summary=true)',
            },
            supersededBy: { type: ['string', 'null'] },
            createdAt: { type: 'string' },
            updatedAt: { type: 'string' },
            lastUsedAt: { type: ['string', 'null'] },
            skillMd: { type: 'string', description: 'only on GET /api/skills/{name}' },
          },
        },
      },
    },
  });
}
