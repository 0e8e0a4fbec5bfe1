// The per-key chain: a value an answer returns in a header and the next request on the same key
// must present (the cash register's `Uid`). Calls on one key run one at a time, in order; calls on
// different keys run in parallel. The current link of each key lives in a store, so a restarted
// process continues its chains.
//
// What the chain does when something goes wrong, and why:
// - A request refused with 400 was not processed. If the service's current link differs from the
//   one presented (another process moved the chain), the chain takes the current one and the call
//   is sent once more. If it is the same, the 400 had another cause and stands.
// - A call whose answer was lost may or may not have moved the chain: the key is marked unsure and
//   the next call on it reads the current link first. The lost call itself is never re-sent here.
//   That first read, before anything else is sent on the key, also tells whether the lost call
//   took effect (the chain moved past the link it presented), and the answer is kept for it: the
//   calls queued behind it move the chain too, so asking later would tell nothing.
// - A call the service took whose new link the store cannot keep still answers with its result;
//   the key is marked unsure the same way.
import { KeyedQueue } from "../queue.js";
import type { ChainStore } from "../stores.js";
import { MemoryStore } from "../stores.js";
import type { AttemptStep } from "./steps.js";

export interface HeaderChainOptions {
  /** The header that carries the link both ways. */
  header: string;
  /** Reads the service's current link of a key. */
  current: (key: unknown) => Promise<string>;
  store?: ChainStore;
}

export interface ChainRun {
  /** The step to join the call's attempts. */
  step: AttemptStep;
  /** The link the call presented last (undefined: none, so the call cannot have moved the chain). */
  readonly presented: string | undefined;
  /**
   * After the call failed having presented a link: whether it took effect. Known at once when the
   * next link arrived; otherwise read in the key's turn, before anything else is sent on the key,
   * and kept (unless another program uses the same key meanwhile).
   */
  wasApplied(): Promise<boolean>;
}

/** A call on a key whose answer was lost, and, once the key's current link was read, whether it took effect. */
interface Question {
  presented: string;
  applied?: boolean;
}

export class HeaderChain {
  readonly #options: HeaderChainOptions;
  readonly #store: ChainStore;
  /** Calls on one key, one at a time. */
  readonly #queue = new KeyedQueue();
  /** Keys whose stored link may be outdated because an answer was lost. */
  readonly #unsure = new Set<string>();
  /** Per key, the lost call whose outcome the next read of the current link tells. */
  readonly #open = new Map<string, Question>();
  readonly #headerNames: readonly string[];

  constructor(options: HeaderChainOptions) {
    this.#options = options;
    this.#store = options.store ?? new MemoryStore();
    this.#headerNames = [options.header];
  }

  /** The header the chain's links travel in. */
  get header(): string {
    return this.#options.header;
  }

  /** The stored link of a key, if any (what the next call will present). */
  async link(key: unknown): Promise<string | undefined> {
    return (await this.#store.get(String(key))) ?? undefined;
  }

  /** The service's current link of a key, read now and stored. */
  async refresh(key: unknown): Promise<string> {
    const link = await this.#options.current(key);
    await this.#store.set(String(key), link);
    this.#unsure.delete(String(key));
    return link;
  }

  /** Runs `call` with exclusive use of `key`'s chain. `presents`: the call must present the current link. */
  run<T>(key: unknown, presents: boolean, call: (run: ChainRun) => Promise<T>): Promise<T> {
    const id = String(key);
    return this.#queue.run(id, () => this.#exclusive(key, id, presents, call));
  }

  /** Reads the key's current link and answers the key's open question with it. Only in the key's turn, before anything else is sent on it. */
  async #settle(key: unknown, id: string): Promise<string> {
    const link = await this.refresh(key);
    const question = this.#open.get(id);
    if (question) question.applied = link !== question.presented;
    this.#open.delete(id);
    return link;
  }

  async #exclusive<T>(key: unknown, id: string, presents: boolean, call: (run: ChainRun) => Promise<T>): Promise<T> {
    const { header } = this.#options;
    let link = this.#unsure.has(id) ? undefined : ((await this.#store.get(id)) ?? undefined);
    // After a lost call, the current link is read before anything else is sent, whatever this call presents.
    if (this.#open.has(id)) link = await this.#settle(key, id);
    else if (presents && link === undefined) link = await this.refresh(key);
    let presented: string | undefined;
    let renewed = false;
    let recovered = false;
    const step: AttemptStep = {
      headerNames: this.#headerNames,
      present: (headers) => {
        if (presents && link !== undefined) headers.set(header, link);
        presented = presents ? link : undefined;
        return presented;
      },
      answered: async (response, shown) => {
        const next = response.headers.get(header);
        if (next) {
          link = next;
          renewed = true;
          try {
            await this.#store.set(id, next);
            this.#unsure.delete(id);
          } catch {
            // The service took the call (it moved the chain); only keeping the new link failed. The
            // call's answer stands: an error here would invite sending it again. The next call on
            // this key reads the current link from the service first, and if the store still
            // cannot keep it, fails then, before anything is sent.
            this.#unsure.add(id);
          }
          return false;
        }
        if (!presents || response.status !== 400 || recovered) return false;
        recovered = true;
        const current = await this.refresh(key);
        if (current === shown) return false;
        link = current;
        return true;
      },
    };
    let question: Question | undefined;
    const wasApplied = async (): Promise<boolean> => {
      if (renewed) return true; // the service answered with the next link
      if (!question) throw new Error(`no lost call on ${id} to ask about`);
      if (question.applied === undefined) {
        const asked = question;
        await this.#queue.run(id, async () => {
          if (asked.applied === undefined) await this.#settle(key, id);
        });
      }
      return question.applied!;
    };
    try {
      const result = await call({
        step,
        get presented() {
          return presented;
        },
        wasApplied,
      });
      return result;
    } catch (e) {
      // No new link arrived and the call may have reached the service: the next call reads the
      // current link first, and that read answers this call's question.
      if (!renewed && presented !== undefined && !isRefusal(e)) {
        this.#unsure.add(id);
        question = { presented };
        this.#open.set(id, question);
      }
      throw e;
    }
  }
}

/** An answer that says the request was refused before processing (a 4xx other than a timeout). */
function isRefusal(e: unknown): boolean {
  const status = (e as { status?: unknown })?.status;
  return typeof status === "number" && status >= 400 && status < 500 && status !== 408;
}
