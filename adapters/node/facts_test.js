// facts_test.js — pins what docs/exec-protocol.md "Adapters" says about the pinned packages' own code, so a
// version bump that changes it fails here and docs/exec-protocol.md is rewritten with it. Run by
// adapters_test.sh (node part); exit 0 when every fact still holds.
import assert from 'node:assert/strict';
import { Snowflake } from '@sapphire/snowflake';
import { monotonicFactory } from 'ulid';
import snowflakeIdModule from 'snowflake-id';
import nodejsSnowflake from 'nodejs-snowflake';
import FlakeId from 'flake-idgen';

const ms = 1796146122115;  // any millisecond after the Discord epoch

// @sapphire/snowflake: the 12-bit increment wraps without waiting for the next millisecond,
// so the 4097th ID generated within one ms repeats the 1st (a duplicate, and a misorder at
// the wrap).
{
  const snowflake = new Snowflake(1420070400000n);
  const first = snowflake.generate({ timestamp: ms });
  for (let i = 1; i < 4096; i++) snowflake.generate({ timestamp: ms });
  assert.equal(snowflake.generate({ timestamp: ms }), first, 'snowflake: 4097th ID in one ms');
  // No guard against a clock going back: an earlier ms gives a smaller ID.
  assert.ok(snowflake.generate({ timestamp: ms - 1 }) < first, 'snowflake: clock back');
}

// @sapphire/snowflake's defaults: worker id 0, process id 1 and an increment from 0 in every
// instance, so two fresh instances give the same ID at the same ms.
{
  const a = new Snowflake(1420070400000n);
  const b = new Snowflake(1420070400000n);
  assert.equal(a.workerId, 0n, 'snowflake: default worker id');
  assert.equal(a.processId, 1n, 'snowflake: default process id');
  assert.equal(a.generate({ timestamp: ms }), b.generate({ timestamp: ms }),
               'snowflake: two default instances, same ms, same ID');
}

// withClock(reads, body): body() with Date.now answering reads() (the packages below take no
// time argument; they, or the wasm glue, call Date.now on each ID).
function withClock(reads, body) {
  const real = Date.now;
  Date.now = reads;
  try {
    return body();
  } finally {
    Date.now = real;
  }
}

// snowflake-id: when its 12-bit sequence runs out it waits for the next ms but keeps the old
// time, so the 4097th ID in one ms repeats the 1st. A clock going back resets the sequence
// and issues the earlier ms again. A mid of 0 becomes 1.
{
  const Flake = snowflakeIdModule.default;
  assert.equal(new Flake({ mid: 0 }).mid, 1, 'snowflake-id: mid 0 becomes 1');
  let reads = 0;  // 4097 IDs read ms once each; the 4097th's wait reads again and sees ms + 1
  const ids = withClock(() => (++reads <= 4097 ? ms : ms + 1), () => {
    const flake = new Flake({ mid: 7 });
    return Array.from({ length: 4097 }, () => flake.generate());
  });
  assert.equal(new Set(ids).size, 4096, 'snowflake-id: 4097 IDs in one ms, 4096 distinct');
  assert.equal(ids[4096], ids[0], 'snowflake-id: the 4097th ID in one ms repeats the 1st');
  let now = ms;
  const flake = new Flake({ mid: 7 });
  const [first, , again] = withClock(() => now, () =>
    [ms, ms + 1, ms].map((t) => { now = t; return flake.generate(); }));
  assert.equal(again, first, 'snowflake-id: clock back re-issues an ID');
}

// nodejs-snowflake 2.0.1 (Rust in wasm, reading Date.now): its 10-bit sequence waits for the
// next ms and moves the time on (no repeat); a clock going back resets the sequence and issues
// the earlier ms again.
{
  let now = ms;
  const flake = new nodejsSnowflake.Snowflake({ custom_epoch: 0, instance_id: 7 });
  let reads = 0;  // 1025 IDs read ms; the 1025th's wait reads until ms + 1
  const ids = withClock(() => (++reads <= 1025 ? ms : ms + 1), () =>
    Array.from({ length: 1025 }, () => flake.getUniqueID()));
  assert.equal(new Set(ids).size, 1025, 'nodejs-snowflake: the 1025th ID in a ms is new');
  assert.equal(ids[1024] >> 22n, BigInt(ms + 1), 'nodejs-snowflake: ... at the next ms');
  const back = new nodejsSnowflake.Snowflake({ custom_epoch: 0, instance_id: 7 });
  const [first, , again] = withClock(() => now, () =>
    [ms, ms + 1, ms].map((t) => { now = t; return back.getUniqueID(); }));
  assert.equal(again, first, 'nodejs-snowflake: clock back re-issues an ID');
}

// flake-idgen: next() throws rather than repeat: on the 4097th ID in one ms and while the clock
// is behind its last ms. Its callback form, which its README says waits instead, throws a
// ReferenceError when the clock is behind (it calls `self`, which is undefined there).
{
  let now = ms;
  const flake = new FlakeId({ id: 7 });
  withClock(() => now, () => {
    for (let i = 0; i < 4096; i++) flake.next();
    assert.throws(() => flake.next(), /^Error: Sequence exceeded/, 'flake-idgen: 4097th in a ms');
    now = ms - 1;
    assert.throws(() => flake.next(), /^Error: Clock moved backwards/, 'flake-idgen: clock back');
    assert.throws(() => flake.next(() => {}), { name: 'ReferenceError' },
                  'flake-idgen: callback form, clock back');
  });
}

// ulid's monotonicFactory: a clock going back keeps the last time and increments the random
// part; when the 80-bit random part overflows within one ms it throws (no wrap, no duplicate).
{
  const next = monotonicFactory();
  const later = next(ms + 5);
  const back = next(ms);
  assert.ok(back > later, 'ulid: clock back still increases');
  assert.equal(back.slice(0, 10), later.slice(0, 10), 'ulid: clock back keeps the last time');
  const saturated = monotonicFactory(() => 0.99999);  // every random char is 'Z'
  saturated(ms);
  assert.throws(() => saturated(ms), { name: 'ULIDError', code: 'B32_ENC_INVALID' },
                'ulid: random part overflow within one ms');
}
console.log('ok: the pinned packages behave as docs/exec-protocol.md "Adapters" says');
