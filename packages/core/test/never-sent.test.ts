// An intent whose write failed is settled "not applied" in the store once the store answers again
// (never-sent.ts): only that intent, only while it is unresolved, and the tries end once the store
// shows it settled or replaced. The integration tests show it on Redis and PostgreSQL.
import { describe, expect, it } from "vitest";
import { type JournalEntry, MemoryStore } from "../src/index.js";
import { forgetNeverSent, noteNeverSent, settleWhenStoreAnswers, wasNeverSent } from "../src/internal/never-sent.js";

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
let n = 0;
const intentOf = (key: string): JournalEntry => ({
  key: `${key}-${n++}`,
  id: `intent-${n}`,
  operation: "requests.create",
  hash: "h",
  holder: { id: "till" },
  startedAt: Date.now(),
  sendBy: Date.now() + 1000,
  state: "pending",
});

/** A memory store that refuses every call while `down`, and counts the calls it answered. */
function flakyStore() {
  const store = new MemoryStore();
  const state = { down: true, calls: 0 };
  const proxy = new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (prop === "settleIntent" || prop === "getIntent") {
          if (state.down) return Promise.reject(new Error("connection refused"));
          state.calls++;
        }
        return value.apply(target, args);
      };
    },
  });
  return { store: proxy, state };
}

describe("an intent whose write failed", () => {
  it("is settled not applied once the store answers, after the write landed late", async () => {
    const { store, state } = flakyStore();
    const intent = intentOf("late");
    noteNeverSent(intent);
    settleWhenStoreAnswers(store, intent, [10, 10, 10, 10]);
    await pause(25); // a try or two while the store is down
    await store.beginIntent(intent); // the write lands
    state.down = false;
    await pause(60);
    expect((await store.getIntent(intent.key))?.state).toBe("not-applied");
    expect(wasNeverSent(intent)).toBe(false); // done: no more tries
  });

  it("leaves a disputed intent to a person", async () => {
    const { store, state } = flakyStore();
    state.down = false;
    const intent = intentOf("disputed");
    noteNeverSent(intent);
    await store.beginIntent(intent);
    await store.settleIntent(intent.key, { state: "disputed", settledAt: Date.now(), intentId: intent.id });
    settleWhenStoreAnswers(store, intent, [5, 5]);
    await pause(30);
    expect((await store.getIntent(intent.key))?.state).toBe("disputed");
  });

  it("leaves another intent of the key as it is, and stops", async () => {
    const { store, state } = flakyStore();
    const intent = intentOf("replaced");
    noteNeverSent(intent);
    state.down = false;
    const other = { ...intent, id: "another" };
    await store.beginIntent(other);
    settleWhenStoreAnswers(store, intent, [5, 5, 5]);
    await pause(40);
    expect((await store.getIntent(intent.key))?.state).toBe("pending");
    expect(state.calls).toBe(1 + 1); // one try (a read), then the read above
  });

  it("tries as often as it is told while the write has not landed, then gives up", async () => {
    const { store, state } = flakyStore();
    state.down = false;
    const intent = intentOf("absent");
    noteNeverSent(intent);
    settleWhenStoreAnswers(store, intent, [5, 5, 5]);
    await pause(60);
    expect(state.calls).toBe(3); // three tries, each reading nothing
    expect(await store.getIntent(intent.key)).toBeUndefined(); // nothing written for an intent that never landed
    forgetNeverSent(intent);
  });

  it("is not tried once the journal has settled it itself", async () => {
    const { store, state } = flakyStore();
    state.down = false;
    const intent = intentOf("met");
    noteNeverSent(intent);
    settleWhenStoreAnswers(store, intent, [20]);
    forgetNeverSent(intent);
    await pause(40);
    expect(state.calls).toBe(0);
  });
});
