import { createHmac } from "node:crypto";
import { type Inbound, MalformedPayloadError, VerificationError } from "@resident/core";
import { describe, expect, it } from "vitest";
import { answerBlocks } from "../src/feedback.ts";
import { SlackAdapter } from "../src/index.ts";
import { fixture, signingSecret, slackWorkspace } from "./harness.ts";

const receivedAt = 1_700_000_000_000;
const adapter = new SlackAdapter();
const workspace = slackWorkspace({ botUserId: "U0BOT", botId: "B111", teamId: "T111" });
const clickFixture = fixture("block_actions_feedback_buttons.bolt-adapted.json");

/** What Slack POSTs to the Interactivity Request URL: the payload's JSON in a form field. */
function interaction(payload: unknown, contentType = "application/x-www-form-urlencoded") {
  return {
    rawBody: Buffer.from(`payload=${encodeURIComponent(JSON.stringify(payload))}`),
    headers: { "content-type": contentType },
    query: {},
    endpoint: "interactions" as const,
  };
}

function normalize(payload: unknown): Inbound {
  return adapter.normalize(interaction(payload), workspace, receivedAt);
}

const withAction = (change: Record<string, unknown>) => ({
  ...clickFixture,
  actions: [{ ...(clickFixture.actions as object[])[0], ...change }],
});

describe("Slack interactions (block_actions on the Interactivity Request URL)", () => {
  it("turns a click on our feedback buttons into a vote on the answer it sits under", () => {
    expect(normalize(clickFixture)).toEqual({
      kind: "feedback",
      click: {
        platform: "slack",
        tenantId: "tenant_1",
        workspaceId: "ws_slack",
        messageId: "C111:111.222",
        userId: "W111",
        vote: "positive",
        clickId: "1596530385.194939",
        clickedAt: 1_596_530_385_195,
      },
    });
    const down = normalize(withAction({ value: "negative" }));
    expect(down.kind === "feedback" && down.click.vote).toBe("negative");
  });

  it("ignores other interactions and other elements' clicks", () => {
    expect(normalize({ ...clickFixture, type: "view_submission" })).toMatchObject({ kind: "ignore" });
    expect(normalize(withAction({ action_id: "someone_elses_button", type: "button" }))).toMatchObject({
      kind: "ignore",
    });
  });

  it("refuses what is not a well-formed feedback click (400): every change leaves nothing counted", () => {
    const refused = [
      () => adapter.normalize(interaction(clickFixture, "application/json"), workspace, receivedAt),
      () =>
        adapter.normalize(
          { ...interaction(clickFixture), rawBody: Buffer.from("payload=%7Bnot-json") },
          workspace,
          receivedAt,
        ),
      () => adapter.normalize({ ...interaction(clickFixture), rawBody: Buffer.from("other=1") }, workspace, receivedAt),
      () => normalize(withAction({ value: "ecstatic" })),
      () => normalize(withAction({ action_ts: "yesterday" })),
      () => normalize({ ...clickFixture, user: undefined }),
      () => normalize({ ...clickFixture, container: { type: "view", view_id: "V1" } }),
    ];
    for (const attempt of refused) expect(attempt).toThrow(MalformedPayloadError);
  });

  it("verifies an interaction as it verifies events: v0 signature over the form body, in the 5-minute window", async () => {
    const request = interaction(clickFixture);
    const timestamp = String(Math.floor(receivedAt / 1000));
    const signature = createHmac("sha256", signingSecret)
      .update(`v0:${timestamp}:`)
      .update(request.rawBody)
      .digest("hex");
    const signed = {
      ...request,
      headers: { ...request.headers, "x-slack-request-timestamp": timestamp, "x-slack-signature": `v0=${signature}` },
    };
    await expect(adapter.verify(signed, workspace, receivedAt)).resolves.toBeUndefined();
    const tampered = { ...signed, rawBody: Buffer.from(signed.rawBody.toString().replace("positive", "negative")) };
    await expect(adapter.verify(tampered, workspace, receivedAt)).rejects.toBeInstanceOf(VerificationError);
    await expect(adapter.verify(signed, workspace, receivedAt + 301_000)).rejects.toBeInstanceOf(VerificationError);
  });

  it("puts the feedback buttons under every posted answer, the answer's text kept as it was", () => {
    const blocks = answerBlocks("**The answer**, in markdown.");
    expect(blocks).toEqual([
      { type: "markdown", text: "**The answer**, in markdown." },
      {
        type: "context_actions",
        elements: [
          expect.objectContaining({
            type: "feedback_buttons",
            action_id: "resident_feedback",
            positive_button: expect.objectContaining({ value: "positive" }),
            negative_button: expect.objectContaining({ value: "negative" }),
          }),
        ],
      },
    ]);
    // Past a markdown block's 12,000 characters the answer goes as text alone.
    expect(answerBlocks("x".repeat(12_001))).toBeUndefined();
  });
});
