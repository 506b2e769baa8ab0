import { mulberry32 as rng } from '#dist/support/random.js';
// The work of one agent of a simulated fleet: sessions of a few task families, each solved by its own
// ten-step tool procedure, with entities that differ per session. A pure function of (agent, index), so
// the fleet test can tell exactly which calls must be in the store.

export interface FleetCall {
  tool: string;
  args: Record<string, unknown>;
  result: string;
  ok: boolean;
  error: string | null;
}

export interface FleetSession {
  id: string;
  family: string;
  goal: string;
  calls: FleetCall[];
  outcome: 'success' | 'failure';
}

interface Family {
  name: string;
  goals: ((e: Entities) => string)[];
  tools: string[];
}

interface Entities {
  user: string;
  service: string;
  region: string;
  invoice: string;
  team: string;
  app: string;
  build: string;
  cpus: number;
}

export const FLEET_FAMILIES: Family[] = [
  {
    name: 'rotate-key',
    goals: [
      (e) => `Rotate the API key of the ${e.service} service in ${e.region}`,
      (e) => `Please rotate the ${e.service} API key for region ${e.region}, it may have leaked`,
      (e) => `The API key of ${e.service} (${e.region}) needs rotating today`,
    ],
    tools: [
      'iam_login',
      'find_service',
      'get_service_config',
      'list_api_keys',
      'create_api_key',
      'update_service_secret',
      'restart_service_pods',
      'check_service_health',
      'revoke_api_key',
      'notify_service_owner',
    ],
  },
  {
    name: 'refund-invoice',
    goals: [
      (e) => `Refund invoice ${e.invoice} for customer ${e.user}`,
      (e) => `Customer ${e.user} wants their money back for invoice ${e.invoice}`,
      (e) => `Issue a refund on invoice ${e.invoice}; the customer is ${e.user}`,
    ],
    tools: [
      'find_customer',
      'get_invoice',
      'get_payment_method',
      'check_refund_policy',
      'calculate_refund_amount',
      'create_refund',
      'update_invoice_status',
      'record_ledger_entry',
      'send_refund_receipt',
      'close_billing_ticket',
    ],
  },
  {
    name: 'provision-vm',
    goals: [
      (e) => `Provision a virtual machine with ${e.cpus} CPUs for the ${e.team} team`,
      (e) => `The ${e.team} team needs a new VM (${e.cpus} vCPU)`,
      (e) => `Create a ${e.cpus}-core virtual machine for team ${e.team}`,
    ],
    tools: [
      'get_team_quota',
      'select_vm_image',
      'reserve_ip_address',
      'create_vm',
      'attach_disk',
      'configure_firewall',
      'install_monitoring_agent',
      'register_dns_record',
      'grant_team_access',
      'post_vm_details',
    ],
  },
  {
    name: 'investigate-deploy',
    goals: [
      (e) => `Find out why deployment ${e.build} of ${e.app} failed and roll it back`,
      (e) => `The ${e.app} deploy ${e.build} broke production, investigate and revert`,
      (e) => `Deployment ${e.build} for ${e.app} failed: diagnose it and roll back`,
    ],
    tools: [
      'get_deployment',
      'fetch_build_logs',
      'list_recent_commits',
      'get_error_rate',
      'compare_config_versions',
      'rollback_deployment',
      'wait_for_rollout',
      'check_error_rate_after',
      'open_incident_report',
      'page_release_manager',
    ],
  },
];

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
const SERVICES = ['billing', 'search', 'checkout', 'inventory', 'auth', 'mailer', 'reports', 'gateway'];
const REGIONS = ['eu-west-1', 'us-east-1', 'ap-south-1', 'us-west-2'];
const TEAMS = ['data', 'payments', 'platform', 'growth', 'mobile', 'support'];
const APPS = ['storefront', 'admin-portal', 'ledger-api', 'notifier', 'scheduler'];
const NAMES = ['ada', 'bo', 'cyd', 'dee', 'eli', 'fay', 'gus', 'hal'];

function mainEntity(family: string, e: Entities): string {
  if (family === 'refund-invoice') return e.invoice;
  if (family === 'provision-vm') return e.team;
  if (family === 'investigate-deploy') return e.build;
  return e.service;
}

/** Session `index` of agent `agent`: `calls` tool calls (the family's procedure, cycled when longer). */
export function fleetSession(agent: number, index: number, calls = 10): FleetSession {
  const r = rng(agent * 1_000_003 + index * 7919 + 17);
  const family = FLEET_FAMILIES[(agent + index) % FLEET_FAMILIES.length];
  const e: Entities = {
    user: `${pick(r, NAMES)}${Math.floor(r() * 900 + 100)}@example.com`,
    service: pick(r, SERVICES),
    region: pick(r, REGIONS),
    invoice: `INV-${Math.floor(r() * 900_000 + 100_000)}`,
    team: pick(r, TEAMS),
    app: pick(r, APPS),
    build: `#${Math.floor(r() * 90_000 + 10_000)}`,
    cpus: pick(r, [2, 4, 8, 16]),
  };
  const failed = r() < 0.1;
  const steps: FleetCall[] = [];
  for (let p = 0; p < calls; p++) {
    const tool = family.tools[p % family.tools.length];
    const last = p === calls - 1;
    steps.push({
      tool,
      args: {
        agent,
        session: index,
        step: p,
        ...(p === 0 ? { target: mainEntity(family.name, e) } : { ref: `${family.name}-${index}-${p - 1}` }),
      },
      result: failed && last ? '' : JSON.stringify({ ok: true, ref: `${family.name}-${index}-${p}` }),
      ok: !(failed && last),
      error: failed && last ? `Error: ${tool} timed out` : null,
    });
  }
  return {
    id: `a${agent}-s${index}`,
    family: family.name,
    goal: pick(r, family.goals)(e),
    calls: steps,
    outcome: failed ? 'failure' : 'success',
  };
}
