import { createHmac } from 'node:crypto';
import { safeEqual } from '../auth/tokens.ts';

export interface Decision {
  approvalId: string;
  runId: string;
  stepSeq: number;
  decision: 'approved' | 'rejected';
  decidedBy: string;
  decidedAt: string;
}

/** Verified before the tool runs, so a row written by anything else runs nothing. */
export function signDecision(key: Buffer, d: Decision): string {
  return createHmac('sha256', key).update([d.approvalId, d.runId, d.stepSeq, d.decision, d.decidedBy, d.decidedAt].join('\n')).digest('base64url');
}

export function verifyDecision(key: Buffer, d: Decision, signature: string | null): boolean {
  return signature !== null && safeEqual(signDecision(key, d), signature);
}
