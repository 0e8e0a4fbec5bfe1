// A journaled call's sign-in, made before its intent and its register's lease (journal.ts) and run
// as the call's first attempt would have run it, so the change of place changes nothing else: a
// call aborted already asks nothing, and a failure is the attempt's typed error with the call's
// secrets cut out (a token store's error may quote the token it holds). A call aborted while the
// sign-in runs stops waiting for it at once; the sign-in goes on for the client's other calls.
import { asPaysysError, type CallState, signInAborted } from "./attempt.js";
import { unlessAborted } from "./attempt-signal.js";

export async function signInFirst(signIn: () => Promise<unknown>, state: CallState, caller: AbortSignal | undefined): Promise<void> {
  const aborted = () => signInAborted(state, caller, 0);
  if (caller?.aborted) throw aborted();
  try {
    await unlessAborted(signIn(), caller, aborted);
  } catch (e) {
    throw asPaysysError(e, state);
  }
}
