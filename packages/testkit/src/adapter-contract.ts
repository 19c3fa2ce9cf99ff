import type { PlatformGuide } from "@resident/admin-api";
import type { InboundRequest, PlatformAdapter, PlatformDescriptor, Workspace } from "@resident/core";
import { failModes, MemoryCredentialStore, VerificationError } from "@resident/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { credentialShapes, sortShapes } from "./credential-shapes.ts";

/** A reply as the fake platform recorded it. */
export interface RecordedReply {
  conversationId: string;
  text: string;
}

/**
 * What a platform package provides so the shared contract can exercise its adapter against its fake platform.
 * Deliveries are built the way the platform builds them, signed with the workspace's credentials.
 */
export interface AdapterContractFixture<C> {
  /** The platform package's descriptor: the one thing the service is given. */
  platform: PlatformDescriptor<unknown, PlatformGuide>;
  adapter: PlatformAdapter<C>;
  /** A workspace whose credentials point at the running fake platform, identity learnt through `connect`. */
  workspace: Workspace<C>;
  /** A user message addressed to the bot, with `text` after the mention. */
  userMessage(text: string): InboundRequest;
  /** The same user message once more, as the platform redelivers it (same delivery identity). */
  redelivery(of: InboundRequest): InboundRequest;
  /** The same user message through a second delivery source: a twin with its own event id. */
  twin(of: InboundRequest): InboundRequest;
  /** A message our own bot posted. */
  ownMessage(): InboundRequest;
  /** The delivery with its signature or token broken. */
  tampered(of: InboundRequest): InboundRequest;
  /** The delivery with its signature or token removed. */
  unsigned(of: InboundRequest): InboundRequest;
  /** Replies the fake platform has recorded. */
  replies(): Promise<RecordedReply[]>;
  close(): Promise<void>;
}

/** The suite every platform adapter passes: descriptor, guide, verify, normalize, self-loop guard, twin keys, send. */
export function adapterContract<C>(name: string, setup: () => Promise<AdapterContractFixture<C>>): void {
  describe(`${name} adapter contract`, () => {
    let f: AdapterContractFixture<C>;
    const now = () => Date.now();
    const message = (request: InboundRequest) => {
      const inbound = f.adapter.normalize(request, f.workspace, now());
      if (inbound.kind !== "message") throw new Error(`expected a message, got ${inbound.kind}`);
      return inbound.event;
    };

    beforeAll(async () => {
      f = await setup();
    });
    afterAll(() => f?.close());

    it("its descriptor names a webhook path of its own and builds an adapter of its id", () => {
      expect(f.platform.id).toMatch(/^[a-z][a-z0-9]*$/);
      expect(f.platform.webhookPath).toMatch(/^(\/[a-z0-9-]+)+$/);
      expect(f.adapter.platform).toBe(f.platform.id);
      // Built from an empty environment (the platform's own defaults) and never called: nothing is limited or logged.
      const quiet = { debug() {}, info() {}, warn() {}, error() {} };
      const built = f.platform.createAdapter({
        env: {},
        logger: quiet,
        limiter: { take: async () => 0 },
        credentials: new MemoryCredentialStore(),
      });
      expect(built.platform).toBe(f.platform.id);
    });

    it("its guide asks for exactly the credentials of one form its schema accepts, and explains both fail modes", () => {
      const { guide } = f.platform;
      const asked = guide.credentialFields.map((field) => ({
        name: field.name,
        optional: field.optional ?? false,
        list: field.list ?? false,
        choices: [...(field.choices ?? [])],
      }));
      expect(credentialShapes(f.platform.credentialsSchema)).toContainEqual(sortShapes(asked));
      expect(guide.displayName).not.toBe("");
      expect(guide.setupSteps.length).toBeGreaterThan(0);
      // Every text in every language of the console: the types demand the keys, this the words.
      const texts = [
        ...guide.credentialFields.flatMap((field) => [field.label, ...(field.help ? [field.help] : [])]),
        ...guide.setupSteps,
        guide.outageBehaviour,
        ...failModes.map((mode) => guide.failModeConsequences[mode]),
        ...Object.values(guide.identityLabels),
      ];
      for (const text of texts) for (const words of Object.values(text)) expect(words.trim()).not.toBe("");
      for (const long of [guide.outageBehaviour, ...failModes.map((mode) => guide.failModeConsequences[mode])]) {
        expect(long.en.length).toBeGreaterThan(40);
        expect(long.ja.length).toBeGreaterThan(40);
      }
    });

    it("connect learns the bot's identity, and the guide names every part of it", () => {
      expect(Object.keys(f.workspace.identity).length).toBeGreaterThan(0);
      for (const key of Object.keys(f.workspace.identity)) expect(f.platform.guide.identityLabels).toHaveProperty(key);
    });

    it("verify accepts a genuine delivery", async () => {
      await expect(f.adapter.verify(f.userMessage("hello"), f.workspace, now())).resolves.toBeUndefined();
    });

    it("verify rejects a tampered or unsigned delivery", async () => {
      const genuine = f.userMessage("hello");
      await expect(f.adapter.verify(f.tampered(genuine), f.workspace, now())).rejects.toBeInstanceOf(VerificationError);
      await expect(f.adapter.verify(f.unsigned(genuine), f.workspace, now())).rejects.toBeInstanceOf(VerificationError);
    });

    it("normalize turns a user message into a ChatEvent with the mention stripped", () => {
      const event = message(f.userMessage("what is our refund policy?"));
      expect(event).toMatchObject({
        platform: f.adapter.platform,
        tenantId: f.workspace.tenantId,
        workspaceId: f.workspace.id,
        text: "what is our refund policy?",
        author: { isBot: false, isSelf: false },
      });
      expect(event.eventId).not.toBe("");
      expect(event.messageKey).not.toBe("");
      expect(event.conversation.id).not.toBe("");
      expect(event.conversation.replyToId).not.toBe("");
    });

    it("ignores the bot's own messages", () => {
      expect(f.adapter.normalize(f.ownMessage(), f.workspace, now()).kind).toBe("ignore");
    });

    it("a redelivery keeps its event id; a twin keeps the message key under a new event id", async () => {
      const first = f.userMessage("twin me");
      const original = message(first);
      const redelivered = message(f.redelivery(first));
      const twinRequest = f.twin(first);
      await expect(f.adapter.verify(twinRequest, f.workspace, now())).resolves.toBeUndefined();
      const twin = message(twinRequest);
      expect(redelivered.eventId).toBe(original.eventId);
      expect(twin.eventId).not.toBe(original.eventId);
      expect(twin.messageKey).toBe(original.messageKey);
      expect(message(f.userMessage("another question")).messageKey).not.toBe(original.messageKey);
    });

    it("send posts once into the conversation and returns the platform's message id", async () => {
      const event = message(f.userMessage("please answer"));
      const before = (await f.replies()).length;
      const sent = await f.adapter.send(
        { event, text: "here is the answer", replyKey: `reply:${event.workspaceId}:${event.messageKey}` },
        f.workspace,
      );
      expect(sent.messageId).not.toBe("");
      const replies = (await f.replies()).slice(before);
      expect(replies).toHaveLength(1);
      expect(replies[0]).toMatchObject({ conversationId: event.conversation.id });
      expect(replies[0]?.text).toContain("here is the answer");
    });
  });
}
