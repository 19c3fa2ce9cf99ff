/*
 * A negative control, never loaded by default: preloaded into every instance (NODE_OPTIONS=--import …) when
 * SYSTEM_SABOTAGE=reply-ledger is set (support/deployment.ts), it turns the reply ledger into a yes-man and has the
 * event gate admit each delivery on its own, so twins that carry different event ids are all answered. The system tests must then fail with duplicates — proof that their
 * counts can see them.
 */
import { EventGate, eventKey, MemoryClaimStore, ReplyLedger, ToolJournal } from "@resident/core";

// The gate folds a message's twins into one job (admissionKey): undone, each twin is a job of its own.
EventGate.prototype.keyOf = (delivery) => eventKey(delivery);

ReplyLedger.prototype.claim = async () => ({ outcome: "claimed", token: "sabotaged", since: performance.now() });
ReplyLedger.prototype.hold = () => ({ signal: new AbortController().signal, assertHeld() {}, stop() {} });
ReplyLedger.prototype.commit = async () => true;
ReplyLedger.prototype.release = async () => true;
ReplyLedger.prototype.journalAnswer = async (_event, text) => text;
// The sending mark is the ledger's too: left to work, it would stop a twin posting after its mark outlived the
// yes-man commit (which no longer ends it).
ReplyLedger.prototype.beginSend = async () => ({ first: true, token: "sabotaged" });
ReplyLedger.prototype.endSend = async () => true;
ReplyLedger.prototype.journalAndBeginSend = async (_event, text) => ({
  text,
  sending: { first: true, token: "sabotaged" },
});
// The tool journal is part of the ledger: each attempt keeps its steps to itself.
ReplyLedger.prototype.toolJournal = (event, ttlMs) => new ToolJournal(new MemoryClaimStore(), event, ttlMs);
process.stderr.write("SABOTAGE: the reply ledger and the gate's twin folding are disabled in this instance\n");
