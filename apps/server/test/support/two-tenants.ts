import { connectSlackWorkspace, type SlackWorkspace } from "@resident/testkit/slack";
import { afterAll, beforeAll } from "vitest";
import { type InProcessService, startInProcessService } from "./in-process-service.ts";

/** One in-process service with two Slack workspaces, each under a tenant of its own, with its tenant admin. */
export interface TwoTenants {
  service: InProcessService;
  a: SlackWorkspace;
  b: SlackWorkspace;
}

/**
 * Starts the service and connects both workspaces before the calling scope's tests (a `beforeAll` there), and closes
 * the service after them. The fields are set once that `beforeAll` has run.
 */
export function serviceWithTwoTenants(): TwoTenants {
  const two = {} as TwoTenants;
  beforeAll(async () => {
    const service = await startInProcessService();
    two.service = service;
    [two.a, two.b] = await Promise.all([
      connectSlackWorkspace(service.url, service.operator, service.slack),
      connectSlackWorkspace(service.url, service.operator, service.slack),
    ]);
  });
  afterAll(() => two.service?.close());
  return two;
}
