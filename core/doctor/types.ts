export type FindingStatus = 'ok' | 'warn' | 'fail';

/** One line of `svc doctor`, with the exact fix. */
export interface Finding {
  check: string;
  status: FindingStatus;
  message: string;
  fix?: string;
}

export const healthy = (findings: readonly Finding[]): boolean => findings.every((f) => f.status !== 'fail');
