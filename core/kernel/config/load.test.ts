import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig, SECRET_NAMES } from './index.ts';

const strong = (i: number) => `secret-${i}-${'x'.repeat(40)}`;
const prodEnv = (over: Record<string, string | undefined> = {}): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {
    NODE_ENV: 'production',
    HOME: '/tmp/svc-home',
    SERVICE_APP_ORIGIN: 'https://svc.example.com',
    SERVICE_PREVIEW_ORIGIN: 'https://preview.example.com',
  };
  SECRET_NAMES.forEach((n, i) => (env[n] = strong(i)));
  return { ...env, ...over };
};
const problemsOf = (env: NodeJS.ProcessEnv): string[] => {
  try {
    loadConfig(env);
  } catch (e) {
    assert.ok(e instanceof ConfigError);
    return e.problems;
  }
  return [];
};

describe('loadConfig defaults', () => {
  it('gives the documented defaults', () => {
    const { config } = loadConfig({ HOME: '/home/u' });
    assert.equal(config.PORT, 8484);
    assert.equal(config.SERVICE_STORE, 'sqlite');
    assert.equal(config.dbPath, '/home/u/.local/share/svc/svc.db');
    assert.equal(config.secretsFile, '/home/u/.local/share/svc/secrets.json');
    assert.equal(config.SERVICE_REGISTRATION_MODE, 'invite_only');
    assert.equal(config.SERVICE_SCHEDULER_LEADER_MODE, 'off');
    assert.equal(config.RATE_LIMIT_CHAT_PER_MINUTE, 60);
    assert.equal(config.production, false);
  });
  it('honours XDG_DATA_HOME and SERVICE_DB_PATH', () => {
    assert.equal(loadConfig({ HOME: '/h', XDG_DATA_HOME: '/data' }).config.dbPath, '/data/svc/svc.db');
    assert.equal(loadConfig({ HOME: '/h', SERVICE_DB_PATH: '/var/lib/svc/x.db' }).config.secretsFile, '/var/lib/svc/secrets.json');
  });
  it('SERVICE_PROVIDER_ALLOWED_PRIVATE_HOSTS: names, suffixes, addresses and CIDRs, trimmed and lower-cased; empty by default', () => {
    assert.deepEqual(loadConfig({ HOME: '/h' }).config.SERVICE_PROVIDER_ALLOWED_PRIVATE_HOSTS, []);
    const v = ' LLM.lan , *.Lab.example ,192.168.1.20, 10.0.0.0/8,fd00::/8,[::1],';
    assert.deepEqual(loadConfig({ HOME: '/h', SERVICE_PROVIDER_ALLOWED_PRIVATE_HOSTS: v }).config.SERVICE_PROVIDER_ALLOWED_PRIVATE_HOSTS, [
      'llm.lan', '*.lab.example', '192.168.1.20', '10.0.0.0/8', 'fd00::/8', '[::1]',
    ]);
  });
  it('treats an empty variable as unset', () => {
    assert.equal(loadConfig({ HOME: '/h', PORT: '' }).config.PORT, 8484);
  });
});

describe('loadConfig errors name the variable', () => {
  for (const [name, value] of [
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['SERVICE_STORE', 'mysql'],
    ['RATE_LIMIT_CHAT_PER_MINUTE', '1.5'],
    ['RATE_LIMIT_CHAT_PER_MINUTE', '0'],
    ['SERVICE_SCHEDULER_LEADER_MODE', 'zookeeper'],
    ['LOCAL_LLM_BASE_URL', 'not a url'],
    ['SERVICE_APP_ORIGIN', 'ftp://x'],
    ['NODE_ENV', 'staging'],
    ['SERVICE_PROVIDER_ALLOWED_PRIVATE_HOSTS', '10.0.0.0/33'],
    ['SERVICE_PROVIDER_ALLOWED_PRIVATE_HOSTS', 'llm.lan,999.1.1.1'],
    ['SERVICE_PROVIDER_ALLOWED_PRIVATE_HOSTS', 'fd00::/129'],
    ['SERVICE_PROVIDER_ALLOWED_PRIVATE_HOSTS', 'http://llm.lan'],
  ] as const) {
    it(`${name}=${value}`, () => {
      const problems = problemsOf({ HOME: '/h', [name]: value });
      assert.equal(problems.length, 1, problems.join('\n'));
      assert.match(problems[0]!, new RegExp(`^${name}: `));
    });
  }
  it('postgres without DATABASE_URL', () => {
    assert.deepEqual(problemsOf({ HOME: '/h', SERVICE_STORE: 'postgres' }).map((p) => p.split(':')[0]), ['DATABASE_URL']);
  });
  it('http leader mode without a URL', () => {
    assert.match(problemsOf({ HOME: '/h', SERVICE_SCHEDULER_LEADER_MODE: 'http' })[0]!, /^SERVICE_SCHEDULER_LEADER_URL/);
  });
  it('preview origin equal to app origin', () => {
    const p = problemsOf({ HOME: '/h', SERVICE_APP_ORIGIN: 'http://a:1', SERVICE_PREVIEW_ORIGIN: 'http://a:1/x' });
    assert.match(p[0]!, /^SERVICE_PREVIEW_ORIGIN/);
  });
  it('preview origin on the host name of the app origin, in any spelling (another port, case, trailing dot)', () => {
    for (const preview of ['http://a:2', 'https://a:1', 'http://A.:1', 'http://a.']) {
      const p = problemsOf({ HOME: '/h', SERVICE_APP_ORIGIN: 'http://a:1', SERVICE_PREVIEW_ORIGIN: preview });
      assert.equal(p.length, 1, preview);
      assert.match(p[0]!, /^SERVICE_PREVIEW_ORIGIN: must use a different host name/, preview);
    }
    assert.deepEqual(problemsOf({ HOME: '/h', SERVICE_APP_ORIGIN: 'http://a:1', SERVICE_PREVIEW_ORIGIN: 'http://preview.a:1' }), []);
  });
  it('preview link lifetime: default one hour, at least a minute, at most a week', () => {
    assert.equal(loadConfig({ HOME: '/h' }).config.SERVICE_PREVIEW_LINK_TTL_S, 3600);
    assert.equal(loadConfig({ HOME: '/h', SERVICE_PREVIEW_LINK_TTL_S: '60' }).config.SERVICE_PREVIEW_LINK_TTL_S, 60);
    for (const bad of ['59', '604801', '1.5', 'soon']) assert.match(problemsOf({ HOME: '/h', SERVICE_PREVIEW_LINK_TTL_S: bad })[0]!, /^SERVICE_PREVIEW_LINK_TTL_S: /);
  });
});

describe('default origins', () => {
  it('follow PORT, so sign-up links point at the listener', () => {
    const { config } = loadConfig({ HOME: '/h', PORT: '9090' });
    assert.equal(config.SERVICE_APP_ORIGIN, 'http://localhost:9090');
    assert.equal(config.SERVICE_PREVIEW_ORIGIN, 'http://preview.localhost:9090');
  });
  it('are 8484 by default and with PORT=0; explicit origins win', () => {
    assert.equal(loadConfig({ HOME: '/h' }).config.SERVICE_APP_ORIGIN, 'http://localhost:8484');
    assert.equal(loadConfig({ HOME: '/h', PORT: '0' }).config.SERVICE_APP_ORIGIN, 'http://localhost:8484');
    assert.equal(loadConfig({ HOME: '/h', PORT: '9090', SERVICE_APP_ORIGIN: 'https://svc.example.com' }).config.SERVICE_APP_ORIGIN, 'https://svc.example.com');
  });
});

describe('registration mode', () => {
  it('keeps an invalid value as-is, starts, and warns', () => {
    const { config, warnings } = loadConfig({ HOME: '/h', SERVICE_REGISTRATION_MODE: 'invite-only' });
    assert.equal(config.SERVICE_REGISTRATION_MODE, 'invite-only');
    assert.equal(config.registrationModeValid, false);
    assert.ok(warnings.some((w) => w.includes('registration_misconfigured')));
  });
  it('warns that open is for trusted networks', () => {
    const { config, warnings } = loadConfig({ HOME: '/h', SERVICE_REGISTRATION_MODE: 'open' });
    assert.equal(config.registrationModeValid, true);
    assert.ok(warnings.some((w) => /trusted network/.test(w)));
  });
});

describe('local model target', () => {
  it('LOCAL_LLM_BASE_URL wins over OLLAMA_BASE_URL, with a warning when they differ', () => {
    const { config, warnings } = loadConfig({ HOME: '/h', LOCAL_LLM_BASE_URL: 'http://a:1/v1', OLLAMA_BASE_URL: 'http://b:2/v1' });
    assert.equal(config.localLlmBaseUrl, 'http://a:1/v1');
    assert.equal(warnings.length, 1);
  });
  it('OLLAMA_BASE_URL alone is used', () => {
    assert.equal(loadConfig({ HOME: '/h', OLLAMA_BASE_URL: 'http://b:2/v1' }).config.localLlmBaseUrl, 'http://b:2/v1');
  });
});

describe('production', () => {
  it('accepts a complete production environment', () => {
    const { config } = loadConfig(prodEnv());
    assert.equal(config.production, true);
  });
  it('names every problem at once: missing secrets, http origins and a bad type', () => {
    const env = prodEnv({ SERVICE_APP_ORIGIN: 'http://svc.example.com', PORT: 'x' });
    delete env.SERVICE_VAULT_KEY;
    delete env.SERVICE_WEBHOOK_SECRET;
    const names = problemsOf(env).map((p) => p.split(':')[0]);
    assert.deepEqual(names.sort(), ['PORT', 'SERVICE_APP_ORIGIN', 'SERVICE_VAULT_KEY', 'SERVICE_WEBHOOK_SECRET'].sort());
  });
  it('refuses secrets shorter than 32 bytes', () => {
    const p = problemsOf(prodEnv({ SERVICE_SESSION_SECRET: 'x'.repeat(31) }));
    assert.deepEqual(p.map((x) => x.split(':')[0]), ['SERVICE_SESSION_SECRET']);
    assert.deepEqual(problemsOf(prodEnv({ SERVICE_SESSION_SECRET: 'é'.repeat(16) })), [], '32 bytes in UTF-8 is enough');
  });
  it('refuses two equal secrets', () => {
    const p = problemsOf(prodEnv({ SERVICE_PREVIEW_SECRET: strong(0) }));
    assert.equal(p.length, 1);
    assert.match(p[0]!, /^SERVICE_PREVIEW_SECRET: must differ from SERVICE_SESSION_SECRET/);
  });
  it('refuses a preview origin equal to the app origin', () => {
    const p = problemsOf(prodEnv({ SERVICE_PREVIEW_ORIGIN: 'https://svc.example.com' }));
    assert.deepEqual(p.map((x) => x.split(':')[0]), ['SERVICE_PREVIEW_ORIGIN']);
  });
  it('refuses a preview origin over http and the none sandbox', () => {
    const p = problemsOf(prodEnv({ SERVICE_PREVIEW_ORIGIN: 'http://p.example.com', SERVICE_SANDBOX_DRIVER: 'none' }));
    assert.deepEqual(p.map((x) => x.split(':')[0]).sort(), ['SERVICE_PREVIEW_ORIGIN', 'SERVICE_SANDBOX_DRIVER']);
  });
  it('development does not require secrets', () => {
    assert.deepEqual(problemsOf({ HOME: '/h' }), []);
  });
});

describe('http_request tool limits', () => {
  it('defaults: 10 s, 1 MiB response, 256 KiB request, private addresses refused, any public host', () => {
    const { config } = loadConfig({ HOME: '/h' });
    assert.equal(config.SERVICE_TOOL_HTTP_TIMEOUT_MS, 10_000);
    assert.equal(config.SERVICE_TOOL_HTTP_MAX_RESPONSE_BYTES, 1024 * 1024);
    assert.equal(config.SERVICE_TOOL_HTTP_MAX_REQUEST_BYTES, 256 * 1024);
    assert.equal(config.SERVICE_TOOL_HTTP_ALLOW_PRIVATE, false);
    assert.deepEqual(config.SERVICE_TOOL_HTTP_ALLOWED_HOSTS, []);
    assert.deepEqual(loadConfig({ HOME: '/h', SERVICE_TOOL_HTTP_ALLOWED_HOSTS: '' }).config.SERVICE_TOOL_HTTP_ALLOWED_HOSTS, []);
  });
  it('parses values', () => {
    const { config } = loadConfig({
      HOME: '/h',
      SERVICE_TOOL_HTTP_TIMEOUT_MS: '500',
      SERVICE_TOOL_HTTP_MAX_RESPONSE_BYTES: '2048',
      SERVICE_TOOL_HTTP_MAX_REQUEST_BYTES: '0',
      SERVICE_TOOL_HTTP_ALLOW_PRIVATE: '1',
      SERVICE_TOOL_HTTP_ALLOWED_HOSTS: ' API.Example.com ,*.example.org,, 10.1.2.3,[::1] ',
    });
    assert.equal(config.SERVICE_TOOL_HTTP_TIMEOUT_MS, 500);
    assert.equal(config.SERVICE_TOOL_HTTP_MAX_RESPONSE_BYTES, 2048);
    assert.equal(config.SERVICE_TOOL_HTTP_MAX_REQUEST_BYTES, 0);
    assert.equal(config.SERVICE_TOOL_HTTP_ALLOW_PRIVATE, true);
    assert.deepEqual(config.SERVICE_TOOL_HTTP_ALLOWED_HOSTS, ['api.example.com', '*.example.org', '10.1.2.3', '[::1]']);
    assert.equal(loadConfig({ HOME: '/h', SERVICE_TOOL_HTTP_ALLOW_PRIVATE: 'false' }).config.SERVICE_TOOL_HTTP_ALLOW_PRIVATE, false);
  });
  for (const [name, value] of [
    ['SERVICE_TOOL_HTTP_TIMEOUT_MS', 'ten'],
    ['SERVICE_TOOL_HTTP_TIMEOUT_MS', '0'],
    ['SERVICE_TOOL_HTTP_MAX_RESPONSE_BYTES', '-1'],
    ['SERVICE_TOOL_HTTP_MAX_RESPONSE_BYTES', '1.5'],
    ['SERVICE_TOOL_HTTP_MAX_REQUEST_BYTES', 'lots'],
    ['SERVICE_TOOL_HTTP_ALLOW_PRIVATE', 'yes'],
    ['SERVICE_TOOL_HTTP_ALLOWED_HOSTS', 'https://api.example.com'],
    ['SERVICE_TOOL_HTTP_ALLOWED_HOSTS', 'api.example.com,bad host'],
    ['SERVICE_TOOL_HTTP_ALLOWED_HOSTS', 'api.example.com/path'],
    ['SERVICE_TOOL_HTTP_ALLOWED_HOSTS', '*'],
  ] as const) {
    it(`${name}=${value} is refused by name`, () => {
      const problems = problemsOf({ HOME: '/h', [name]: value });
      assert.equal(problems.length, 1, problems.join('\n'));
      assert.match(problems[0]!, new RegExp(`^${name}: `));
    });
  }
});
