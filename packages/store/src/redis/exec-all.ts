import type { ChainableCommander } from "ioredis";

/**
 * Runs a MULTI or pipeline and hands back each command's `[error, reply]`, as ioredis does; rejects if there are none
 * (a MULTI that Redis aborted), so a caller never reads a missing outcome as success.
 */
export async function execEach(batch: ChainableCommander): Promise<[Error | null, unknown][]> {
  const replies = await batch.exec();
  if (!replies) throw new Error("transaction aborted");
  return replies;
}

/** Runs a MULTI or pipeline and rejects with the first command's error, which ioredis hands back in the replies. */
export async function execAll(batch: ChainableCommander): Promise<unknown[]> {
  return (await execEach(batch)).map(([error, reply]) => {
    if (error) throw error;
    return reply;
  });
}
