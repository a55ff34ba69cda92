import { BadRequestException, NotFoundException } from '@nestjs/common';
import { DomainError } from './domain-error';
import { ErrorCode } from './error-codes';
import { toWireError } from './error-mapper';

describe('toWireError', () => {
  it('maps a domain error with ErrorInfo, RequestInfo and BadRequest details', () => {
    const wire = toWireError(DomainError.invalidField('slug', 'too short'), 'req-1');
    expect(wire.status).toBe(400);
    expect(wire.headers['X-Request-Id']).toBe('req-1');
    expect(wire.body).toEqual({
      code: 3,
      message: 'slug: too short',
      details: [
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'VALIDATION_FAILED', domain: 'iam.service', metadata: {} },
        { '@type': 'type.googleapis.com/google.rpc.RequestInfo', requestId: 'req-1', servingData: '' },
        { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: 'slug', description: 'too short' }] },
      ],
    });
  });

  it('adds RetryInfo and Retry-After for rate limits', () => {
    const wire = toWireError(new DomainError(ErrorCode.RESOURCE_EXHAUSTED, 'TOO_MANY_ATTEMPTS', 'slow down', { retryAfterSeconds: 29.2 }), 'r');
    expect(wire.status).toBe(429);
    expect(wire.headers['Retry-After']).toBe('30');
    expect(wire.body.details).toContainEqual({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '30s' });
  });

  it('adds WWW-Authenticate to 401s', () => {
    expect(toWireError(DomainError.unauthenticated('TOKEN_INVALID', 'x'), 'r').headers['WWW-Authenticate']).toBe('Bearer');
  });

  it('maps framework errors: unknown route, bad request', () => {
    expect(toWireError(new NotFoundException(), 'r').body.code).toBe(ErrorCode.NOT_FOUND);
    expect(toWireError(new BadRequestException('nope'), 'r').body.code).toBe(ErrorCode.INVALID_ARGUMENT);
  });

  it('maps body-parser failures', () => {
    expect(toWireError({ type: 'entity.parse.failed' }, 'r').body.details[0]).toMatchObject({ reason: 'MALFORMED_JSON' });
    expect(toWireError({ type: 'entity.too.large' }, 'r').body.details[0]).toMatchObject({ reason: 'BODY_TOO_LARGE' });
    // A body that does not inflate as its Content-Encoding says: a client error of http-errors without a known type.
    const inflate = toWireError(Object.assign(new Error('Bad Request'), { status: 400, statusCode: 400, expose: true }), 'r');
    expect({ status: inflate.status, reason: inflate.body.details[0].reason }).toEqual({ status: 400, reason: 'VALIDATION_FAILED' });
    // Server-side http-errors stay INTERNAL.
    expect(toWireError(Object.assign(new Error('boom'), { status: 500, expose: false }), 'r').status).toBe(500);
  });

  it('maps an unreachable database to UNAVAILABLE', () => {
    const wire = toWireError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }), 'r');
    expect(wire.status).toBe(503);
    expect(wire.body.code).toBe(ErrorCode.UNAVAILABLE);
  });

  it('hides the details of unknown errors', () => {
    const wire = toWireError(new TypeError('password=hunter2 at SELECT *'), 'r');
    expect(wire.status).toBe(500);
    expect(wire.body.message).toBe('An internal error occurred.');
    expect(JSON.stringify(wire.body)).not.toContain('hunter2');
  });
});
