/** No [DONE]: OpenAI's Responses streams send none. */
import type { ResponsesEvent } from './types.ts';

export function formatSse(e: ResponsesEvent): string {
  return `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`;
}
