import { describe, expect, it } from "vitest";
import { StoreUnavailableError, warnUnlessAway } from "../src/index.ts";

function recordingLogger() {
  const lines: { level: string; obj: object; msg?: string }[] = [];
  const at = (level: string) => (obj: object, msg?: string) => lines.push({ level, obj, msg });
  return { lines, logger: { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") } };
}

describe("warnUnlessAway", () => {
  it("keeps a store's outage at debug, with its message only", () => {
    const { lines, logger } = recordingLogger();
    warnUnlessAway(logger, new StoreUnavailableError("redis append skipped: Redis is down"), { w: 1 }, "could not");
    expect(lines).toEqual([
      { level: "debug", obj: { w: 1, err: "redis append skipped: Redis is down" }, msg: "could not" },
    ]);
  });

  it("warns of any other failure, with the error itself", () => {
    const { lines, logger } = recordingLogger();
    const err = new TypeError("a bug");
    warnUnlessAway(logger, err, { w: 1 }, "could not");
    expect(lines).toEqual([{ level: "warn", obj: { w: 1, err }, msg: "could not" }]);
  });
});
