// The callback store's conformance checks (testing.ts: callbackStoreConformance): each webhook event
// processed once across deliveries and processes, and each order's status moved by compare-and-set.
import type { CallbackStore } from "../stores.js";
import { type Checks, check, sleep, unique } from "./conformance.js";

type TwoHandles = () => Promise<[CallbackStore, CallbackStore]>;

/** Claims: one delivery processes an event, a live one keeps it, a dead one's is taken over. */
export const claimChecks = (two: TwoHandles): Checks => ({
  "callbacks: a claimed event is processing for every other delivery, done once completed": async () => {
    const [a, b] = await two();
    const key = unique("event");
    check((await a.claim(key, 5_000, "delivery-1")) === "new", "an event never seen must be claimed as new");
    check((await b.claim(key, 5_000, "delivery-2")) === "processing", "an event claimed by another delivery must answer processing");
    await a.complete(key);
    check((await b.claim(key, 5_000, "delivery-3")) === "done", "a completed event must answer done, from another handle too");
    check((await a.claim(key, 5_000, "delivery-4")) === "done", "a completed event stays done");
  },

  "callbacks: a released claim, or one whose time ran out, is claimed again": async () => {
    const [a, b] = await two();
    const released = unique("event-released");
    await a.claim(released, 5_000, "delivery-1");
    await a.release(released, "delivery-1");
    check((await b.claim(released, 5_000, "delivery-2")) === "new", "a released event must be claimable again");
    const lapsed = unique("event-lapsed");
    check((await a.claim(lapsed, 150, "delivery-1")) === "new", "an event never seen must be claimed as new");
    await sleep(250);
    check((await b.claim(lapsed, 5_000, "delivery-2")) === "new", "a claim whose time ran out must be taken over (its holder died)");
  },

  // A delivery whose processing outlived its claim fails, and gives its claim back: by then the
  // event may be another delivery's, which must keep it (or a third would process the event too).
  "callbacks: a release frees only the claim taken under its token; a done event stays done": async () => {
    const [a, b] = await two();
    const key = unique("event-token");
    check((await a.claim(key, 150, "delivery-1")) === "new", "an event never seen must be claimed as new");
    await sleep(250);
    check((await b.claim(key, 5_000, "delivery-2")) === "new", "a claim whose time ran out must be taken over");
    await a.release(key, "delivery-1");
    check((await a.claim(key, 5_000, "delivery-3")) === "processing", "a release under another token must leave the claim to its delivery");
    await b.release(key, "delivery-2");
    check((await a.claim(key, 5_000, "delivery-3")) === "new", "a release under the claim's own token must free it");
    await b.complete(key);
    await a.release(key, "delivery-3");
    check((await b.claim(key, 5_000, "delivery-4")) === "done", "a release must never undo a completion");
  },

  // A live delivery renews its claim while it processes: it never runs out under it.
  "callbacks: a claim renewed by its delivery is not taken over; another token, a done or a lost claim renews nothing": async () => {
    const [a, b] = await two();
    const key = unique("event-renewed");
    check((await a.claim(key, 300, "delivery-1")) === "new", "an event never seen must be claimed as new");
    await sleep(150);
    check((await a.renew(key, 5_000, "delivery-1")) === true, "a claim must be renewable by the delivery that holds it");
    await sleep(250);
    check((await b.claim(key, 5_000, "delivery-2")) === "processing", "a renewed claim must not be taken over after its first lease ran out");
    check((await b.renew(key, 5_000, "delivery-2")) === false, "a claim must not be renewable under another delivery's token");
    await a.complete(key);
    check((await a.renew(key, 5_000, "delivery-1")) === false, "a done event must not be renewable");
    check((await b.claim(key, 5_000, "delivery-3")) === "done", "a renewal attempt must never undo a completion");
    const lost = unique("event-lost");
    check((await a.claim(lost, 150, "delivery-1")) === "new", "an event never seen must be claimed as new");
    await sleep(250);
    check((await b.claim(lost, 5_000, "delivery-2")) === "new", "a claim whose time ran out must be taken over");
    check((await a.renew(lost, 5_000, "delivery-1")) === false, "a claim taken over must not be renewable by its first delivery");
    check((await a.claim(lost, 5_000, "delivery-3")) === "processing", "a failed renewal must leave the claim to the delivery that holds it");
  },

  "callbacks: of ten deliveries of one event racing, exactly one claims it": async () => {
    const [a, b] = await two();
    const key = unique("event-race");
    const got = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).claim(key, 5_000, `delivery-${i}`)));
    check(got.filter((x) => x === "new").length === 1, `exactly one delivery must claim the event, got ${got.filter((x) => x === "new").length}`);
  },
});

/** Order statuses: moved only from the status expected. */
export const orderStatusChecks = (two: TwoHandles): Checks => ({
  "callbacks: an order's status moves only from the status expected; of ten racing moves one wins": async () => {
    const [a, b] = await two();
    const order = unique("order");
    check((await a.orderStatus(order)) === undefined, "an order never recorded has no status");
    check((await a.recordOrderStatus(order, 1, undefined)) === true, "the first status of an order must be recorded");
    check((await b.recordOrderStatus(order, 2, undefined)) === false, "a move that expects no status must fail once one is recorded");
    check((await b.orderStatus(order)) === 1, "a status recorded must be read back by another handle");
    const moves = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).recordOrderStatus(order, 10 + i, 1)));
    check(moves.filter(Boolean).length === 1, `exactly one move from the expected status must win, got ${moves.filter(Boolean).length}`);
    const winner = 10 + moves.indexOf(true);
    check((await a.orderStatus(order)) === winner, "the status kept must be the winning move's");
  },
});
