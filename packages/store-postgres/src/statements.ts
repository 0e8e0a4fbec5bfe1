// The store's SQL, one statement per contract method wherever one statement can do it: one round
// trip, atomic on its own (no transaction to leave open). Expiry is always compared with the
// database's clock (`clock_timestamp()`, the time of the statement itself, not of its transaction).
//
// A fenced write reads the lease row `FOR SHARE` in the same statement: the lease cannot be taken
// by another holder (an UPDATE of that row) until the write has committed, and a write whose fence
// no longer holds writes nothing.
import type { Fence } from "@paysys/core";
import { qualified, type Tables } from "./tables.js";

/** Milliseconds after the statement's own instant. */
const after = (param: string) => `clock_timestamp() + make_interval(secs => ${param}::float8 / 1000)`;
const UNRESOLVED = "('pending', 'disputed')";
/** Milliseconds before the statement's own instant. */
const ago = (param: string) => `clock_timestamp() - make_interval(secs => ${param}::float8 / 1000)`;
/** Older than the retention `param` (ms): a settled journal entry, a callback done or whose claim ran out. */
const settledBefore = (param: string) => `settled_at < ${ago(param)}`;
const callbackBefore = (param: string) => `coalesce(completed_at, claimed_until) < ${ago(param)}`;

export type Statements = ReturnType<typeof statementsFor>;

export function statementsFor(tables: Tables) {
  const values = qualified(tables, "values");
  const leases = qualified(tables, "leases");
  const journal = qualified(tables, "journal");
  const callbacks = qualified(tables, "callbacks");
  const orders = qualified(tables, "orders");

  /** The `lease` CTE: the fence's lease row, locked for the statement, if the fence still holds it. */
  const leaseHeld = (first: number) =>
    `lease AS (SELECT 1 FROM ${leases} WHERE name = $${first} AND holder = $${first + 1} AND fence = $${first + 2} AND expires_at > clock_timestamp() FOR SHARE)`;
  const fenceParams = (fence: Fence) => [fence.name, fence.holder, fence.value];
  const entryColumns = "key, state, intent::text AS intent, settlement::text AS settlement";
  const leaseColumns = "holder, fence";
  // Settling for good stamps `settled_at` (retention counts from it); pending and disputed never.
  const settled = `state = $2::text, settlement = $3::json, settled_at = CASE WHEN $2::text IN ${UNRESOLVED} THEN NULL ELSE clock_timestamp() END`;
  // A settlement that names its intent (its id in `param`, else null) settles only that intent, and
  // only while it is unresolved, but for `applied`, which replaces any other outcome of it (core's
  // `settles`). An intent written before ids is named by its start (core's `intentIdOf`).
  const settles = (param: string) =>
    `(${param}::text IS NULL OR (coalesce(intent->>'id', 't' || started_at::text) = ${param}::text AND (state IN ${UNRESOLVED} OR ($2::text = 'applied' AND state <> 'applied'))))`;

  return {
    fenceParams,

    getValue: `SELECT value FROM ${values} WHERE key = $1`,
    setValue: `INSERT INTO ${values} (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
    /** Answers one row when written, none when the fence no longer holds. */
    setValueFenced: `WITH ${leaseHeld(3)} INSERT INTO ${values} (key, value) SELECT $1::text, $2::text FROM lease ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value RETURNING 1`,
    /** Serialises `update`s of one key across processes, until the transaction ends. */
    lockValue: "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))",
    valueLockName: (key: string) => `${values} ${key}`,

    // Taken when free, expired or already the holder's; an insert or an update of one row, so of
    // racing takers exactly one gets it (the others re-check the row after the winner commits).
    acquireLease: `INSERT INTO ${leases} AS l (name, holder, fence, expires_at) VALUES ($1, $2, 1, ${after("$3")})
      ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, fence = l.fence + 1, expires_at = EXCLUDED.expires_at
      WHERE l.expires_at <= clock_timestamp() OR l.holder = EXCLUDED.holder
      RETURNING ${leaseColumns}`,
    renewLease: `UPDATE ${leases} SET expires_at = ${after("$4")}
      WHERE name = $1 AND holder = $2 AND fence = $3 AND expires_at > clock_timestamp() RETURNING ${leaseColumns}`,
    releaseLease: `UPDATE ${leases} SET expires_at = to_timestamp(0) WHERE name = $1 AND holder = $2 AND fence = $3`,

    // Writes the intent unless the key has an entry that is not `not-applied`. Answers `written`
    // (0 or 1) and `fenced` (0 when the fence no longer holds: nothing was written).
    beginIntent: `WITH written AS (${insertIntent(journal, "VALUES ($1, $2, 'pending', $3, $4)")} RETURNING 1)
      SELECT 1 AS fenced, (SELECT count(*) FROM written)::int AS written`,
    beginIntentFenced: `WITH ${leaseHeld(5)}, written AS (${insertIntent(journal, "SELECT $1::text, $2::text, 'pending', $3::bigint, $4::json FROM lease")} RETURNING 1)
      SELECT (SELECT count(*) FROM lease)::int AS fenced, (SELECT count(*) FROM written)::int AS written`,
    settleIntent: `UPDATE ${journal} SET ${settled} WHERE key = $1 AND ${settles("$4")}`,
    settleIntentFenced: `WITH ${leaseHeld(5)}, settled AS (UPDATE ${journal} SET ${settled} WHERE key = $1 AND ${settles("$4")} AND EXISTS (SELECT 1 FROM lease) RETURNING 1)
      SELECT (SELECT count(*) FROM lease)::int AS fenced, (SELECT count(*) FROM settled)::int AS settled`,
    // The outcome of an applied call and the chain link its answer carried, in one statement whose
    // commit does not wait for the disk (`synchronous_commit` off for this transaction only): if the
    // server loses it, the intent is pending again and is resolved by asking the service, and the
    // link is read from the service by the lease's next holder. The intent itself is always flushed.
    settleIntentWithLink: `WITH ${leaseHeld(6)},
      kept AS (INSERT INTO ${values} (key, value) SELECT $4::text, $5::text FROM lease ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value),
      settled AS (UPDATE ${journal} SET ${settled} WHERE key = $1 AND ${settles("$9")} AND EXISTS (SELECT 1 FROM lease))
      SELECT (SELECT count(*) FROM lease)::int AS fenced, set_config('synchronous_commit', 'off', true) AS unflushed`,
    // An applied intent's outcome with its link, and the register's next intent (another key), in one
    // statement under one fence: its commit waits for the disk, as every intent's does. Answers
    // `fenced` and `written` as beginIntentFenced does.
    settleThenBegin: `WITH ${leaseHeld(10)},
      kept AS (INSERT INTO ${values} (key, value) SELECT $4::text, $5::text FROM lease ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value),
      settled AS (UPDATE ${journal} SET ${settled} WHERE key = $1 AND ${settles("$13")} AND EXISTS (SELECT 1 FROM lease)),
      written AS (${insertIntent(journal, "SELECT $6::text, $7::text, 'pending', $8::bigint, $9::json FROM lease")} RETURNING 1)
      SELECT (SELECT count(*) FROM lease)::int AS fenced, (SELECT count(*) FROM written)::int AS written`,
    getIntent: `SELECT ${entryColumns} FROM ${journal} WHERE key = $1`,
    // Served by the partial indexes of unresolved entries.
    pendingIntents: `SELECT ${entryColumns} FROM ${journal} WHERE state IN ${UNRESOLVED} AND starts_with(key, $1) ORDER BY started_at, key`,
    pendingIntentsInScope: `SELECT ${entryColumns} FROM ${journal} WHERE state IN ${UNRESOLVED} AND scope = $2 AND starts_with(key, $1) ORDER BY started_at, key`,
    // The age is checked again on the row deleted: a row the subquery chose may be written again (a
    // key begun anew) before the delete reaches it, and the delete then sees the new row, which the
    // subquery's list alone would delete (READ COMMITTED re-checks only the delete's own condition).
    pruneJournal: `WITH dropped AS (DELETE FROM ${journal} WHERE key IN (
      SELECT key FROM ${journal} WHERE ${settledBefore("$1")} LIMIT $2) AND ${settledBefore("$1")} RETURNING 1)
      SELECT count(*)::int AS dropped FROM dropped`,

    // A new event is inserted; a claim whose time ran out (its holder died) is taken over; a done
    // event never is. `done` is null when another delivery's claim is too new for this statement to see.
    claim: `WITH claimed AS (INSERT INTO ${callbacks} AS c (key, claimed_until, claim) VALUES ($1, ${after("$2")}, $3)
      ON CONFLICT (key) DO UPDATE SET claimed_until = EXCLUDED.claimed_until, claim = EXCLUDED.claim WHERE NOT c.done AND c.claimed_until <= clock_timestamp() RETURNING 1)
      SELECT (SELECT count(*) FROM claimed)::int AS claimed, (SELECT done FROM ${callbacks} WHERE key = $1) AS done`,
    // Only the claim of this delivery's token, still processing: a claim taken over, or done, stays.
    renew: `UPDATE ${callbacks} SET claimed_until = ${after("$2")} WHERE key = $1 AND NOT done AND claim = $3 RETURNING 1`,
    complete: `INSERT INTO ${callbacks} (key, done, claimed_until, completed_at) VALUES ($1, true, clock_timestamp(), clock_timestamp())
      ON CONFLICT (key) DO UPDATE SET done = true, completed_at = clock_timestamp()`,
    // A done event is never forgotten before its retention, whatever a late release says; another
    // delivery's claim (taken after this one's ran out) is never freed by this one.
    release: `DELETE FROM ${callbacks} WHERE key = $1 AND NOT done AND claim = $2`,
    // Checked again on the row deleted, as pruneJournal's: a claim taken over meanwhile is new.
    pruneCallbacks: `WITH dropped AS (DELETE FROM ${callbacks} WHERE key IN (
      SELECT key FROM ${callbacks} WHERE ${callbackBefore("$1")} LIMIT $2) AND ${callbackBefore("$1")} RETURNING 1)
      SELECT count(*)::int AS dropped FROM dropped`,
    orderStatus: `SELECT status FROM ${orders} WHERE order_id = $1`,
    recordFirstStatus: `INSERT INTO ${orders} (order_id, status) VALUES ($1, $2) ON CONFLICT (order_id) DO NOTHING RETURNING 1`,
    // Re-checked against the newest row after waiting for a concurrent move: of racing moves one wins.
    moveStatus: `UPDATE ${orders} SET status = $2 WHERE order_id = $1 AND status = $3 RETURNING 1`,
  };
}

/** The insert of a pending intent that replaces a `not-applied` entry and nothing else. */
const insertIntent = (journal: string, source: string) =>
  `INSERT INTO ${journal} AS j (key, scope, state, started_at, intent) ${source}
   ON CONFLICT (key) DO UPDATE SET scope = EXCLUDED.scope, state = 'pending', started_at = EXCLUDED.started_at, intent = EXCLUDED.intent, settlement = NULL, settled_at = NULL
   WHERE j.state = 'not-applied'`;
