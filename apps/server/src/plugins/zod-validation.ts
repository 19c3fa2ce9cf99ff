import { issueLines } from "@resident/core";
import type { FastifyInstance } from "fastify";
import type { ZodType } from "zod";

/**
 * Lets routes in this scope declare zod schemas for body, params and query. Zod's messages name the rule broken,
 * never the value given, so a rejected credential cannot leak through a 400.
 */
export function useZodValidation(app: FastifyInstance): void {
  app.setValidatorCompiler<ZodType>(({ schema }) => (data) => {
    const result = schema.safeParse(data);
    if (result.success) return { value: result.data };
    return { error: new Error(issueLines(result.error).join("; ")) };
  });
}
