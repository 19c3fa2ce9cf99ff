/*
 * A negative control, never loaded by default: preloaded into every instance when SYSTEM_SABOTAGE=stream-record is set
 * (support/deployment.ts), it makes the reply ledger forget every streamed message it recorded, so a worker that
 * takes over an answer cut off mid-stream no longer finishes that message. Where the platform cannot find the stream
 * again either (Teams has no read API), the takeover opens a second stream and the cut-off one is never finished:
 * the streaming kill tests must then fail.
 */
import { ReplyLedger } from "@resident/core";

ReplyLedger.prototype.streamedMessage = async () => undefined;
process.stderr.write("SABOTAGE: the reply ledger forgets streamed messages in this instance\n");
