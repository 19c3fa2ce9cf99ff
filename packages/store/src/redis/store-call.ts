import { StoreUnavailableError } from "@resident/core";

/** Runs one Redis operation; whatever goes wrong becomes core's StoreUnavailableError, with the cause kept. */
export async function storeCall<T>(operation: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new StoreUnavailableError(`redis ${operation} failed: ${reason}`, { cause: error });
  }
}
