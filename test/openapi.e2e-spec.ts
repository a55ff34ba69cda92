import { SECTOR_SETTINGS_FIELDS } from './support/contract';
import { startTestApp, TestApp } from './support/test-app';

type Schema = { type?: string; format?: string; items?: Schema; properties?: Record<string, Schema>; $ref?: string; allOf?: Schema[] };
type Doc = {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, { responses?: Record<string, unknown>; security?: unknown[] }>>;
  components: { schemas: Record<string, Schema>; securitySchemes?: Record<string, { type: string; scheme?: string }> };
};

const INT64_FIELDS = ['InviteExpirationHours', 'AccessTokenDuration', 'PasswordResetTimeoutMinutes', 'SessionLifetimeSeconds', 'SessionIdleTimeoutSeconds', 'AuditRetentionDays'];
const BOOLEAN_FIELDS = ['MFARequired', 'SelfSignUpAllowed', 'AllowUserCreationForNonAdmins', 'AllowUserReadForNonAdmins', 'WebAuthnDebug', 'MagicLinkLoginEnabled'];
const SECTOR_FIELDS = ['sectorID', 'name', 'domain', 'isDefault', 'allowedOrigins', 'slug'];

const sorted = (xs: readonly string[]) => [...xs].sort();

describe('OpenAPI document and UI', () => {
  let t: TestApp;
  let doc: Doc;

  beforeAll(async () => {
    t = await startTestApp();
    const res = await t.http().get('/api/docs-json');
    expect(res.status).toBe(200);
    doc = res.body as Doc;
  });
  afterAll(() => t.close());

  it('serves an OpenAPI 3 document as JSON without a bearer', async () => {
    const res = await t.http().get('/api/docs-json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(doc.openapi).toMatch(/^3\.\d+\.\d+$/);
    expect(doc.info).toEqual(expect.objectContaining({ title: expect.any(String), version: expect.any(String) }));
    expect(doc.components.securitySchemes).toEqual(expect.objectContaining({ bearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }) }));
  });

  it('holds no "$`", "$\'" or "$&": the docs page inlines the document with String.replace, which reads them as patterns and breaks the page', () => {
    expect(JSON.stringify(doc).match(/\$[`'&]/g) ?? []).toEqual([]);
  });

  it('lists the operations and the extensions of docs/api.md (Endpoints), with their methods', () => {
    const expected: Record<string, string[]> = {
      '/api/v1/sectors/{sectorID}/settings': ['get', 'put'],
      '/api/v1/sectors': ['get', 'post'],
      '/api/v1/tenants': ['post'],
      '/api/v1/tenants/{tenantID}': ['get'],
      '/api/v1/login/password': ['post'],
      '/api/v1/introspect': ['post'],
      '/.well-known/jwks.json': ['get'],
      '/healthz': ['get'],
      '/readyz': ['get'],
    };
    for (const [path, methods] of Object.entries(expected)) {
      expect({ path, present: path in doc.paths }).toEqual({ path, present: true });
      const documented = Object.keys(doc.paths[path]).filter((k) => ['get', 'put', 'post', 'delete', 'patch'].includes(k));
      expect({ path, methods: sorted(documented) }).toEqual({ path, methods: expect.arrayContaining(methods) });
    }
    // Paths use the interface's parameter names, not Express syntax.
    expect(Object.keys(doc.paths).filter((p) => p.includes(':'))).toEqual([]);
  });

  it('the documented operations answer 200 (never 201) and have a default error response', () => {
    for (const [path, method] of [
      ['/api/v1/sectors/{sectorID}/settings', 'get'],
      ['/api/v1/sectors/{sectorID}/settings', 'put'],
      ['/api/v1/sectors', 'get'],
      ['/api/v1/sectors', 'post'],
      ['/api/v1/tenants', 'post'],
    ] as const) {
      const responses = doc.paths[path][method].responses ?? {};
      const codes = Object.keys(responses);
      expect({ path, method, success: codes.filter((c) => c.startsWith('2')), hasDefault: codes.includes('default') }).toEqual({
        path,
        method,
        success: ['200'],
        hasDefault: true,
      });
    }
  });

  it('SectorSettingsResponse has exactly the published fields, int64 as strings', () => {
    const schema = doc.components.schemas.SectorSettingsResponse;
    expect(schema).toBeDefined();
    const props = schema.properties!;
    expect(sorted(Object.keys(props))).toEqual(sorted(['sectorID', ...SECTOR_SETTINGS_FIELDS]));
    expect(Object.keys(props)).toHaveLength(40);
    for (const f of INT64_FIELDS) expect({ f, type: props[f].type, format: props[f].format }).toEqual({ f, type: 'string', format: 'int64' });
    for (const f of BOOLEAN_FIELDS) expect({ f, type: props[f].type }).toEqual({ f, type: 'boolean' });
    expect(props.WebAuthnRPOrigins).toEqual(expect.objectContaining({ type: 'array', items: expect.objectContaining({ type: 'string' }) }));
    expect(props.sectorID.type).toBe('string');
  });

  it('the settings request body has the same fields without sectorID', () => {
    const put = doc.paths['/api/v1/sectors/{sectorID}/settings'].put as unknown as {
      requestBody: { content: { 'application/json': { schema: Schema } } };
    };
    const ref = put.requestBody.content['application/json'].schema.$ref!;
    const schema = doc.components.schemas[ref.replace('#/components/schemas/', '')];
    expect(sorted(Object.keys(schema.properties!))).toEqual(sorted(SECTOR_SETTINGS_FIELDS));
  });

  it('SectorResponse (Sector) has exactly the published fields', () => {
    const props = doc.components.schemas.SectorResponse.properties!;
    expect(sorted(Object.keys(props))).toEqual(sorted(SECTOR_FIELDS));
    expect(props.isDefault.type).toBe('boolean');
    expect(props.allowedOrigins).toEqual(expect.objectContaining({ type: 'array', items: expect.objectContaining({ type: 'string' }) }));
    const list = doc.components.schemas.ListSectorsResponse.properties!;
    expect(sorted(Object.keys(list))).toEqual(sorted(['sectors', 'totalCount', 'totalPages', 'currentPage']));
  });

  it('serves the OpenAPI UI as HTML without a bearer', async () => {
    const res = await t.http().get('/api/docs').redirects(2);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toMatch(/<html/i);
    expect(res.text).toMatch(/swagger/i);
  });
});
