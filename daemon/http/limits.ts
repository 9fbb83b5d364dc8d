import { AppError } from '../../core/kernel/errors.ts';

export function isGatewayPath(path: string): boolean {
  return path === '/api/v1' || path.startsWith('/api/v1/');
}

export function tooLarge(limit: number): AppError {
  return new AppError('payload_too_large', `Request body exceeds the limit of ${limit} bytes.`);
}
