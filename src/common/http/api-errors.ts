import { applyDecorators } from '@nestjs/common';
import { ApiDefaultResponse, ApiProperty } from '@nestjs/swagger';

class ErrorDetail {
  @ApiProperty({ name: '@type', example: 'type.googleapis.com/google.rpc.ErrorInfo' }) '@type': string;
}

/** The error body every operation may return (docs/api.md, Errors). */
class ErrorResponse {
  @ApiProperty({ type: 'integer', format: 'int32', example: 3, description: 'gRPC canonical code' }) code: number;
  @ApiProperty({ example: 'Invalid request: slug: must be 2 to 63 characters' }) message: string;
  @ApiProperty({
    type: 'array',
    items: { type: 'object', properties: { '@type': { type: 'string' } }, additionalProperties: true },
    description: 'Always an ErrorInfo (reason, domain, metadata) and a RequestInfo (requestId); BadRequest, RetryInfo when relevant.',
  })
  details: ErrorDetail[];
}

/** Documents the default error response on every operation of a controller or handler. */
export const ApiErrors = () => applyDecorators(ApiDefaultResponse({ type: ErrorResponse, description: 'Error (see docs/errors.md)' }));
