import { BenchConfig } from './config';
import { BenchDatabases } from './database';
import { TenantFixture } from './fixture';
import { Report } from './report';
import { Deployment, ServiceInstance } from './service';

/** What every scenario gets: the knobs, the run's folder (logs), the database server and the report. */
export interface BenchContext {
  config: BenchConfig;
  /** The snapshot of this checkout's build that every instance of the run starts from. */
  build: string;
  runDir: string;
  dbs: BenchDatabases;
  report: Report;
}

/** A service under test: an instance, its deployment and a provisioned tenant with a member user. */
export interface Target {
  label: string;
  deployment: Deployment;
  instance: ServiceInstance;
  tenant: TenantFixture;
  member: { sub: string; token: string };
}

/** Options of an introspection load on `base` where the caller inspects its own token. */
export function introspectionRequest(base: string, token: string) {
  return {
    url: `${base}/api/v1/introspect`,
    method: 'POST' as const,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ token }),
  };
}
