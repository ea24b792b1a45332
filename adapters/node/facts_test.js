// facts_test.js — pins what docs/exec-protocol.md "Adapters" says about the pinned packages' own code, so a
// version bump that changes it fails here and docs/exec-protocol.md is rewritten with it. Run by
// adapters_test.sh (node part); exit 0 when every fact still holds.
import assert from 'node:assert/strict';
import { Snowflake } from '@sapphire/snowflake';
import { monotonicFactory } from 'ulid';

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
