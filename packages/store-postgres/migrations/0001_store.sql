-- @paysys/store-postgres, migration 1: every table the store uses.
-- {{schema}} and {{<table>}} are replaced by the names migrate() was given (checked identifiers).
-- Times the store compares (lease and claim expiry, retention) are the database's clock, so hosts
-- whose clocks disagree still agree on who holds a lease.

-- Chain links (a register's Uid) and tokens: one value per key.
CREATE TABLE {{schema}}.{{values}} (
  key text PRIMARY KEY,
  value text NOT NULL
);

-- Leases: one row per name; `fence` grows by one each time the lease is taken.
CREATE TABLE {{schema}}.{{leases}} (
  name text PRIMARY KEY,
  holder text NOT NULL,
  fence bigint NOT NULL,
  expires_at timestamptz NOT NULL
);

-- The journal. `intent` and `settlement` are json (not jsonb): json keeps the text as written, so
-- an entry reads back exactly, key order included; jsonb would reorder its keys.
CREATE TABLE {{schema}}.{{journal}} (
  key text PRIMARY KEY,
  scope text,
  state text NOT NULL CHECK (state IN ('pending', 'applied', 'not-applied', 'refused', 'disputed')),
  -- The intent's own startedAt (epoch ms): what "oldest first" orders by.
  started_at bigint NOT NULL,
  intent json NOT NULL,
  settlement json,
  -- When the entry was settled for good (the database's clock): retention counts from it. Null
  -- while it is pending or disputed, so those are never dropped.
  settled_at timestamptz
);
-- Unresolved intents are few (what is under way, and what waits for a person): recovery lists them
-- oldest first, by prefix and by scope, from these partial indexes without reading settled entries.
CREATE INDEX {{journal}}_unresolved ON {{schema}}.{{journal}} (started_at) WHERE state IN ('pending', 'disputed');
CREATE INDEX {{journal}}_unresolved_scope ON {{schema}}.{{journal}} (scope, started_at) WHERE state IN ('pending', 'disputed');
CREATE INDEX {{journal}}_settled ON {{schema}}.{{journal}} (settled_at) WHERE settled_at IS NOT NULL;

-- Webhook deliveries: claimed until `claimed_until`, then done. Retention counts from completion
-- (or, for a claim nobody completed, from its end).
CREATE TABLE {{schema}}.{{callbacks}} (
  key text PRIMARY KEY,
  done boolean NOT NULL DEFAULT false,
  claimed_until timestamptz NOT NULL,
  completed_at timestamptz
);
CREATE INDEX {{callbacks}}_age ON {{schema}}.{{callbacks}} ((coalesce(completed_at, claimed_until)));

-- Each order's last known callback status, moved by compare-and-set.
CREATE TABLE {{schema}}.{{orders}} (
  order_id text PRIMARY KEY,
  status integer NOT NULL
);
