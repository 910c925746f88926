/**
 * The bearer-token check in front of every API request (issue "Safety"): a missing or wrong token gets 401 and the
 * request never reaches a route, so it changes nothing.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { ApiError } from './errors/api-error.js';

/**
 * Middleware that requires `Authorization: Bearer <token>`; compares in constant time.
 * @throws {ApiError} `UNAUTHORIZED` (401) otherwise.
 */
export function requireBearerToken(token: string): MiddlewareHandler {
  const expected = digest(token);
  return async (c, next) => {
    const header = c.req.header('authorization') ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (match === null || !timingSafeEqual(digest(match[1]!), expected)) {
      throw new ApiError({
        status: 401,
        code: 'UNAUTHORIZED',
        message:
          match === null
            ? 'Missing bearer token. Send "Authorization: Bearer <token>" with the token `attractor serve` printed.'
            : 'Wrong bearer token. Use the token `attractor serve` printed (or the one given with --token / ATTRACTOR_SERVER_TOKEN).',
      });
    }
    await next();
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
