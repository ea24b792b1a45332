// adapter.js — npm ID generators behind idbench's exec line protocol (docs/exec-protocol.md, "Adapters"): a
// request "N\n" on stdin is answered with N IDs, one a line, in one write; EOF exits 0.
//
//   node adapter.js uuid-v1|uuid-v6|uuid-v7|ulid|ksuid|snowflake
//
// Each generator is the package's own code, called as its README tells users to call it; the
// only code here turns its output into what idbench reads (decimal 64-bit or UUID text):
//   uuid-v1, uuid-v6, uuid-v7  uuid's v1(), v6(), v7(): canonical lowercase UUID text as is.
//   ulid       ulid's monotonicFactory(); its 128 bits as UUID text (the package's ulidToUUID,
//              lowercased): byte order kept, so text order = ULID order; top 48 bits Unix ms.
//   ksuid      ksuid's KSUID.randomSync(): 160 bits do not fit idbench's 128, so its FIRST 16
//              bytes as UUID text: the 4-byte timestamp (seconds since 1.4e12 ms) and 12 of its
//              16 random bytes. Order and time are kept; 32 random bits are dropped.
//   snowflake  @sapphire/snowflake with Discord's epoch (idbench layout `discord`): worker id
//              = IDBENCH_NODE_ID >> 5, process id = IDBENCH_NODE_ID & 31; decimal 64-bit IDs.
// With IDBENCH_SYSTEM_TIMES set (a file path), it writes there at EOF one line per answered
// request: the ns the package's calls took (process.hrtime, monotonic, around them), the
// generator's own cost without the pipe hop (docs/exec-protocol.md).
import { writeFileSync } from 'node:fs';
import { v1, v6, v7 } from 'uuid';
import { monotonicFactory, ulidToUUID } from 'ulid';
import KSUID from 'ksuid';
import { Snowflake } from '@sapphire/snowflake';

const MAX_REQUEST = 1000000;  // external/program.hpp kMaxRequest
const DISCORD_EPOCH = 1420070400000n;  // 2015-01-01T00:00:00Z, the `discord` layout's epoch
const MAX_NODE = 1023;  // 5 worker bits + 5 process bits

function fail(message) {
  process.stderr.write(`idbench node adapter: ${message}\n`);
  process.exit(2);
}

function nodeId() {
  const text = process.env.IDBENCH_NODE_ID ?? '0';
  if (!/^[0-9]{1,7}$/.test(text) || Number(text) > MAX_NODE) {
    fail(`IDBENCH_NODE_ID '${text}' is not a node id 0..${MAX_NODE} (5 worker + 5 process bits)`);
  }
  return Number(text);
}

function ksuidAsUuid() {
  const hex = KSUID.randomSync().raw.toString('hex', 0, 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function snowflakeFactory() {
  const node = nodeId();
  const snowflake = new Snowflake(DISCORD_EPOCH);
  snowflake.workerId = node >> 5;
  snowflake.processId = node & 31;
  return () => snowflake.generate().toString();
}

function ulidFactory() {
  const next = monotonicFactory();
  return () => ulidToUUID(next()).toLowerCase();
}

const factories = {
  'uuid-v1': () => () => v1(),
  'uuid-v6': () => () => v6(),
  'uuid-v7': () => () => v7(),
  ulid: ulidFactory,
  ksuid: () => ksuidAsUuid,
  snowflake: snowflakeFactory,
};

const times = [];

function answer(generate, line) {
  if (!/^[0-9]{1,7}\r?$/.test(line) || Number.parseInt(line, 10) < 1 ||
      Number.parseInt(line, 10) > MAX_REQUEST) {
    fail(`bad request '${line.slice(0, 40)}': want a count 1..${MAX_REQUEST} and a newline`);
  }
  const n = Number.parseInt(line, 10);
  const ids = new Array(n);
  const start = process.hrtime.bigint();
  try {
    for (let i = 0; i < n; i++) ids[i] = generate();
    times.push(process.hrtime.bigint() - start);
  } catch (error) {
    // The package refused (ulid throws when its random part overflows within one ms).
    process.stderr.write(`idbench node adapter: ${process.argv[2]} refused: ${error.message}\n`);
    process.exit(3);
  }
  ids.push('');
  // One write per request; stdout is a pipe, which Node writes synchronously on Linux.
  process.stdout.write(ids.join('\n'));
}

function main(argv) {
  const name = argv.length === 1 ? argv[0] : '';
  if (!Object.hasOwn(factories, name)) {
    fail(`unknown generator '${argv.join(' ')}' (want ${Object.keys(factories).join(', ')})`);
  }
  const generate = factories[name]();
  let pending = '';
  process.stdin.setEncoding('latin1');
  process.stdin.on('data', (chunk) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop();
    for (const line of lines) answer(generate, line);
  });
  process.stdin.on('end', () => {
    if (pending !== '') answer(generate, pending);
    const path = process.env.IDBENCH_SYSTEM_TIMES;
    if (path) writeFileSync(path, times.map((ns) => `${ns}\n`).join(''));
  });
  // idbench went away mid-answer: nothing left to answer.
  process.stdout.on('error', (error) => process.exit(error.code === 'EPIPE' ? 0 : 2));
}

main(process.argv.slice(2));
