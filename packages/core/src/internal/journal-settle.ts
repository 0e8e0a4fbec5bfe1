// A person's word on a pending intent (`journal.settle`): what they learnt from the service about a
// call whose outcome the SDK cannot learn. Apart from journal.ts, which sends; this only writes.
import { RequestValidationError } from "../errors.js";
import type { ChainTurn } from "./chain-turn.js";
import type { JournalOptions } from "./journal-options.js";
import { settleRefused } from "./landing.js";
import { ended } from "./outcome.js";
import { storeCall } from "./store-call.js";

/**
 * Settles the intent under `full` (its name in the store) as applied or not. Read again in the
 * register's turn, after the turn has written its waiting outcome: a call of this client may have
 * settled it meanwhile. Refused while a call of this process sends or checks the key (`inflight`).
 */
export async function settleByHand(o: JournalOptions & { landingMs: number }, inflight: ReadonlySet<string>, full: string, applied: boolean): Promise<void> {
  const write = async (turn?: ChainTurn) => {
    await turn?.flush();
    const entry = await storeCall("read the journal", () => o.store.getIntent(full));
    const refused = inflight.has(full)
      ? "is being sent or checked by a call of this process: settle it once that call has ended"
      : settleRefused(entry, applied, o.holder, o.landingMs);
    if (refused) throw new RequestValidationError("journal.settle", [{ path: "(key)", message: refused }]);
    const settlement = ended(entry!, applied ? "applied" : "not-applied", applied ? { answerLost: true } : undefined);
    await storeCall("settle the intent", () => o.store.settleIntent(full, settlement, turn?.fence));
  };
  if (!o.chain) return write();
  const scope = (await storeCall("read the journal", () => o.store.getIntent(full)))?.scope;
  await (scope === undefined ? write() : o.chain.run(scope, write));
}
