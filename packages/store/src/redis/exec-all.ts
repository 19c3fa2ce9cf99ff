import type { ChainableCommander } from "ioredis";

/** Runs a MULTI or pipeline and rejects with the first command's error, which ioredis hands back in the replies. */
export async function execAll(batch: ChainableCommander): Promise<unknown[]> {
  const replies = await batch.exec();
  if (!replies) throw new Error("transaction aborted");
  return replies.map(([error, reply]) => {
    if (error) throw error;
    return reply;
  });
}
