// @paysys/core/testing: the conformance kit of the store contracts. Any store — the SDK's memory and
// file stores, @paysys/store-redis, @paysys/store-postgres, one over your own database — runs the
// same checks, with any test runner:
//
//   for (const check of storeConformance({ fresh: () => new MyStore(pool) })) it(check.name, check.run);
//
// Each check is self-contained (its own keys and lease names), throws an Error saying what the store
// did wrong, and never assumes more than the contracts in `stores.ts` promise.

import { claimChecks, orderStatusChecks } from "./internal/callback-conformance.js";
import { type Checks, check, holder, intent, refusesStaleFence, same, settled, sleep, type TwoHandles, unique } from "./internal/conformance.js";
import { type CallbackStore, type Fence, intentIdOf, type JournalEntry, type Settlement, type Store } from "./stores.js";

export interface StoreFactory {
  /** A store over storage no other check uses (or shares safely: every check uses keys of its own). */
  fresh(): Store | Promise<Store>;
  /**
   * Another handle on the same storage as `store`, as another process would open it (a second
   * FileStore on the same path, a second client on the same database). Without it, the checks
   * that race two handles race two calls on one.
   */
  again?(store: Store): Store | Promise<Store>;
}

/** One check of the kit: a name to report, and a run that throws when the store breaks the contract. */
export interface ConformanceCheck {
  name: string;
  run(): Promise<void>;
}

/** The chain's links. */
const chainChecks = (two: TwoHandles): Checks => ({
  "chain: a link set is read back, from another handle too; an unknown key has none": async () => {
    const [a, b] = await two();
    const key = unique("chain");
    check((await a.get(key)) == null, "an unknown key must read as null or undefined");
    await a.set(key, "uid-1");
    check((await b.get(key)) === "uid-1", "a link set must be read back by another handle");
    await b.set(key, "uid-2");
    check((await a.get(key)) === "uid-2", "the last link set wins");
  },
});

/** Leases: one live holder, expiry, renewal, release, fencing. */
const leaseChecks = (two: TwoHandles): Checks => ({
  "lease: one live holder at a time; the same holder takes it back at once, with a higher fence": async () => {
    const [a, b] = await two();
    const name = unique("lease");
    const first = await a.acquireLease(name, holder("till-1"), 5_000);
    check(first && first.holder === "till-1" && first.expiresAt > Date.now(), "a free lease must be taken");
    check((await b.acquireLease(name, holder("till-2"), 5_000)) === undefined, "a lease held by a live holder must not be taken by another");
    const again = await b.acquireLease(name, holder("till-1"), 5_000);
    check(again && again.value > first.value, "the same holder (after a restart) takes its lease back at once, with a higher fence");
  },

  "lease: an expired lease is taken by another holder, and the old fence is refused everywhere": async () => {
    const [a, b] = await two();
    const name = unique("lease-expiry");
    // Long enough for the fenced write below on a loaded machine (150 ms was not, beside a CI run).
    const old = await a.acquireLease(name, holder("till-1"), 800);
    check(old, "a free lease must be taken");
    await a.set(name, "link-old", old);
    await sleep(1_000);
    const next = await b.acquireLease(name, holder("till-2"), 5_000);
    check(next && next.value > old.value, "an expired lease must be taken by another holder, with a higher fence");
    check((await a.renewLease(old, 5_000)) === undefined, "a lost lease must not be renewed");
    await refusesStaleFence(() => a.set(name, "link-stale", old), "chain set");
    check((await b.get(name)) === "link-old", "a refused write must change nothing");
    await refusesStaleFence(() => a.beginIntent(intent(unique("k"), name), old), "journal begin");
    await b.set(name, "link-new", next);
    check((await a.get(name)) === "link-new", "the new holder's fenced write must be kept");
  },

  // A client that gave up on a write under its lease (no answer in time) takes the lease back before
  // anything else: that write, arriving late, must then be refused, or the register's next request
  // could be sent before an intent that lands after it.
  "lease: after the same holder takes it back, every write under its old fence is refused": async () => {
    const [a, b] = await two();
    const name = unique("lease-retake");
    const old = await a.acquireLease(name, holder("till-1"), 5_000);
    check(old, "a free lease must be taken");
    const again = await b.acquireLease(name, holder("till-1"), 5_000);
    check(again && again.value > old.value, "the same holder takes its lease back with a higher fence");
    const key = unique("k");
    await refusesStaleFence(() => a.beginIntent(intent(key, name), old), "journal begin");
    await refusesStaleFence(() => a.set(name, "link-stale", old), "chain set");
    if (a.settleThenBegin) {
      const link = { key: name, value: "link-stale" };
      await refusesStaleFence(() => a.settleThenBegin!({ key: unique("k"), settlement: settled("applied"), link }, intent(key, name), old), "settle then begin");
    }
    check((await b.getIntent(key)) === undefined, "a refused begin must write nothing");
    check((await b.renewLease(old, 5_000)) === undefined, "the old fence must not be renewed");
  },

  "lease: renewal extends it; release lets another holder take it at once": async () => {
    const [a, b] = await two();
    const name = unique("lease-renew");
    const lease = await a.acquireLease(name, holder("till-1"), 300);
    check(lease, "a free lease must be taken");
    const renewed = await a.renewLease(lease, 5_000);
    check(renewed && renewed.value === lease.value && renewed.expiresAt > lease.expiresAt, "a held lease must be renewed under the same fence, later");
    await sleep(400);
    check((await b.acquireLease(name, holder("till-2"), 5_000)) === undefined, "a renewed lease must outlast its first expiry");
    await a.releaseLease(renewed);
    const taken = await b.acquireLease(name, holder("till-2"), 5_000);
    check(taken && taken.value > renewed.value, "a released lease must be taken at once, with a higher fence");
    await a.releaseLease(renewed); // the old fence: nothing happens
    check((await a.acquireLease(name, holder("till-1"), 5_000)) === undefined, "releasing with an old fence must not free the new holder's lease");
  },

  "lease: of ten holders racing for a free lease, exactly one gets it": async () => {
    const [a, b] = await two();
    const name = unique("lease-race");
    const got = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).acquireLease(name, holder(`racer-${i}`), 5_000)));
    check(got.filter(Boolean).length === 1, `exactly one holder must win, got ${got.filter(Boolean).length}`);
  },
});

/** Settlements: which intent one settles, and what a store may drop. */
const settlementChecks = (two: TwoHandles): Checks => ({
  "journal: a settlement naming its intent (intentId) settles it while unresolved, never one begun since; then only applied replaces it": async () => {
    const [a, b] = await two();
    const of = (e: JournalEntry, state: Settlement["state"], answer?: unknown) => ({ ...settled(state, answer), intentId: intentIdOf(e) });
    const first = { ...intent(`${unique("journal-named")}/k`), id: "intent-1" };
    await a.beginIntent(first);
    await a.settleIntent(first.key, of(first, "not-applied"));
    const second = { ...first, id: "intent-2", holder: holder("another") }; // the same start (clocks differ): told apart by id
    check((await b.beginIntent(second)) === undefined, "a not-applied entry must be replaced by a new begin");
    for (const state of ["not-applied", "applied"] as const) {
      await a.settleIntent(first.key, of(first, state)); // a slow resolver of the first intent
      const now = await b.getIntent(first.key);
      check(now?.state === "pending" && now.id === second.id, `a settlement (${state}) of an earlier intent must leave the one begun since as it is`);
    }
    const outcomes = async (id: string, states: Settlement["state"][]) => {
      const e = { ...intent(`${first.key}-${id}`), id };
      await a.beginIntent(e);
      for (const [i, state] of states.entries()) await (i % 2 ? a : b).settleIntent(e.key, of(e, state, { n: i }));
      return b.getIntent(e.key).then((done) => `${done?.state} ${JSON.stringify(done?.settlement?.answer)}`);
    };
    check((await outcomes("a", ["not-applied", "applied"])) === 'applied {"n":1}', "applied must replace a not-applied outcome of the same intent");
    check((await outcomes("b", ["refused", "applied"])) === 'applied {"n":1}', "applied must replace a refused outcome of the same intent");
    check((await outcomes("c", ["applied", "not-applied", "applied"])) === 'applied {"n":0}', "an applied outcome must be kept, its answer too");
    check((await outcomes("d", ["disputed", "not-applied"])) === 'not-applied {"n":1}', "a person's settlement of a dispute must be written");
  },

  "journal: an applied settlement whose key nobody was shown (forgettable) leaves the key applied or gone, never pending; listed before, applied": async () => {
    const [a, b] = await two();
    const prefix = unique("journal-forgettable");
    const entry = intent(`${prefix}/made`, "scope-1");
    await a.beginIntent(entry);
    await a.settleIntent(entry.key, { ...settled("applied", { IdDocument: 8 }), forgettable: true });
    const after = await b.getIntent(entry.key);
    check(after === undefined || after.state === "applied", `a forgettable applied settlement may drop the entry or keep it applied, got ${after?.state}`);
    check((await b.pendingIntents(`${prefix}/`)).length === 0, "a forgettable settled intent is not pending");
    // Listed while pending, its key was shown (journal.pending, recover): whoever asks about it later must find it applied.
    const shown = intent(`${prefix}/shown`, "scope-1");
    await a.beginIntent(shown);
    check(
      (await b.pendingIntents(`${prefix}/`)).some((e) => e.key === shown.key),
      "a pending intent must be listed",
    );
    await a.settleIntent(shown.key, { ...settled("applied", { IdDocument: 9 }), forgettable: true });
    const kept = await b.getIntent(shown.key);
    check(kept?.state === "applied" && same(kept.settlement?.answer, { IdDocument: 9 }), "an intent listed while pending must keep its applied entry, forgettable or not");
  },
});

/** The journal: intents written once, settled, listed while unresolved, fenced. */
const journalChecks = (two: TwoHandles): Checks => ({
  "journal: an intent is written once; a second begin answers it; settling moves it out of the pending list": async () => {
    const [a, b] = await two();
    const prefix = unique("journal");
    const entry = intent(`${prefix}/r-1`, "scope-1");
    check((await a.beginIntent(entry)) === undefined, "a new key's intent must be written (begin answers undefined)");
    const existing = await b.beginIntent({ ...entry, hash: "other" });
    check(existing && same(existing, entry), "a second begin must answer the entry there, unchanged");
    check(same(await b.getIntent(entry.key), entry), "an intent must be read back exactly");
    const pending = await b.pendingIntents(`${prefix}/`);
    check(pending.length === 1 && pending[0]!.key === entry.key, "a pending intent must be listed under its prefix");
    check((await b.pendingIntents(`${prefix}/`, "scope-2")).length === 0, "pending intents are listed by scope");
    await a.settleIntent(entry.key, settled("applied", { IdDocument: 7, nested: { list: [1, "two"] } }));
    const done = await b.getIntent(entry.key);
    check(done?.state === "applied" && same(done.settlement?.answer, { IdDocument: 7, nested: { list: [1, "two"] } }), "a settled intent keeps its answer exactly");
    check((await a.pendingIntents(`${prefix}/`)).length === 0, "a settled intent is not pending");
    check((await a.beginIntent(entry))?.state === "applied", "a settled key is never begun again");
  },

  "journal: a not-applied key may be begun again; a disputed one stays unresolved": async () => {
    const [a, b] = await two();
    const prefix = unique("journal-states");
    const retry = intent(`${prefix}/again`);
    await a.beginIntent(retry);
    await a.settleIntent(retry.key, settled("not-applied"));
    check((await b.beginIntent({ ...retry, startedAt: retry.startedAt + 1 })) === undefined, "a not-applied entry must be replaced by a new begin");
    check((await b.getIntent(retry.key))?.state === "pending", "the replacing intent is pending");
    const disputed = intent(`${prefix}/disputed`);
    await a.beginIntent(disputed);
    await a.settleIntent(disputed.key, settled("disputed"));
    const unresolved = await b.pendingIntents(`${prefix}/`);
    check(
      unresolved.some((e) => e.key === disputed.key && e.state === "disputed"),
      "a disputed intent must stay among the unresolved",
    );
    check((await b.beginIntent(disputed))?.state === "disputed", "a disputed key is never begun again");
  },

  "journal: of ten begins of one key racing, exactly one writes": async () => {
    const [a, b] = await two();
    const entry = intent(`${unique("journal-race")}/k`);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).beginIntent({ ...entry, holder: holder(`racer-${i}`) })));
    check(answers.filter((x) => x === undefined).length === 1, `exactly one begin must write, got ${answers.filter((x) => x === undefined).length}`);
  },
});

/** The journal under a register's lease: fenced writes, and the outcome kept with its chain link. */
const fencedJournalChecks = (two: TwoHandles): Checks => ({
  "journal: writes under a fence that no longer holds are refused": async () => {
    const [a, b] = await two();
    const name = unique("journal-fence");
    const old = await a.acquireLease(name, holder("till-1"), 100);
    check(old, "a free lease must be taken");
    const entry = intent(`${name}/r`, name);
    check((await a.beginIntent(entry, old)) === undefined, "a begin under a live fence must be written");
    await sleep(200);
    const next = await b.acquireLease(name, holder("till-2"), 5_000);
    check(next, "an expired lease must be taken");
    await refusesStaleFence(() => a.settleIntent(entry.key, settled("applied"), old), "journal settle");
    check((await b.getIntent(entry.key))?.state === "pending", "a refused settle must change nothing");
    await b.settleIntent(entry.key, settled("not-applied"), next as Fence);
    check((await a.getIntent(entry.key))?.state === "not-applied", "the new holder's fenced settle must be kept");
  },

  "journal: settleIntentWithLink (where a store has it) keeps the link and the outcome together, both fenced": async () => {
    const [a, b] = await two();
    if (!a.settleIntentWithLink) return;
    const name = unique("journal-link");
    const old = await a.acquireLease(name, holder("till-1"), 150);
    check(old, "a free lease must be taken");
    const entry = intent(`${name}/r-1`, name);
    await a.beginIntent(entry, old);
    await a.settleIntentWithLink(entry.key, settled("applied", { Uid: "link-2" }), { key: name, value: "link-2" }, old);
    const done = await b.getIntent(entry.key);
    check(done?.state === "applied" && same(done.settlement?.answer, { Uid: "link-2" }), "the outcome must be settled with its answer");
    check((await b.get(name)) === "link-2", "the link must be kept");
    check((await b.pendingIntents(`${name}/`)).length === 0, "a settled intent is not pending");
    const later = intent(`${name}/r-2`, name);
    await a.beginIntent(later, old);
    await sleep(250);
    const next = await b.acquireLease(name, holder("till-2"), 5_000);
    check(next, "an expired lease must be taken");
    await refusesStaleFence(() => a.settleIntentWithLink!(later.key, settled("applied"), { key: name, value: "link-stale" }, old), "settle with link");
    check((await b.get(name)) === "link-2", "a refused write must not keep the link");
    check((await b.getIntent(later.key))?.state === "pending", "a refused write must not settle the intent");
    const older = { ...settled("applied"), intentId: "an-earlier-intent" };
    await b.settleIntentWithLink!(later.key, older, { key: name, value: "link-2b" }, next as Fence);
    check((await a.get(name)) === "link-2b" && (await a.getIntent(later.key))?.state === "pending", "an earlier intent's settlement keeps the link, not the outcome");
    const unknown = unique("journal-link-none");
    await b.settleIntentWithLink!(`${unknown}/never-begun`, settled("applied"), { key: name, value: "link-3" }, next as Fence);
    check((await a.get(name)) === "link-3", "the link is kept even when the key has no entry");
    check((await a.getIntent(`${unknown}/never-begun`)) === undefined, "settling a key with no entry writes no entry");
  },
});

/** The outcome carried by the register's next intent (an optional method). */
const carriedJournalChecks = (two: TwoHandles): Checks => ({
  "journal: settleThenBegin (where a store has it) settles with the link, then begins, in one fenced write": async () => {
    const [a, b] = await two();
    if (!a.settleThenBegin) return;
    const name = unique("journal-carry");
    const old = await a.acquireLease(name, holder("till-1"), 200);
    check(old, "a free lease must be taken");
    const [first, second, third] = [1, 2, 3].map((n) => intent(`${name}/r-${n}`, name));
    await a.beginIntent(first!, old);
    const written = await a.settleThenBegin({ key: first!.key, settlement: settled("applied", { Uid: "link-2" }), link: { key: name, value: "link-2" } }, second!, old);
    check(written === undefined, "the next intent must be written when its key has no entry");
    const done = await b.getIntent(first!.key);
    check(done?.state === "applied" && same(done.settlement?.answer, { Uid: "link-2" }), "the carried outcome must be settled with its answer");
    check((await b.get(name)) === "link-2", "the carried link must be kept");
    const pendingKeys = (await b.pendingIntents(`${name}/`)).map((e) => e.key);
    check(same(pendingKeys, [second!.key]), "the next intent must be pending, the settled one not");
    const again = await a.settleThenBegin({ key: second!.key, settlement: settled("applied", { Uid: "link-3" }), link: { key: name, value: "link-3" } }, second!, old);
    check(again?.state === "applied", `a begin of the key just settled must answer its settled entry, got ${again?.state}`);
    await a.beginIntent(third!, old);
    const raced = await a.settleThenBegin({ key: second!.key, settlement: settled("applied", { Uid: "link-3" }), link: { key: name, value: "link-3" } }, third!, old);
    check(raced?.state === "pending" && raced.key === third!.key, "a begin of a key with a pending entry must answer that entry");
    await sleep(300);
    const next = await b.acquireLease(name, holder("till-2"), 5_000);
    check(next, "an expired lease must be taken");
    const fourth = intent(`${name}/r-4`, name);
    await refusesStaleFence(
      () => a.settleThenBegin!({ key: third!.key, settlement: settled("applied"), link: { key: name, value: "link-stale" } }, fourth, old),
      "settle then begin",
    );
    check((await b.get(name)) === "link-3", "a refused write must not keep the link");
    check((await b.getIntent(third!.key))?.state === "pending", "a refused write must not settle the intent");
    check((await b.getIntent(fourth.key)) === undefined, "a refused write must not begin the next intent");
    const older = { ...settled("applied"), intentId: "an-earlier-intent" };
    check(
      (await b.settleThenBegin!({ key: third!.key, settlement: older, link: { key: name, value: "link-4" } }, fourth, next as Fence)) === undefined,
      "the next intent must be written",
    );
    check((await a.getIntent(third!.key))?.state === "pending", "an earlier intent's settlement must leave the intent there as it is");
  },
});

/** The token store's atomic update. */
const tokenChecks = (two: TwoHandles, fresh: () => Promise<Store>): Checks => ({
  "tokens: update is atomic: 40 increments racing on two handles make 40": async () => {
    const [a, b] = await two();
    const key = unique("token");
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? a : b).update(key, async (current) => {
          const n = Number(current ?? 0);
          await sleep(Math.random() * 3); // a decision that takes time, as an authorization does
          return String(n + 1);
        }),
      ),
    );
    check((await a.get(key)) === "40", `40 atomic updates must make 40, got ${await a.get(key)}`);
  },

  "tokens: a decision of undefined leaves the value; update answers the value stored": async () => {
    const store = await fresh();
    const key = unique("token-keep");
    check((await store.update(key, () => "t1")) === "t1", "update must answer the value it stored");
    check((await store.update(key, (current) => (current === "t1" ? undefined : "wrong"))) === "t1", "undefined must leave the value, and update answer it");
    check((await store.get(key)) === "t1", "the value must be kept");
  },
});

/** The checks every store must pass. */
export function storeConformance(factory: StoreFactory): ConformanceCheck[] {
  const fresh = async () => factory.fresh();
  const two: TwoHandles = async () => {
    const a = await factory.fresh();
    return [a, factory.again ? await factory.again(a) : a];
  };
  const checks = {
    ...chainChecks(two),
    ...leaseChecks(two),
    ...journalChecks(two),
    ...settlementChecks(two),
    ...fencedJournalChecks(two),
    ...carriedJournalChecks(two),
    ...tokenChecks(two, fresh),
  };
  return Object.entries(checks).map(([name, run]) => ({ name, run }));
}

export interface CallbackStoreFactory {
  /** A callback store over storage no other check uses (or shares safely: every check uses keys of its own). */
  fresh(): CallbackStore | Promise<CallbackStore>;
  /** Another handle on the same storage, as another process would open it. */
  again?(store: CallbackStore): CallbackStore | Promise<CallbackStore>;
}

/** The checks every callback store must pass (each webhook event processed once; each order's status moved by compare-and-set). */
export function callbackStoreConformance(factory: CallbackStoreFactory): ConformanceCheck[] {
  const two = async (): Promise<[CallbackStore, CallbackStore]> => {
    const a = await factory.fresh();
    return [a, factory.again ? await factory.again(a) : a];
  };
  const checks = { ...claimChecks(two), ...orderStatusChecks(two) };
  return Object.entries(checks).map(([name, run]) => ({ name, run }));
}
