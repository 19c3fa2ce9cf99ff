/*
 * A negative control, never loaded by default: preloaded into every instance (NODE_OPTIONS=--import …) when
 * SYSTEM_SABOTAGE=reply-ledger is set (support/deployment.ts), it turns the reply ledger into a yes-man, so twins that
 * carry different event ids are all answered. The system tests must then fail with duplicates — proof that their
 * counts can see them.
 */
import { MemoryClaimStore, ReplyLedger, ToolJournal } from "@resident/core";

ReplyLedger.prototype.claim = async () => ({ outcome: "claimed", token: "sabotaged" });
ReplyLedger.prototype.hold = () => ({ signal: new AbortController().signal, stop() {} });
ReplyLedger.prototype.commit = async () => true;
ReplyLedger.prototype.release = async () => true;
ReplyLedger.prototype.journaledAnswer = async () => undefined;
ReplyLedger.prototype.journalAnswer = async (_event, text) => text;
// The tool journal is part of the ledger: each attempt keeps its steps to itself.
ReplyLedger.prototype.toolJournal = (event, ttlMs) => new ToolJournal(new MemoryClaimStore(), event, ttlMs);
process.stderr.write("SABOTAGE: the reply ledger is disabled in this instance\n");
