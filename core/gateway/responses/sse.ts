/** One Responses event framed as a server-sent event. OpenAI's Responses streams send no [DONE]. */
import type { ResponsesEvent } from './types.ts';

export function formatSse(e: ResponsesEvent): string {
  return `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`;
}
