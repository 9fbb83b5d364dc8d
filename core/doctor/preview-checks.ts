import { originHost, type Config } from '../kernel/config/load.ts';
import type { Finding } from './types.ts';

/** No public-suffix list: co.uk counts as one site, erring towards warning. */
export function approximateSite(host: string): string {
  if (host.startsWith('[') || /^\d{1,3}(\.\d{1,3}){3}$/.test(host)) return host;
  const labels = host.split('.');
  return labels.length <= 2 ? host : labels.slice(-2).join('.');
}

/** Same-site origins mix their cookies and requests. */
export function checkPreviewSite(config: Pick<Config, 'SERVICE_APP_ORIGIN' | 'SERVICE_PREVIEW_ORIGIN'>): Finding[] {
  const app = originHost(config.SERVICE_APP_ORIGIN);
  const preview = originHost(config.SERVICE_PREVIEW_ORIGIN);
  const site = approximateSite(app);
  if (site !== approximateSite(preview)) {
    return [{ check: 'config.preview-origin', status: 'ok', message: `previews are served from another site (${preview}) than the app (${app})` }];
  }
  return [
    {
      check: 'config.preview-origin',
      status: 'warn',
      message:
        `SERVICE_APP_ORIGIN (${app}) and SERVICE_PREVIEW_ORIGIN (${preview}) share the registrable domain ${site}: they are same-site, ` +
        'so requests a generated app makes towards the app origin would carry its SameSite=Lax session cookies, leaving the CSRF check as the only barrier',
      fix: `serve previews from a domain of their own, e.g. SERVICE_PREVIEW_ORIGIN=https://${site.replace(/\./g, '-')}-preview.net, pointed by DNS and your reverse proxy at this same svc (see docs/preview.md)`,
    },
  ];
}
