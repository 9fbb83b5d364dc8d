'use strict';
// The program that runs INSIDE the run_code sandbox, as `svc __sandbox-node …` (the built binary:
// scripts/build/sea-entry.cjs runs this file from a SEA asset before unpacking anything) or
// `node node-runner.cjs …` (from source). Builtins only: nothing else exists in the sandbox.
//
//   [node options…] FILE [args…]      run FILE like `node FILE` (CommonJS or ES module)
//   [node options…] -e CODE            run CODE like `node -e`
//   --python=PATH FILE [args…]         run `PATH -I -u -B FILE` as a child
//
// Set by the driver for the top-level run only (removed before user code runs):
//   SVC_SANDBOX_RESULT_FD   after the program, one JSON line: /output's files, full tmpfs, child signal
//   SVC_SANDBOX_OUTPUT      the directory whose files are collected
//   SVC_SANDBOX_TMPFS       `:`-separated size-capped mounts checked for being full
//   SVC_SANDBOX_PROXY_SOCKET  egress proxy socket; a loopback forwarder on 127.0.0.1:3128 is started
// SVC_SANDBOX_NODE=1 stays set, so that a child started with process.execPath (the svc binary)
// behaves like node too.
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { pathToFileURL } = require('node:url');

const MAX_FILES = 200;
const MAX_BYTES = 5 * 1024 * 1024;
const PROXY_PORT = 3128;

function take(name) {
  const v = process.env[name];
  delete process.env[name];
  return v;
}

function writeAll(fd, text) {
  let buf = Buffer.from(text);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (buf.length > 0) {
    try {
      buf = buf.subarray(fs.writeSync(fd, buf));
    } catch (err) {
      if (err.code !== 'EAGAIN') return;
      Atomics.wait(pause, 0, 0, 2);
    }
  }
}

/** Regular files under `dir` (symlinks and special files skipped), within the caps. */
function collect(dir) {
  const files = [];
  let bytes = 0;
  let truncated = false;
  const walk = (abs, rel) => {
    let names;
    try {
      names = fs.readdirSync(abs).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const p = path.join(abs, name);
      const r = rel ? `${rel}/${name}` : name;
      let st;
      try {
        st = fs.lstatSync(p);
      } catch {
        continue;
      }
      if (st.isDirectory()) walk(p, r);
      else if (st.isFile()) {
        if (files.length >= MAX_FILES || bytes + st.size > MAX_BYTES) {
          truncated = true;
          continue;
        }
        try {
          const content = fs.readFileSync(p);
          bytes += content.length;
          files.push({ path: r, data: content.toString('base64') });
        } catch {}
      }
    }
  };
  if (dir) walk(dir, '');
  return { files, truncated };
}

function isFull(dir) {
  try {
    return fs.statfsSync(dir).bavail === 0;
  } catch {
    return false;
  }
}

function reporter(fd, outputDir, tmpfs) {
  let done = false;
  return (childSignal) => {
    if (done || fd === undefined) return;
    done = true;
    const { files, truncated } = collect(outputDir);
    const storageFull = tmpfs.some(isFull);
    writeAll(fd, JSON.stringify({ files, filesTruncated: truncated, storageFull, childSignal: childSignal ?? null }) + '\n');
  };
}

/** 127.0.0.1:3128 → the egress proxy's Unix socket, so ordinary HTTP_PROXY clients work. */
function forwardProxy(socketPath) {
  return new Promise((resolve, reject) => {
    const server = net.createServer((client) => {
      const upstream = net.connect(socketPath);
      client.unref();
      upstream.unref();
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
      client.pipe(upstream).pipe(client);
    });
    server.once('error', reject);
    server.listen(PROXY_PORT, '127.0.0.1', () => {
      server.unref();
      resolve();
    });
  });
}

function evalCode(code) {
  const { createRequire } = require('node:module');
  const filename = path.join(process.cwd(), '[eval]');
  const fn = require('node:vm').runInThisContext(`(function (require, module, exports, __filename, __dirname) {${code}\n})`, { filename });
  const mod = { exports: {} };
  fn(createRequire(filename), mod, mod.exports, filename, process.cwd());
}

async function run(args) {
  const resultFd = take('SVC_SANDBOX_RESULT_FD');
  const report = reporter(resultFd === undefined ? undefined : Number(resultFd), take('SVC_SANDBOX_OUTPUT'), (take('SVC_SANDBOX_TMPFS') ?? '').split(':').filter(Boolean));
  const proxy = take('SVC_SANDBOX_PROXY_SOCKET');
  process.env.SVC_SANDBOX_NODE = '1';

  let i = 0;
  let python;
  // fork() passes process.execArgv before the script: node options mean nothing here.
  for (; i < args.length && args[i].startsWith('-') && args[i] !== '-e' && args[i] !== '--eval'; i++) {
    if (args[i].startsWith('--python=')) python = args[i].slice('--python='.length);
  }
  if (proxy) await forwardProxy(proxy);

  if (python) {
    delete process.env.SVC_SANDBOX_NODE;
    const child = spawn(python, ['-I', '-u', '-B', ...args.slice(i)], { stdio: 'inherit' });
    child.on('error', (err) => {
      process.stderr.write(`cannot start ${python}: ${err.message}\n`);
      report(null);
      process.exit(127);
    });
    child.on('exit', (code, signal) => {
      report(signal);
      process.exit(code ?? 128 + (os.constants.signals[signal] ?? 0));
    });
    return;
  }

  process.on('exit', () => report(null));
  if (args[i] === '-e' || args[i] === '--eval') {
    process.argv = [process.execPath, ...args.slice(i + 2)];
    evalCode(args[i + 1] ?? '');
    return;
  }
  const file = args[i];
  if (!file) {
    process.stderr.write('usage: node FILE | node -e CODE\n');
    process.exit(9);
  }
  const abs = path.resolve(file);
  process.argv = [process.execPath, abs, ...args.slice(i + 1)];
  await import(pathToFileURL(abs).href);
}

function main(args) {
  run(args).catch((err) => {
    // What node itself would print for an uncaught error in the main module.
    process.stderr.write(`${err && err.stack ? err.stack : String(err)}\n`);
    process.exitCode = 1;
  });
}

module.exports = { main };
if (require.main === module) main(process.argv.slice(2));
