import type { MiddlewareHandler } from 'hono';
import type { Config } from '../../core/kernel/config/index.ts';
import { isGatewayPath, tooLarge } from '../http/limits.ts';
import type { AppEnv } from '../types.ts';

/**
 * The gateway's limit is larger: prompts carry images. Content-Length is trusted,
 * as in Hono's bodyLimit: Node never delivers more. Chunked bodies are counted.
 */
export function bodyLimit(config: Pick<Config, 'SERVICE_BODY_LIMIT_BYTES' | 'SERVICE_GATEWAY_BODY_LIMIT_BYTES'>): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const raw = c.req.raw;
    if (raw.body === null) return next();
    const limit = isGatewayPath(c.req.path) ? config.SERVICE_GATEWAY_BODY_LIMIT_BYTES : config.SERVICE_BODY_LIMIT_BYTES;
    const declared = c.req.header('content-length');
    if (declared !== undefined) {
      if (Number(declared) > limit) throw tooLarge(limit);
      return next();
    }

    let seen = 0;
    const counter = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > limit) controller.error(tooLarge(limit));
        else controller.enqueue(chunk);
      },
    });
    c.req.raw = new Request(raw, { body: raw.body.pipeThrough(counter), duplex: 'half' } as RequestInit);
    return next();
  };
}
