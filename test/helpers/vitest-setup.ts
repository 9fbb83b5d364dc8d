// Runs before each test file: vitest sets NODE_ENV=test in its workers, node:test did not, and
// svc reads it. scripts/test.mjs records the caller's value.
const was = process.env.SVC_TEST_NODE_ENV;
if (was !== undefined) {
  if (was) process.env.NODE_ENV = was;
  else delete process.env.NODE_ENV;
}
