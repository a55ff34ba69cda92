import { TransactionJanitor } from './transaction-janitor';
import { TenantEntity } from '../../tenancy/tenant.entity';

const DAY_MS = 24 * 60 * 60 * 1000;

/** A janitor whose sweeps record the tenants they visit (each repository answers "nothing removed"). */
function janitor() {
  const swept: string[] = [];
  const tenants = new Map<string, TenantEntity>();
  const none = { purgeExpired: async () => 0 };
  const j = new TransactionJanitor(
    { db: async (t: TenantEntity) => (swept.push(t.id), { rows: async () => [] }) } as never,
    { tenantById: async (id: string) => tenants.get(id) } as never,
    none as never,
    { all: () => [] } as never,
    none as never,
    none as never,
  );
  const note = (id: string, flows = 1) => {
    const tenant = Object.assign(new TenantEntity(), { id, slug: id });
    tenants.set(id, tenant);
    for (let i = 0; i < flows; i++) j.noteActivity(tenant);
  };
  return { j, note, swept };
}

describe('TransactionJanitor', () => {
  it('sweeps a busy tenant at the next tick and a quiet one a day after its first flow', async () => {
    const { j, note, swept } = janitor();
    note('quiet', 3);
    note('busy', 1000);
    await j.sweepDue();
    expect(swept).toEqual(['busy']);
    await j.sweepDue(Date.now() + DAY_MS - 60_000);
    expect(swept).toEqual(['busy']);
    await j.sweepDue(Date.now() + DAY_MS);
    expect(swept).toEqual(['busy', 'quiet']);
    // Swept tenants are forgotten until their next flow.
    await j.sweepDue(Date.now() + 2 * DAY_MS);
    expect(swept).toEqual(['busy', 'quiet']);
  });

  it('sweeps at most sixty tenants a tick, busy ones and the longest waiting first', async () => {
    const { j, note, swept } = janitor();
    for (let i = 0; i < 100; i++) note(`t${i}`);
    note('busy', 1000);
    await j.sweepDue(Date.now() + DAY_MS);
    expect(swept).toHaveLength(60);
    expect(swept[0]).toBe('busy');
    expect(swept.slice(1)).toEqual(Array.from({ length: 59 }, (_, i) => `t${i}`));
    await j.sweepDue(Date.now() + DAY_MS);
    expect(swept).toHaveLength(101);
  });

  it('sweeps every noted tenant on demand, due or not', async () => {
    const { j, note, swept } = janitor();
    note('a');
    note('b');
    await j.sweep();
    expect(swept.sort()).toEqual(['a', 'b']);
  });
});
