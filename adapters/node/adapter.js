// adapter.js — npm ID generators behind idbench's exec line protocol (docs/exec-protocol.md, "Adapters"): a
// request "N\n" on stdin is answered with N IDs, one a line, in one write; EOF exits 0.
//
//   node adapter.js uuid-v1|uuid-v6|uuid-v7|ulid|ksuid|snowflake|snowflake-defaults|
//                   snowflake-id|nodejs-snowflake|flake-idgen
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
//   snowflake-defaults  the same package as its README's first example leaves it: Discord's
//              epoch and nothing else, so worker id 0 and process id 1 whatever IDBENCH_NODE_ID
//              says (not read): two processes issue the same IDs in the same ms.
//   snowflake-id  snowflake-id's generate() with mid = IDBENCH_NODE_ID + 1 (the package turns a
//              mid of 0 into 1, so node 0 cannot be mid 0) and its default offset 0: 42-bit
//              Unix ms, 10-bit mid, 12-bit seq (spare=0,ts=42,node=10,seq=12,epoch=0). It
//              prints decimal text itself.
//   nodejs-snowflake  nodejs-snowflake's getUniqueID() with instance_id = IDBENCH_NODE_ID and
//              custom_epoch 0 (its default, the instance's start, would give every process its
//              own epoch): 42-bit Unix ms, 12-bit instance, 10-bit seq
//              (spare=0,ts=42,node=12,seq=10,epoch=0).
//   flake-idgen  flake-idgen's next() with id = IDBENCH_NODE_ID and its default epoch 0: 42-bit
//              Unix ms, 5-bit datacenter + 5-bit worker, 12-bit counter
//              (spare=0,ts=42,node=5+5,seq=12,epoch=0);
//              its 8-byte Buffer read as one big-endian number. next() throws when the counter
//              is used up within a ms or the clock is behind its last ms; the protocol has no
//              refusal, so the adapter calls it again until it answers (what its README says
//              the callback form does), and prints the count at EOF: `refusals=N`.
// With IDBENCH_SYSTEM_TIMES set (a file path), it writes there at EOF one line per answered
// request: the ns the package's calls took (process.hrtime, monotonic, around them), the
// generator's own cost without the pipe hop (docs/exec-protocol.md).
import { writeFileSync } from 'node:fs';
import { v1, v6, v7 } from 'uuid';
import { monotonicFactory, ulidToUUID } from 'ulid';
import KSUID from 'ksuid';
import { Snowflake } from '@sapphire/snowflake';
import snowflakeIdModule from 'snowflake-id';
import nodejsSnowflake from 'nodejs-snowflake';
import FlakeId from 'flake-idgen';

const MAX_REQUEST = 1000000;  // external/program.hpp kMaxRequest
const DISCORD_EPOCH = 1420070400000n;  // 2015-01-01T00:00:00Z, the `discord` layout's epoch

function fail(message) {
  process.stderr.write(`idbench node adapter: ${message}\n`);
  process.exit(2);
}

// IDBENCH_NODE_ID as a number 0..max; `fields` names what it fills, for the refusal.
function nodeId(max, fields) {
  const text = process.env.IDBENCH_NODE_ID ?? '0';
  if (!/^[0-9]{1,7}$/.test(text) || Number(text) > max) {
    fail(`IDBENCH_NODE_ID '${text}' is not a node id 0..${max} (${fields})`);
  }
  return Number(text);
}

function ksuidAsUuid() {
  const hex = KSUID.randomSync().raw.toString('hex', 0, 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function snowflakeFactory() {
  const node = nodeId(1023, '5 worker + 5 process bits');
  const snowflake = new Snowflake(DISCORD_EPOCH);
  snowflake.workerId = node >> 5;
  snowflake.processId = node & 31;
  return () => snowflake.generate().toString();
}

function snowflakeDefaultsFactory() {
  const snowflake = new Snowflake(DISCORD_EPOCH);
  return () => snowflake.generate().toString();
}

// The package's main file is a Babel build whose class is its `default` export.
function snowflakeIdFactory() {
  const mid = nodeId(1021, 'mid = node id + 1, 1..1022') + 1;
  const snowflake = new snowflakeIdModule.default({ mid });
  return () => snowflake.generate();
}

function nodejsSnowflakeFactory() {
  const instanceId = nodeId(4095, '12 instance bits');
  const snowflake = new nodejsSnowflake.Snowflake({ custom_epoch: 0, instance_id: instanceId });
  return () => snowflake.getUniqueID().toString();
}

let refusals = 0;

function flakeIdgenFactory() {
  const flake = new FlakeId({ id: nodeId(1023, '5 datacenter + 5 worker bits') });
  return () => {
    for (;;) {
      try {
        return flake.next().readBigUInt64BE(0).toString();
      } catch (error) {
        if (!/^(Clock moved backwards|Sequence exceeded)/.test(error.message)) throw error;
        refusals++;
      }
    }
  };
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
  'snowflake-defaults': snowflakeDefaultsFactory,
  'snowflake-id': snowflakeIdFactory,
  'nodejs-snowflake': nodejsSnowflakeFactory,
  'flake-idgen': flakeIdgenFactory,
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
    if (name === 'flake-idgen') process.stderr.write(`idbench-node-adapter: refusals=${refusals}\n`);
  });
  // idbench went away mid-answer: nothing left to answer.
  process.stdout.on('error', (error) => process.exit(error.code === 'EPIPE' ? 0 : 2));
}

main(process.argv.slice(2));
