import { test } from 'vitest';
import assert from 'node:assert/strict';
import { StoreBusy } from '../core/store/types.ts';
import { explainError } from './explain-error.ts';

const sysError = (props: Record<string, unknown>) => Object.assign(new Error(String(props.code)), props);

test('EACCES on a file names the file, its directory and the variables', () => {
  const msg = explainError(sysError({ code: 'EACCES', syscall: 'open', path: '/var/lib/svc/secrets.json' }), {});
  assert.match(msg, /cannot open \/var\/lib\/svc\/secrets\.json \(EACCES\): the directory \/var\/lib\/svc is not writable by this user/);
  assert.match(msg, /SERVICE_DB_PATH/);
});

test('a privileged port says to use a high port behind a proxy', () => {
  assert.match(explainError(sysError({ code: 'EACCES', syscall: 'listen', port: 80 }), { PORT: '80' }), /ports below 1024 need privileges/);
});

test('PostgreSQL unreachable: host, port and database, never the password', () => {
  const refused = new AggregateError([sysError({ code: 'ECONNREFUSED' })]);
  const msg = explainError(new StoreBusy(refused), { SERVICE_STORE: 'postgres', DATABASE_URL: 'postgres://svc:hunter2@db.lan:6543/svc' });
  assert.equal(msg.includes('hunter2'), false);
  assert.match(msg, /cannot connect to PostgreSQL at db\.lan:6543\/svc \(DATABASE_URL\): ECONNREFUSED/);
});

test('unknown errors keep their message', () => {
  assert.equal(explainError(new Error('something else'), {}), 'something else');
});
