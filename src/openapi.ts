import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

/** Builds the OpenAPI document from the controllers and DTOs (field names exactly as the published interface spells them). */
export function buildOpenApiDocument(app: INestApplication, publicUrl: string): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Identity and Access Service')
    .setDescription(
      'Multi-tenant authentication and user management. Errors use the body {code, message, details} with gRPC canonical codes; see docs/errors.md.',
    )
    .setVersion('1')
    .addServer(publicUrl)
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT or API token' })
    .build();
  return SwaggerModule.createDocument(app, config);
}

/** Serves the OpenAPI UI at /api/docs and the document at /api/docs-json. */
export function setupOpenApi(app: INestApplication, publicUrl: string): void {
  SwaggerModule.setup('api/docs', app, () => buildOpenApiDocument(app, publicUrl), { jsonDocumentUrl: 'api/docs-json' });
}
