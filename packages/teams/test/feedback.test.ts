import { type Inbound, MalformedPayloadError, resolveSettings, type Workspace } from "@resident/core";
import { defaultTeamsUser, feedbackInvoke } from "@resident/testkit/teams";
import { describe, expect, it } from "vitest";
import { TeamsAdapter, type TeamsCredentials } from "../src/index.ts";
import { appId, appPassword, unsignedRequest } from "./harness.ts";

const adapter = new TeamsAdapter();
const workspace: Workspace<TeamsCredentials> = {
  id: "ws-teams",
  tenantId: "tenant-a",
  platform: "teams",
  name: "Teams",
  credentials: { appId, appPassword },
  settings: resolveSettings({}, "closed"),
  identity: { appId, botId: `28:${appId}` },
};
const serviceUrl = "https://smba.trafficmanager.net/emea/";
const answer = { conversationId: "a:1personalChatWithAlice", id: "1700000000123" };

const normalize = (activity: object, receivedAt = 1_000): Inbound =>
  adapter.normalize(unsignedRequest(activity), workspace, receivedAt);

describe("Teams feedback loop: message/submitAction invokes", () => {
  it("turns a like or dislike on an answer into a vote by the person's Entra object id", () => {
    const like = feedbackInvoke({ appId, serviceUrl, answer, reaction: "like", id: "f:1" });
    expect(normalize(like)).toEqual({
      kind: "feedback",
      click: {
        platform: "teams",
        tenantId: "tenant-a",
        workspaceId: "ws-teams",
        messageId: "a:1personalChatWithAlice:1700000000123",
        userId: defaultTeamsUser.aadObjectId,
        vote: "positive",
        clickId: "f:1",
        clickedAt: Date.parse(like.timestamp),
      },
    });
    const dislike = normalize(feedbackInvoke({ appId, serviceUrl, answer, reaction: "dislike" }));
    expect(dislike.kind === "feedback" && dislike.click.vote).toBe("negative");
  });

  it("ignores other invokes and other submitActions", () => {
    const like = feedbackInvoke({ appId, serviceUrl, answer, reaction: "like" });
    expect(normalize({ ...like, name: "adaptiveCard/action" }).kind).toBe("ignore");
    expect(normalize({ ...like, value: { actionName: "share" } }).kind).toBe("ignore");
  });

  it("refuses a feedback invoke it cannot count (400)", () => {
    const like = feedbackInvoke({ appId, serviceUrl, answer, reaction: "like" });
    const { replyToId: _answer, ...withoutAnswer } = like;
    for (const bad of [
      withoutAnswer,
      { ...like, value: { actionName: "feedback" } },
      { ...like, value: { actionName: "feedback", actionValue: { reaction: "love" } } },
      { ...like, value: "feedback" },
    ]) {
      expect(() => normalize(bad)).toThrow(MalformedPayloadError);
    }
  });
});
