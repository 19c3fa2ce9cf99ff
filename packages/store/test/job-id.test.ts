import { describe, expect, it } from "vitest";
import { fromJobId, toJobId } from "../src/redis/job-id.ts";

describe("job ids", () => {
  const ids = ["event:T01:Ev1", "reply:ws:C1:171.2%3A", "123", "-1", "0", "%", "%3A", "a:b:c", "ünï:code"];

  it("are ones BullMQ accepts: no ':' and never an integer", () => {
    for (const id of ids) {
      const jobId = toJobId(id);
      expect(jobId).not.toContain(":");
      expect(`${Number.parseInt(jobId, 10)}`).not.toBe(jobId);
    }
  });

  it("give back the original id", () => {
    for (const id of ids) expect(fromJobId(toJobId(id))).toBe(id);
  });
});
