import { INestApplication } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { IS_PUBLIC } from './access/decorators';

type Operation = OpenAPIObject['paths'][string]['get'] & object;

/** The error-body reference every operation answers with. */
const ERROR_SCHEMA = { $ref: '#/components/schemas/ErrorResponse' };
const BEARER = 'bearer';

/** Path parameters the routes use, described once. */
const PATH_PARAMETERS: Record<string, string> = {
  sectorID: 'A sector id (UUID).',
  tenantID: 'A tenant id (UUID).',
  sub: 'A user id (UUID).',
  id: 'The id of the resource under the path (see the operation).',
  registrationID: 'An OTP registration id (UUID).',
  provider: 'A social-login provider name: google, github, apple or oidc.',
};

const SUMMARIES: Record<string, string> = {
  'get /healthz': 'Liveness: the process answers',
  'get /readyz': 'Readiness: the main database answers and the instance is not shutting down',
  'get /.well-known/jwks.json': 'The JWK Set: every tenant’s public signing keys',
  'get /.well-known/openid-configuration': 'OpenID Provider metadata: issuer, JWK Set, algorithms',
};

/** Builds the OpenAPI document from the controllers and DTOs (field names exactly as the published interface spells them). */
export function buildOpenApiDocument(app: INestApplication, publicUrl: string): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Identity and Access Service')
    .setDescription(
      'Multi-tenant authentication and user management. Errors use the body {code, message, details} with gRPC canonical codes; see docs/errors.md.',
    )
    .setVersion('1')
    .setLicense('Proprietary', `${publicUrl}/api/docs`)
    .addServer(publicUrl)
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT or API token' }, BEARER)
    .build();
  const document = SwaggerModule.createDocument(app, config);
  completeOperations(document, publicOperationIds(app));
  return document;
}

/**
 * What the decorators leave implicit, made explicit on every operation, so a
 * generated client and a linter see the whole contract: each path parameter of
 * the template declared; the bearer scheme on every protected operation and an
 * explicit empty requirement on public ones (from the same `@Public()` metadata
 * the guards read); the error body as the default and 4XX response; a summary.
 */
function completeOperations(document: OpenAPIObject, publicOperations: Set<string>): void {
  for (const [path, item] of Object.entries(document.paths)) {
    const templateParams = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    for (const method of ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'] as const) {
      const op = item[method] as Operation | undefined;
      if (!op) continue;
      const declared = new Set((op.parameters ?? []).filter((p) => 'in' in p && p.in === 'path').map((p) => ('name' in p ? p.name : '')));
      for (const name of templateParams) {
        if (declared.has(name)) continue;
        op.parameters = [
          ...(op.parameters ?? []),
          { name, in: 'path', required: true, description: PATH_PARAMETERS[name] ?? `The ${name} of the resource.`, schema: { type: 'string' } },
        ];
      }
      op.security = op.operationId !== undefined && publicOperations.has(op.operationId) ? [] : [{ [BEARER]: [] }];
      op.summary ??= SUMMARIES[`${method} ${path}`];
      op.responses ??= {};
      const error = { description: 'The error body: a gRPC canonical code, a message and details (ErrorInfo reason, RequestInfo; BadRequest, RetryInfo when relevant). Codes and reasons: docs/errors.md.', content: { 'application/json': { schema: ERROR_SCHEMA } } };
      op.responses.default ??= error;
      op.responses['4XX'] ??= { ...error, description: 'A refused request (invalid argument, unauthenticated, permission denied, not found, conflict, rate limited): the error body.' };
    }
  }
}

/**
 * The operation id of every handler marked @Public(), read from the controllers'
 * metadata: `<Controller>_<method>`, the id @nestjs/swagger gives each operation.
 */
function publicOperationIds(app: INestApplication): Set<string> {
  const ids = new Set<string>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => object) | undefined;
      if (!controller?.prototype) continue;
      const classPublic = Reflect.getMetadata(IS_PUBLIC, controller) === true;
      for (const key of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = (controller.prototype as Record<string, unknown>)[key];
        if (key === 'constructor' || typeof handler !== 'function') continue;
        if (classPublic || Reflect.getMetadata(IS_PUBLIC, handler) === true) ids.add(`${controller.name}_${key}`);
      }
    }
  }
  return ids;
}

/** Serves the OpenAPI UI at /api/docs and the document at /api/docs-json. */
export function setupOpenApi(app: INestApplication, publicUrl: string): void {
  SwaggerModule.setup('api/docs', app, () => buildOpenApiDocument(app, publicUrl), { jsonDocumentUrl: 'api/docs-json' });
}
