import type { BuiltinTool } from "./agent-tool.ts";

/** The current date and time, in UTC and, when the model names one, in an IANA time zone. */
export const currentTime: BuiltinTool = () => ({
  definition: {
    name: "current_time",
    description:
      "The current date and time. Give `time_zone` (an IANA name such as Asia/Tokyo) for the local time there.",
    input_schema: {
      type: "object",
      properties: { time_zone: { type: "string", description: "an IANA time zone name; default UTC" } },
    },
  },
  async run(input) {
    const zone = (input as { time_zone?: unknown } | undefined)?.time_zone;
    const now = new Date();
    const timeZone = typeof zone === "string" && zone !== "" ? zone : "UTC";
    try {
      const local = now.toLocaleString("sv-SE", { timeZone, timeZoneName: "short" });
      return { status: "done", content: `${now.toISOString()} (${timeZone}: ${local})`, isError: false };
    } catch {
      return { status: "done", content: `unknown time zone ${timeZone}; UTC is ${now.toISOString()}`, isError: true };
    }
  },
});
